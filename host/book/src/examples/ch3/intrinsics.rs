//! ch3-intrinsics: fast math against accurate math, and fused against separate multiply-add
//! (book §3.6.1 and §3.6.2, `-Mcuda=fastmath` and `-Mcuda=nofma`).
//!
//! Four kernels over the same inputs, each timed and measured against an f64 reference: the sum
//! of `sin(k x) exp(-k x / 8) / (k + x^2)` with `libm`'s functions and IEEE division or with
//! `__sinf`/`__expf`/`__fdividef`, and a degree-128 polynomial by Horner's rule with `fma.rn` or
//! with `mul.rn` + `add.rn`. The PTX lines that differ are printed.
use super::print_ptx_lines;
use crate::examples::{Example, Options, Outcome, SIMULATOR_SIZE, Size};
use crate::reference::ch3::intrinsics as reference;
use book_kernels::ch3::intrinsics::{HornerFused, HornerUnfused, IntrinsicsAccurate, IntrinsicsArgs, IntrinsicsFast};
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "ch3-intrinsics",
    description: "__sinf/__expf/__fdividef vs libm, fma.rn vs mul.rn+add.rn: PTX, max error and time per variant (book 3.6.1-3.6.2)",
    size: Some(Size {
        unit: "elements (one evaluation each per kernel)",
        gpu: N,
        simulator: SIMULATOR_N,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: true,
    flags: &[],
    run,
};

pub const N: usize = 1 << 24;
pub const THREADS_PER_BLOCK: u32 = 256;
/// Elements on the simulator, which evaluates libm's functions per thread in software.
pub const SIMULATOR_N: usize = SIMULATOR_SIZE / 16;

/// The run's peak: `x` and `y` on the device; on the host `x`, the two f64 yardsticks, a
/// download and the variant's reference (f32, or the download widened to f64); `None` on
/// overflow.
pub fn memory(_: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    Footprint::NONE
        .device::<f32>(2, n)?
        .host::<f32>(2, n)?
        .host::<f64>(3, n)
}

/// The accurate kernel against the same f32 computation on the CPU: the same `libm` code, but
/// the GPU contracts its internal multiply-adds into FMAs, so each of the 8 terms (at most
/// e in magnitude) may differ by a few ulps: 32 f32 epsilons absolute or relative.
pub const ACCURATE: Tolerance = Tolerance {
    abs: 32.0 * f32::EPSILON as f64,
    rel: 32.0 * f32::EPSILON as f64,
};
/// The fast kernel against f64. `__sinf` is within 2^-21.41 absolute on [-pi, pi] and worse
/// outside (CUDA C++ Programming Guide, intrinsic functions): its argument is scaled by 1/(2 pi)
/// in f32 first, which at |k x| <= 8 adds a phase error of about 8 * 2^-24. Each term multiplies
/// that by an exponential of at most e; `__expf` adds about 2^-21 relative, `__fdividef` 2 ulps.
/// Eight terms: about 2.5e-5 in the worst case; 1e-4 leaves room, and the accurate kernel's errors
/// are a hundred times smaller.
pub const FAST: Tolerance = Tolerance { abs: 1e-4, rel: 0.0 };

/// The four kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    Accurate,
    Fast,
    HornerFused,
    HornerUnfused,
}

impl Variant {
    pub const ALL: [Variant; 4] = [
        Variant::Accurate,
        Variant::Fast,
        Variant::HornerFused,
        Variant::HornerUnfused,
    ];

    pub fn kernel(self) -> &'static str {
        match self {
            Variant::Accurate => "intrinsics_accurate",
            Variant::Fast => "intrinsics_fast",
            Variant::HornerFused => "horner_fused",
            Variant::HornerUnfused => "horner_unfused",
        }
    }

    /// The PTX instructions that tell this variant from its partner.
    pub fn ptx_patterns(self) -> &'static [&'static str] {
        match self {
            Variant::Accurate => &["div.rn.f32", "sin.approx", "ex2.approx"],
            Variant::Fast => &["div.approx", "sin.approx", "ex2.approx"],
            Variant::HornerFused => &["fma.rn.f32", "mul.rn.f32", "add.rn.f32"],
            Variant::HornerUnfused => &["fma.rn.f32", "mul.rn.f32", "add.rn.f32"],
        }
    }
}

