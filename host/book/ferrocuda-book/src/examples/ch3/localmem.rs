//! ch3-localmem: a thread-private array in registers or in local memory (book §3.2.4.1).
//!
//! The two kernels sum the same 32 private values in the same order; `localmem_registers` knows
//! every index at compile time, `localmem_dynamic` reads the index walk's multiplier from its
//! arguments. The third is the book's `k3`: `real b(256); b = 1.0; a(i) = b(2)`, a 1024-byte
//! private array (volatile stores, and `b(2)` read at an index passed at run time, without which
//! LLVM and ptxas delete the array; see the kernel). The
//! example prints the PTX's `.local` lines and ptxas's report (stack frame, spill bytes,
//! registers) for all three when ptxas is available (`PTXAS`, the PATH, or the
//! `nvidia-cuda-nvcc` wheel), checks that `k3`'s frame is 1024 bytes, runs all three and
//! compares their times.
use super::{print_ptx_lines, print_ptxas_resources, ptx_lines};
use crate::example::{Example, NoOptions, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference;
use book_kernels::ch3::localmem::{
    LARGE_LEN, LARGE_READ_INDEX, LocalmemArgs, LocalmemDynamic, LocalmemLargeArgs, LocalmemLargeArray,
    LocalmemRegisters, STRIDE,
};
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

/// Elements on a GPU: 2^24, 64 MiB in and out, so the kernels' times dwarf the launch.
pub const N: usize = 1 << 24;
pub const THREADS_PER_BLOCK: u32 = 256;

/// The three kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `k1`: constant indices.
    Registers,
    /// `k2`: run-time indices.
    Dynamic,
    /// `k3`: `b(256) = 1.0; a(i) = b(2)`.
    LargeArray,
}

impl Variant {
    pub const ALL: [Variant; 3] = [Variant::Registers, Variant::Dynamic, Variant::LargeArray];

    /// The PTX symbol.
    pub fn kernel(self) -> &'static str {
        ["localmem_registers", "localmem_dynamic", "localmem_large_array"][self as usize]
    }
}

/// `a = walk sum of x` with `variant`, the walk's multiplier [`STRIDE`]; for
/// [`Variant::LargeArray`], `a = 1` (it reads no `x`).
pub fn launch(gpu: &Gpu, variant: Variant, a_d: &mut DeviceBuffer<f32>, x_d: &DeviceBuffer<f32>) -> Result<()> {
    let shape = LaunchShape::cover_1d(a_d.len(), THREADS_PER_BLOCK)?;
    let args = LocalmemArgs {
        a: a_d.view_mut(),
        x: x_d.view(),
        stride: STRIDE,
    };
    match variant {
        Variant::Registers => crate::kernels(gpu)?.launch(LocalmemRegisters, shape, args),
        Variant::Dynamic => crate::kernels(gpu)?.launch(LocalmemDynamic, shape, args),
        Variant::LargeArray => {
            let args = LocalmemLargeArgs {
                a: args.a,
                index: LARGE_READ_INDEX,
            };
            crate::kernels(gpu)?.launch(LocalmemLargeArray, shape, args)
        }
    }
}

/// What `variant` writes for `x`: the walk sums, or ones.
pub fn expected(variant: Variant, x: &[f32]) -> Result<Vec<f32>> {
    let mut a = try_vec(x.len(), 1.0)?;
    if variant != Variant::LargeArray {
        reference::ch3::localmem::localmem(&mut a, x, STRIDE);
    }
    Ok(a)
}

/// Bytes of the `.local` depot in `kernel`'s PTX (`.local .align 4 .b8 __local_depot2[1024];`),
/// or `None` when it has none.
pub fn local_depot_bytes(gpu: &Gpu, kernel: &str) -> Option<usize> {
    ptx_lines(gpu, kernel, &["__local_depot"], 1).first().and_then(|line| {
        let inside = line.split('[').nth(1)?.split(']').next()?;
        inside.trim().parse().ok()
    })
}

/// Bytes of the book's `k3` array, the frame it needs.
pub const LARGE_BYTES: usize = LARGE_LEN * size_of::<f32>();

/// ch3-localmem.
pub struct Ch3Localmem;

impl Example for Ch3Localmem {
    const ID: &'static str = "ch3-localmem";
    const DESCRIPTION: &'static str = "a private array in registers (constant indices) vs local memory (run-time indices, or 1024 bytes): PTX, ptxas report and times (book 3.2.4.1)";
    const SIZE: Option<Size> = Some(Size::new(
        "elements (threads, one private array each)",
        N,
        SIMULATOR_SIZE,
    ));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak: `x` and `a` on the device; on the host `x`, the CPU's sums and a download
    /// (or the NaN poison, never both); `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<f32>(2, run.size)?.host::<f32>(3, run.size)
    }

    /// Prints the PTX and ptxas evidence, checks `k3`'s 1024-byte frame, then times and verifies
    /// the three kernels.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let mut checks = Vec::new();
        println!(" where the private arrays (t[32], and k3's b[256]) live:");
        for variant in Variant::ALL {
            print_ptx_lines(gpu, variant.kernel(), &[".local", "st.local", "ld.local"], 4);
        }
        let depot = local_depot_bytes(gpu, Variant::LargeArray.kernel());
        println!(
            "   k3's local depot: {} bytes (b(256) of 4-byte reals: {LARGE_BYTES})",
            depot.map_or("no".to_string(), |b| b.to_string())
        );
        checks.push(Check::condition(
            "k3 PTX: 1024-byte .local depot",
            depot == Some(LARGE_BYTES),
        ));
        let kernels = Variant::ALL.map(Variant::kernel);
        if let Some(rows) = print_ptxas_resources(gpu, &kernels) {
            let frame = rows
                .iter()
                .find(|k| k.name == Variant::LargeArray.kernel())
                .map(|k| k.stack_frame_bytes as usize);
            checks.push(Check::condition(
                "k3 ptxas: 1024 bytes stack frame",
                frame == Some(LARGE_BYTES),
            ));
        }

        let x = try_from_fn(n, |i| (i % 1000) as f32 * 0.001)?;
        let x_d = gpu.upload(&x)?;
        let mut a_d = gpu.zeros::<f32>(n)?;
        let mut times = Vec::new();
        for variant in Variant::ALL {
            let expected = expected(variant, &x)?;
            gpu.upload_into(&try_vec(n, f32::NAN)?, &mut a_d)?;
            let stats = time_reps(gpu, run.reps, || launch(gpu, variant, &mut a_d, &x_d))?;
            times.push(stats.median_ms);
            // Same values summed in the same order (or ones): bit-identical to the CPU.
            checks.push(Check::compare(
                variant.kernel(),
                &gpu.download(&a_d)?,
                &expected,
                Tolerance::EXACT,
            ));
        }
        println!(
            " {n} elements, {THREADS_PER_BLOCK} threads per block, median of {} runs ({}):",
            run.reps,
            gpu.timing_label()
        );
        for (variant, ms) in Variant::ALL.iter().zip(&times) {
            println!("   {:<20} {ms:>10.4} ms", variant.kernel());
        }
        println!("   local memory / registers: {:.2}x the time", times[1] / times[0]);
        Ok(Outcome { checks })
    }
}
