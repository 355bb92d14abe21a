//! ch2-limiting-factor: is a kernel limited by memory or by math? (book §2.2, `limitingFactor`)
//!
//! Times `base` (`a = sin(b)`), `memory` (`a = b`) and `math` (the sine without the store), with
//! the accurate sine and with the hardware one (the book's `-Mcuda=fastmath`), at the book's
//! size, 8*1024*1024 floats, 256 threads per block.
use crate::example::{Example, NoOptions, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference;
use book_kernels::ch2::limiting_factor::{Base, BaseFast, LimitingFactorArgs, Math, MathArgs, MathFast, Memory};
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result, same_len};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

/// The book's size, 8*1024*1024.
pub const N: usize = 8 * 1024 * 1024;
/// The book's `blockSize`.
pub const THREADS_PER_BLOCK: u32 = 256;

/// The accurate kernel runs the same `libm` sine as the CPU, but the GPU contracts its
/// multiply-adds into FMAs: a few ulps apart for |sin| <= 1.
pub const ACCURATE_SIN: Tolerance = Tolerance {
    abs: 4.0 * f32::EPSILON as f64,
    rel: 4.0 * f32::EPSILON as f64,
};
/// `sin.approx.f32` has an absolute error below 2^-20.9 on [-pi, pi] (PTX ISA, `sin`), which
/// the inputs stay in; relative error is meaningless near its zeros.
pub const FAST_SIN: Tolerance = Tolerance {
    abs: 1.0 / (1u64 << 20) as f64,
    rel: 0.0,
};

/// The variants, in the book's column order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Base,
    Memory,
    Math,
}

/// Launches one variant over `a_d`, reading `b_d` (base, memory) or the scalar `b` (math).
pub fn launch(
    gpu: &Gpu,
    variant: Variant,
    fast_math: bool,
    a_d: &mut DeviceBuffer<f32>,
    b_d: &DeviceBuffer<f32>,
    b: f32,
) -> Result<()> {
    let shape = LaunchShape::cover_1d(same_len("limitingFactor", &[a_d.len(), b_d.len()])?, THREADS_PER_BLOCK)?;
    let kernels = crate::kernels(gpu)?;
    let array_args = LimitingFactorArgs {
        a: a_d.view_mut(),
        b: b_d.view(),
    };
    let math_args = MathArgs {
        a: array_args.a,
        b,
        flag: 0,
    };
    match (variant, fast_math) {
        (Variant::Base, false) => kernels.launch(Base, shape, array_args),
        (Variant::Base, true) => kernels.launch(BaseFast, shape, array_args),
        (Variant::Memory, _) => kernels.launch(Memory, shape, array_args),
        (Variant::Math, false) => kernels.launch(Math, shape, math_args),
        (Variant::Math, true) => kernels.launch(MathFast, shape, math_args),
    }
}

/// ch2-limiting-factor.
pub struct Ch2LimitingFactor;

impl Example for Ch2LimitingFactor {
    const ID: &'static str = "ch2-limiting-factor";
    const DESCRIPTION: &'static str =
        "base, memory-only and math-only kernels, accurate and fast sine: what limits a kernel (book 2.2)";
    const SIZE: Option<Size> = Some(Size::new("floats per array", N, SIMULATOR_SIZE));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak: `a` and `b` on the device; on the host `b`, the NaN poison, the CPU's
    /// sines and one download; `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<f32>(2, run.size)?.host::<f32>(4, run.size)
    }

    /// Prints the book's table (gputime, us) and verifies each variant's output.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        // Arguments spread over [-pi, pi] (the book uses b = 1 everywhere, which checks one value).
        let b = try_from_fn(n, |i| ((i % 4096) as f32 / 4096.0 * 2.0 - 1.0) * std::f32::consts::PI)?;
        let b_d = gpu.upload(&b)?;
        let poison = try_vec(n, f32::NAN)?;
        let mut a_d = gpu.upload(&poison)?;
        let mut expected = try_vec(n, 0.0)?;
        reference::ch2::limiting_factor::base(&mut expected, &b);

        let mut checks = Vec::new();
        let mut rows = Vec::new();
        for (fast_math, name, build) in [
            (false, "default", "default (libm sinf)"),
            (true, "fast math", "fast math (__sinf)"),
        ] {
            let mut times = Vec::new();
            for variant in [Variant::Base, Variant::Memory, Variant::Math] {
                gpu.upload_into(&poison, &mut a_d)?;
                let stats = time_reps(gpu, run.reps, || launch(gpu, variant, fast_math, &mut a_d, &b_d, 1.0))?;
                times.push(stats.median_ms * 1e3);
                let got = gpu.download(&a_d)?;
                let label = format!("{variant:?}{}", if fast_math { " (fast math)" } else { "" }).to_lowercase();
                let sin = if fast_math { FAST_SIN } else { ACCURATE_SIN };
                checks.push(match variant {
                    Variant::Base => Check::compare(&label, &got, &expected, sin),
                    Variant::Memory => Check::compare(&label, &got, &b, Tolerance::EXACT),
                    // The store never happens, so the poison must still be there.
                    Variant::Math => Check::condition(&format!("{label}: no store"), got.iter().all(|v| v.is_nan())),
                });
            }
            rows.push((name, build, times));
        }
        let reps = run.reps;
        println!(" {n} floats, {THREADS_PER_BLOCK} threads per block; median gputime of {reps} runs (us)");
        println!("   {:<24} {:>10} {:>10} {:>10}", "build", "base", "memory", "math");
        for (_, build, t) in &rows {
            println!("   {build:<24} {:>10.3} {:>10.3} {:>10.3}", t[0], t[1], t[2]);
        }
        for (name, _, t) in &rows {
            let verdict = if t[2] > 0.8 * t[0] {
                "math-bound"
            } else if t[1] > 0.8 * t[0] {
                "memory-bound"
            } else {
                "latency-bound (little overlap of math and memory)"
            };
            let (memory, math) = (100.0 * t[1] / t[0], 100.0 * t[2] / t[0]);
            println!("   {name}: memory is {memory:.0}% and math {math:.0}% of base: {verdict}");
        }
        Ok(Outcome { checks })
    }
}
