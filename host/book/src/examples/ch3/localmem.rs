//! ch3-localmem: a thread-private array in registers or in local memory (book §3.2.4.1).
//!
//! The two kernels sum the same 32 private values in the same order; `localmem_registers` knows
//! every index at compile time, `localmem_dynamic` reads the index walk's multiplier from its
//! arguments. The example prints the PTX's `.local` lines and ptxas's report (stack frame, spill
//! bytes, registers) for both when ptxas is available (`PTXAS`, the PATH, or the
//! `nvidia-cuda-nvcc` wheel), runs both and compares their times.
use super::{print_ptx_lines, print_ptxas_resources};
use crate::examples::{Example, Options, Outcome, SIMULATOR_SIZE, Size};
use crate::reference;
use book_kernels::ch3::localmem::{LocalmemArgs, LocalmemDynamic, LocalmemRegisters, STRIDE};
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "ch3-localmem",
    description: "a private array in registers (constant indices) vs local memory (run-time indices): ptxas report and times (book 3.2.4.1)",
    size: Some(Size {
        unit: "elements (threads, one private array each)",
        gpu: N,
        simulator: SIMULATOR_SIZE,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: true,
    flags: &[],
    run,
};

/// Elements on a GPU: 2^24, 64 MiB in and out, so the kernels' times dwarf the launch.
pub const N: usize = 1 << 24;
pub const THREADS_PER_BLOCK: u32 = 256;

/// The run's peak: `x` and `a` on the device; on the host `x`, the CPU's sums and a download
/// (or the NaN poison, never both); `None` on overflow.
pub fn memory(_: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    Footprint::NONE.device::<f32>(2, n)?.host::<f32>(3, n)
}

/// The two kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Registers,
    Dynamic,
}

impl Variant {
    pub const ALL: [Variant; 2] = [Variant::Registers, Variant::Dynamic];

    /// The PTX symbol.
    pub fn kernel(self) -> &'static str {
        match self {
            Variant::Registers => "localmem_registers",
            Variant::Dynamic => "localmem_dynamic",
        }
    }
}

/// `a = walk sum of x` with `variant`, the walk's multiplier [`STRIDE`].
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
    }
}

/// Prints the PTX and ptxas evidence, then times and verifies both kernels.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(gpu.pick(N, SIMULATOR_SIZE))?;
    println!(" where the private array t[32] lives:");
    for variant in Variant::ALL {
        print_ptx_lines(gpu, variant.kernel(), &[".local", "st.local", "ld.local"], 4);
    }
    print_ptxas_resources(gpu, &[Variant::Registers.kernel(), Variant::Dynamic.kernel()]);

    let x = try_from_fn(n, |i| (i % 1000) as f32 * 0.001)?;
    let x_d = gpu.upload(&x)?;
    let mut a_d = gpu.zeros::<f32>(n)?;
    let mut expected = try_vec(n, 0.0)?;
    reference::ch3::localmem::localmem(&mut expected, &x, STRIDE);
    let mut checks = Vec::new();
    let mut times = Vec::new();
    for variant in Variant::ALL {
        gpu.upload_into(&try_vec(n, f32::NAN)?, &mut a_d)?;
        let stats = time_reps(gpu, options.reps, || launch(gpu, variant, &mut a_d, &x_d))?;
        times.push(stats.median_ms);
        // Same values summed in the same order: bit-identical to the CPU.
        checks.push(Check::compare(
            variant.kernel(),
            &gpu.download(&a_d)?,
            &expected,
            Tolerance::EXACT,
        ));
    }
    println!(
        " {n} elements, {THREADS_PER_BLOCK} threads per block, median of {} runs ({}):",
        options.reps,
        gpu.timing_label()
    );
    for (variant, ms) in Variant::ALL.iter().zip(&times) {
        println!("   {:<20} {ms:>10.4} ms", variant.kernel());
    }
    println!("   local memory / registers: {:.2}x the time", times[1] / times[0]);
    Ok(Outcome { checks })
}
