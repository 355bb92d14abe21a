//! GPU-vs-CPU tests of Hopper's `wgmma` (`ferrocuda_device::hopper`, through the probes): each
//! shape and each swizzle multiplies small integers (exact in every format and every
//! accumulation order), so the simulator and the GPU must give the CPU's product bit for bit.
//! And the `mbarrier`: a producer warp hands eight rounds through two stages to four consumer
//! warps; on the simulator, a producer's write after it marked its stage full is reported as a
//! race.
use ferrocuda_testing as common;

use common::probe::hopper::{MBarrierRing, ProbeMbarrierRing, RING_ROUNDS, RING_STAGE, RingArgs, ring_value};
use common::probe::hopper::{ProbeTensorCopy, TensorCopyArgs, TensorCopyShared};
use common::probe::hopper::{
    ProbeWgmmaBf16K16, ProbeWgmmaBf16K32, ProbeWgmmaBf16K64, ProbeWgmmaF16K64, ProbeWgmmaTf32K32, WgmmaBf16K16,
    WgmmaBf16K32, WgmmaBf16K64, WgmmaF16K64, WgmmaProbeArgs, WgmmaTf32K32,
};
use common::{GpuTest, TestResult, ensure, fail};
use ferrocuda::device::mma::to_bf16;
use ferrocuda::{Gpu, Kernel, KernelView, LaunchShape};

/// Small integers in -4..=4, from `seed`: their products and sums of 64 are exact in f32.
fn small(n: usize, seed: u64) -> Vec<f32> {
    common::seeded_values(n, seed, 9)
        .into_iter()
        .map(|x| x as f32 - 4.0)
        .collect()
}

/// An f32 integer of magnitude below 2048 as IEEE half bits (exact).
fn to_f16(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let bits = x.to_bits();
    let sign = (bits >> 16) as u16 & 0x8000;
    let exponent = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    sign | (exponent as u16) << 10 | ((bits >> 13) & 0x3ff) as u16
}

/// Whether the probes' module on `gpu` holds `wgmma` (the simulator always runs it).
fn has_wgmma(gpu: &Gpu) -> bool {
    let cc = gpu.properties().compute_capability_number();
    gpu.is_simulator()
        || common::PROBES
            .for_compute_capability(cc)
            .is_some_and(|m| m.arch == "sm_90a")
}

/// Runs `kernel` on `a` (64 x k) and `b` (n rows of k) and checks `c = a b^T` exactly.
fn check<T: ferrocuda::device::global::Element + Copy, K>(
    gpu: &Gpu,
    kernel: K,
    shared_bytes: usize,
    (k, n): (usize, usize),
    encode: impl Fn(f32) -> T,
) -> TestResult
where
    K: for<'a> Kernel<WgmmaProbeArgs<'a, T>> + Copy,
{
    let (a, b) = (small(64 * k, k as u64), small(n * k, 1000 + n as u64));
    let a_d = gpu
        .upload(&a.iter().map(|&x| encode(x)).collect::<Vec<T>>())
        .map_err(fail)?;
    let b_d = gpu
        .upload(&b.iter().map(|&x| encode(x)).collect::<Vec<T>>())
        .map_err(fail)?;
    let mut c_d = gpu.zeros::<f32>(64 * n).map_err(fail)?;
    let shape = LaunchShape::new((1, 1, 1), (128, 1, 1)).with_shared_bytes(shared_bytes as u32);
    let args = WgmmaProbeArgs {
        a: a_d.view(),
        b: b_d.view(),
        c: c_d.view_mut(),
    };
    let launched = common::probes(gpu)?.launch(kernel, shape, args);
    if !has_wgmma(gpu) {
        // A module without sm_90a's instructions: the launch is refused in a sentence.
        return ensure(
            launched.is_err_and(|e| e.to_string().contains("uses instructions of sm_90a")),
            || "a wgmma probe launched from a module without sm_90a".to_string(),
        );
    }
    launched.map_err(fail)?;
    let c = gpu.download(&c_d).map_err(fail)?;
    for row in 0..64 {
        for col in 0..n {
            let want: f32 = (0..k).map(|kk| a[row * k + kk] * b[col * k + kk]).sum();
            let got = c[row * n + col];
            ensure(got == want, || {
                format!("k {k}, n {n}: c[{row}][{col}] is {got}, expected {want}")
            })?;
        }
    }
    Ok(())
}

fn wgmma_bf16_every_swizzle(gpu: &Gpu) -> TestResult {
    check(gpu, ProbeWgmmaBf16K64, WgmmaBf16K64::bytes(), (64, 128), to_bf16)?;
    check(gpu, ProbeWgmmaBf16K32, WgmmaBf16K32::bytes(), (32, 64), to_bf16)?;
    check(gpu, ProbeWgmmaBf16K16, WgmmaBf16K16::bytes(), (16, 256), to_bf16)
}

fn wgmma_f16_and_tf32(gpu: &Gpu) -> TestResult {
    check(gpu, ProbeWgmmaF16K64, WgmmaF16K64::bytes(), (64, 64), to_f16)?;
    check(gpu, ProbeWgmmaTf32K32, WgmmaTf32K32::bytes(), (32, 64), |x| x)
}