/// `y = f(x)` with `variant`.
pub fn launch(gpu: &Gpu, variant: Variant, y_d: &mut DeviceBuffer<f32>, x_d: &DeviceBuffer<f32>) -> Result<()> {
    let shape = LaunchShape::cover_1d(y_d.len(), THREADS_PER_BLOCK)?;
    let args = IntrinsicsArgs {
        y: y_d.view_mut(),
        x: x_d.view(),
    };
    match variant {
        Variant::Accurate => crate::kernels(gpu)?.launch(IntrinsicsAccurate, shape, args),
        Variant::Fast => crate::kernels(gpu)?.launch(IntrinsicsFast, shape, args),
        Variant::HornerFused => crate::kernels(gpu)?.launch(HornerFused, shape, args),
        Variant::HornerUnfused => crate::kernels(gpu)?.launch(HornerUnfused, shape, args),
    }
}

/// Inputs in [-1, 1], 2001 distinct values.
pub fn inputs(n: usize) -> Result<Vec<f32>> {
    try_from_fn(n, |i| (i % 2001) as f32 / 1000.0 - 1.0)
}

/// Largest `|got - exact|`.
fn max_abs_error(got: &[f32], exact: &[f64]) -> f64 {
    got.iter()
        .zip(exact)
        .map(|(&g, &e)| (g as f64 - e).abs())
        .fold(0.0, f64::max)
}

pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(gpu.pick(N, SIMULATOR_N))?;
    let x = inputs(n)?;
    let x_d = gpu.upload(&x)?;
    let mut y_d = gpu.zeros::<f32>(n)?;
    let (terms_exact, horner_exact) = (reference::terms_f64(&x)?, reference::horner_f64(&x)?);
    let mut checks = Vec::new();
    println!(
        " {n} elements in [-1, 1], {THREADS_PER_BLOCK} threads per block, median of {} runs ({}):",
        options.reps,
        gpu.timing_label()
    );
    println!("   {:<22} {:>12} {:>22}", "kernel", "time (ms)", "max |error| vs f64");
    for variant in Variant::ALL {
        gpu.upload_into(&try_vec(n, f32::NAN)?, &mut y_d)?;
        let stats = time_reps(gpu, options.reps, || launch(gpu, variant, &mut y_d, &x_d))?;
        let y = gpu.download(&y_d)?;
        let exact = match variant {
            Variant::Accurate | Variant::Fast => &terms_exact,
            Variant::HornerFused | Variant::HornerUnfused => &horner_exact,
        };
        println!(
            "   {:<22} {:>12.4} {:>22.3e}",
            variant.kernel(),
            stats.median_ms,
            max_abs_error(&y, exact)
        );
        checks.push(match variant {
            Variant::Accurate => Check::compare(variant.kernel(), &y, &reference::terms_f32(&x)?, ACCURATE),
            Variant::Fast => {
                let y64 = try_from_fn(n, |i| y[i] as f64)?;
                Check::compare(variant.kernel(), &y64, exact, FAST)
            }
            // Explicit roundings on both sides, in the same order: bit-identical.
            Variant::HornerFused => Check::compare(
                variant.kernel(),
                &y,
                &reference::horner_f32(&x, true)?,
                Tolerance::EXACT,
            ),
            Variant::HornerUnfused => Check::compare(
                variant.kernel(),
                &y,
                &reference::horner_f32(&x, false)?,
                Tolerance::EXACT,
            ),
        });
    }
    for variant in Variant::ALL {
        print_ptx_lines(gpu, variant.kernel(), variant.ptx_patterns(), 3);
    }
    Ok(Outcome { checks })
}
