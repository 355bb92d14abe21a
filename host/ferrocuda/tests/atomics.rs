//! GPU-vs-CPU test of every atomic operation on every type it takes, at each scope, on global
//! memory and a shared tile (`ferrocuda_device::atomic`, through `probe_atomic_ops`).
use ferrocuda_testing as common;

use common::probe::atomics::{ATOMIC_OPS, ATOMIC_OPS_SHARED_BYTES, AtomicOpsArgs, ProbeAtomicOps};
use common::{GpuTest, TestResult, ensure, fail};
use ferrocuda::{Gpu, KernelView, LaunchShape};

/// One scope's integer slots before the launch: add, sub, min, max, and, or, xor, exch, cas.
fn integer_preset<T: Copy>(min_start: T, all_ones: T, zero: T) -> Vec<T> {
    let one_scope = [zero, zero, min_start, zero, all_ones, zero, zero, zero, zero];
    one_scope.iter().copied().cycle().take(3 * ATOMIC_OPS).collect()
}

/// What every scope's integer slots hold after `n` threads (`exch` aside: one thread's index),
/// as `u64` bits of the type's width.
fn integer_expected(n: u64, width: u32) -> [u64; 9] {
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    let touched_bits = if n >= 32 { 0xffff_ffffu64 } else { (1u64 << n) - 1 };
    let xor = (0..n).fold(0u64, |x, g| x ^ g);
    [
        (n * (n - 1) / 2) & mask,
        0u64.wrapping_sub(n) & mask,
        0,
        n - 1,
        mask & !touched_bits,
        touched_bits,
        xor & mask,
        u64::MAX, // exch: checked apart
        n,
    ]
}

fn check_integers(name: &str, got: &[u64], n: u64, width: u32) -> TestResult {
    let want = integer_expected(n, width);
    for (scope, slots) in got.chunks(ATOMIC_OPS).enumerate() {
        for (k, (&g, &w)) in slots.iter().zip(&want).enumerate() {
            let ok = if k == 7 { g < n } else { g == w };
            ensure(ok, || {
                format!("{name}, scope {scope}, operation {k} after {n} threads: {g:#x}, expected {w:#x}")
            })?;
        }
    }
    Ok(())
}

fn device_atomic_ops_every_type_and_scope(gpu: &Gpu) -> TestResult {
    for (blocks, threads) in [(1u32, 33u32), (3, 96), (8, 256)] {
        let n = u64::from(blocks * threads);
        let mut i32s = gpu.upload(&integer_preset(i32::MAX, -1, 0)).map_err(fail)?;
        let mut u32s = gpu.upload(&integer_preset(u32::MAX, u32::MAX, 0)).map_err(fail)?;
        let mut i64s = gpu.upload(&integer_preset(i64::MAX, -1, 0)).map_err(fail)?;
        let mut u64s = gpu.upload(&integer_preset(u64::MAX, u64::MAX, 0)).map_err(fail)?;
        let mut f32s = gpu.zeros::<f32>(12).map_err(fail)?;
        let mut f64s = gpu.zeros::<f64>(12).map_err(fail)?;
        let mut counts = gpu.zeros::<u32>(blocks as usize).map_err(fail)?;
        let args = AtomicOpsArgs {
            i32s: i32s.view_mut(),
            u32s: u32s.view_mut(),
            i64s: i64s.view_mut(),
            u64s: u64s.view_mut(),
            f32s: f32s.view_mut(),
            f64s: f64s.view_mut(),
            block_counts: counts.view_mut(),
        };
        let shape = LaunchShape::new((blocks, 1, 1), (threads, 1, 1)).with_shared_bytes(ATOMIC_OPS_SHARED_BYTES as u32);
        common::probes(gpu)?.launch(ProbeAtomicOps, shape, args).map_err(fail)?;
        let bits32 = |v: Vec<u32>| v.into_iter().map(u64::from).collect::<Vec<_>>();
        let i32_bits: Vec<u32> = gpu
            .download(&i32s)
            .map_err(fail)?
            .into_iter()
            .map(|x| x as u32)
            .collect();
        check_integers("i32", &bits32(i32_bits), n, 32)?;
        check_integers("u32", &bits32(gpu.download(&u32s).map_err(fail)?), n, 32)?;
        let i64_bits: Vec<u64> = gpu
            .download(&i64s)
            .map_err(fail)?
            .into_iter()
            .map(|x| x as u64)
            .collect();
        check_integers("i64", &i64_bits, n, 64)?;
        check_integers("u64", &gpu.download(&u64s).map_err(fail)?, n, 64)?;
        let floats: Vec<f64> = gpu
            .download(&f32s)
            .map_err(fail)?
            .into_iter()
            .map(f64::from)
            .chain(gpu.download(&f64s).map_err(fail)?)
            .collect();
        for (group, slots) in floats.chunks(4).enumerate() {
            let (sum, difference, exchanged, counted) = (slots[0], slots[1], slots[2], slots[3]);
            // Sums of ones and halves: exact in any order.
            let ok = sum == n as f64
                && difference == -0.5 * n as f64
                && exchanged < n as f64
                && exchanged.fract() == 0.0
                && counted == n as f64;
            ensure(ok, || format!("floats, group {group} after {n} threads: {slots:?}"))?;
        }
        let counts = gpu.download(&counts).map_err(fail)?;
        ensure(counts.iter().all(|&c| c == threads), || {
            format!("shared block-scope counts: {counts:?}, expected {threads} each")
        })?;
    }
    Ok(())
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![(
        "device_atomic_ops_every_type_and_scope",
        device_atomic_ops_every_type_and_scope,
    )];
    common::main(vec![], gpu_tests)
}