/// The ring's checksums against the CPU's; on the simulator, the race of a skipped wait.
fn mbarrier_ring(gpu: &Gpu) -> TestResult {
    let shape = LaunchShape::new((1, 1, 1), (160, 1, 1)).with_shared_bytes(MBarrierRing::bytes() as u32);
    let mut sums_d = gpu.zeros::<u32>(RING_STAGE).map_err(fail)?;
    let args = RingArgs {
        sums: sums_d.view_mut(),
        late_write_round: RING_ROUNDS as u32,
    };
    common::probes(gpu)?
        .launch(ProbeMbarrierRing, shape, args)
        .map_err(fail)?;
    let sums = gpu.download(&sums_d).map_err(fail)?;
    for (c, &got) in sums.iter().enumerate() {
        let want = (0..RING_ROUNDS).fold(0u32, |sum, r| sum.wrapping_mul(31).wrapping_add(ring_value(r, c)));
        ensure(got == want, || {
            format!("consumer {c}: checksum {got:#x}, expected {want:#x}")
        })?;
    }
    if gpu.is_simulator() {
        let args = RingArgs {
            sums: sums_d.view_mut(),
            late_write_round: 0,
        };
        let raced = common::probes(gpu)?
            .launch(ProbeMbarrierRing, shape, args)
            .and_then(|()| gpu.synchronize());
        ensure(
            raced
                .as_ref()
                .is_err_and(|e| e.to_string().contains("shared-memory race")),
            || format!("a write after the arrival was not reported as a race: {raced:?}"),
        )?;
    }
    Ok(())
}

/// One box of a 20 x 40 matrix of f32 copied by the bulk tensor copy engine into a swizzled
/// tile and read back, at the matrix's corner, across its far edges and before its start (the
/// parts outside land as zeros); on the simulator, readers that skip the barrier's wait are
/// reported, and so is a box at a column not 16-byte aligned (on the GPU a fault); a map the copy engine cannot use is refused in a sentence.
fn tensor_copy(gpu: &Gpu) -> TestResult {
    let (rows, cols) = (20usize, 40usize);
    let matrix: Vec<f32> = (0..rows * cols).map(|i| i as f32 + 1.0).collect();
    let matrix_d = gpu.upload(&matrix).map_err(fail)?;
    let map = ferrocuda::TensorMap::<f32, 8, 32>::new(gpu, matrix_d.view(), rows, cols, cols).map_err(fail)?;
    let shape = LaunchShape::new((1, 1, 1), (64, 1, 1)).with_shared_bytes(TensorCopyShared::bytes() as u32);
    let mut out_d = gpu.zeros::<f32>(8 * 32).map_err(fail)?;
    for (row, col) in [(0i32, 0i32), (16, 20), (-3, -4)] {
        let args = TensorCopyArgs {
            map: map.view(),
            row,
            col,
            out: out_d.view_mut(),
            skip_wait: 0,
        };
        let launched = common::probes(gpu)?.launch(ProbeTensorCopy, shape, args);
        if !has_wgmma(gpu) {
            return ensure(
                launched.is_err_and(|e| e.to_string().contains("uses instructions of sm_90a")),
                || "the tensor copy probe launched from a module without sm_90a".to_string(),
            );
        }
        launched.map_err(fail)?;
        let out = gpu
            .download(&out_d)
            .map_err(|e| format!("box at ({row}, {col}): {e}"))?;
        for (i, &got) in out.iter().enumerate() {
            let (r, c) = (row + (i / 32) as i32, col + (i % 32) as i32);
            let inside = (0..rows as i32).contains(&r) && (0..cols as i32).contains(&c);
            let want = if inside {
                matrix[r as usize * cols + c as usize]
            } else {
                0.0
            };
            ensure(got == want, || {
                format!("box at ({row}, {col}): element {i} is {got}, expected {want}")
            })?;
        }
    }
    if gpu.is_simulator() {
        let args = TensorCopyArgs {
            map: map.view(),
            row: 0,
            col: 0,
            out: out_d.view_mut(),
            skip_wait: 1,
        };
        let raced = common::probes(gpu)?
            .launch(ProbeTensorCopy, shape, args)
            .and_then(|()| gpu.synchronize());
        // Reported as a race, or (when a reader runs before the copy) as a read of bytes
        // nothing has written: either way, the missing wait.
        let reported = |e: &ferrocuda::Error| {
            let text = e.to_string();
            text.contains("shared-memory race") || text.contains("never written")
        };
        ensure(raced.as_ref().is_err_and(reported), || {
            format!("reads of the tile without the barrier's wait were not reported: {raced:?}")
        })?;
    }
    if gpu.is_simulator() {
        // A box whose rows do not start 16-byte aligned (column -5 of f32): the copy engine
        // faults (an illegal instruction on the H200), the simulator says why.
        let args = TensorCopyArgs {
            map: map.view(),
            row: -3,
            col: -5,
            out: out_d.view_mut(),
            skip_wait: 0,
        };
        let refused = common::probes(gpu)?
            .launch(ProbeTensorCopy, shape, args)
            .and_then(|()| gpu.synchronize());
        ensure(
            refused
                .as_ref()
                .is_err_and(|e| e.to_string().contains("multiple of 16 bytes")),
            || format!("a box at an unaligned column was not refused: {refused:?}"),
        )?;
    }
    // Rows 41 floats apart (164 bytes) are not 16-byte aligned: refused, in a sentence.
    let refused = ferrocuda::TensorMap::<f32, 8, 32>::new(gpu, matrix_d.view(), 19, 40, 41);
    ensure(
        refused.as_ref().is_err_and(|e| e.to_string().contains("16-byte")),
        || format!("a map of unaligned rows was not refused: {:?}", refused.as_ref().err()),
    )
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("wgmma_bf16_every_swizzle", wgmma_bf16_every_swizzle),
        ("wgmma_f16_and_tf32", wgmma_f16_and_tf32),
        ("mbarrier_ring", mbarrier_ring),
        ("tensor_copy", tensor_copy),
    ];
    common::main(vec![], gpu_tests)
}
