//! ch3-intrinsics: fast math against accurate math, and fused against separate multiply-add
//! (book §3.6.1 and §3.6.2, `-Mcuda=fastmath` and `-Mcuda=nofma`).
//!
//! Four kernels over the same inputs, each timed and measured against an f64 reference: the sum
//! of `sin(k x) exp(-k x / 8) / (k + x^2)` with `libm`'s functions and IEEE division or with
//! `__sinf`/`__expf`/`__fdividef`, and a degree-128 polynomial by Horner's rule with `fma.rn` or
//! with `mul.rn` + `add.rn`. The PTX lines that differ are printed.
//!
//! Then the rest of §3.6.1: directed rounding (`__fadd_rn/rz/ru/rd`, `__dadd_*`, and the
//! products), checked against the exact sums and products; flush to zero on subnormal inputs
//! (`-Mcuda=flushz`); and `sincos`, one range reduction for both functions, timed and compared
//! against `sinf` and `cosf` called apart.
use super::print_ptx_lines;
use crate::example::{Example, NoOptions, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference::ch3::intrinsics::{self as reference, RoundingReal};
use book_kernels::ch3::intrinsics::{
    DirectedRounding, FLUSH_RESULTS, FlushArgs, FlushToZero, HornerFused, HornerUnfused, IntrinsicsAccurate,
    IntrinsicsArgs, IntrinsicsFast, ROUNDINGS, RoundingArgs, SinCosSeparate, SincosArgs, SincosOneReduction,
};
use ferrocuda::Kernel;
use ferrocuda::device::real::Real;
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Element, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

pub const N: usize = 1 << 24;
pub const THREADS_PER_BLOCK: u32 = 256;
/// Elements on the simulator, which evaluates libm's functions per thread in software.
pub const SIMULATOR_N: usize = SIMULATOR_SIZE / 16;

/// ch3-intrinsics.
pub struct Ch3Intrinsics;

impl Example for Ch3Intrinsics {
    const ID: &'static str = "ch3-intrinsics";
    const DESCRIPTION: &'static str = "__sinf/__expf/__fdividef vs libm, fma.rn vs mul.rn+add.rn: PTX, max error and time per variant (book 3.6.1-3.6.2)";
    const SIZE: Option<Size> = Some(Size::new("elements (one evaluation each per kernel)", N, SIMULATOR_N));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak: `x` and `y` on the device, then `x`, `sin` and `cos` for the sincos
    /// kernels; on the host `x`, the two f64 yardsticks, a download and the variant's reference
    /// (f32, or the download widened to f64), then `x` and two downloads from each sincos
    /// kernel; `None` on overflow. The rounding and flush sections use [`ROUNDING_PAIRS`] pairs,
    /// a fixed few MiB.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE
            .device::<f32>(3, run.size)?
            .host::<f32>(5, run.size)?
            .host::<f64>(3, run.size)
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let x = inputs(n)?;
        let x_d = gpu.upload(&x)?;
        let mut y_d = gpu.zeros::<f32>(n)?;
        let (terms_exact, horner_exact) = (reference::terms_f64(&x)?, reference::horner_f64(&x)?);
        let mut checks = Vec::new();
        println!(
            " {n} elements in [-1, 1], {THREADS_PER_BLOCK} threads per block, median of {} runs ({}):",
            run.reps,
            gpu.timing_label()
        );
        println!("   {:<22} {:>12} {:>22}", "kernel", "time (ms)", "max |error| vs f64");
        for variant in Variant::ALL {
            gpu.upload_into(&try_vec(n, f32::NAN)?, &mut y_d)?;
            let stats = time_reps(gpu, run.reps, || launch(gpu, variant, &mut y_d, &x_d))?;
            let y = gpu.download(&y_d)?;
            let kernel = variant.kernel();
            let exact = match variant {
                Variant::Accurate | Variant::Fast => &terms_exact,
                Variant::HornerFused | Variant::HornerUnfused => &horner_exact,
            };
            let error = max_abs_error(&y, exact);
            println!("   {kernel:<22} {:>12.4} {error:>22.3e}", stats.median_ms);
            checks.push(match variant {
                Variant::Accurate => Check::compare(kernel, &y, &reference::terms_f32(&x)?, ACCURATE),
                Variant::Fast => Check::compare(kernel, &try_from_fn(n, |i| y[i] as f64)?, exact, FAST),
                // Explicit roundings on both sides, in the same order: bit-identical.
                fused => {
                    let expected = reference::horner_f32(&x, fused == Variant::HornerFused)?;
                    Check::compare(kernel, &y, &expected, Tolerance::EXACT)
                }
            });
        }
        for variant in Variant::ALL {
            print_ptx_lines(gpu, variant.kernel(), variant.ptx_patterns(), 3);
        }
        checks.extend(directed_rounding_section::<f32>(gpu)?);
        checks.extend(directed_rounding_section::<f64>(gpu)?);
        checks.extend(flush_section(gpu)?);
        // Freed first: the sincos section's arrays take their place.
        drop((x, x_d, y_d, terms_exact, horner_exact));
        checks.extend(sincos_section(gpu, run.reps, n)?);
        Ok(Outcome { checks })
    }
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
        [
            "intrinsics_accurate",
            "intrinsics_fast",
            "horner_fused",
            "horner_unfused",
        ][self as usize]
    }

    /// The PTX instructions that tell this variant from its partner.
    pub fn ptx_patterns(self) -> &'static [&'static str] {
        match self {
            Variant::Accurate => &["div.rn.f32", "sin.approx", "ex2.approx"],
            Variant::Fast => &["div.approx", "sin.approx", "ex2.approx"],
            Variant::HornerFused | Variant::HornerUnfused => &["fma.rn.f32", "mul.rn.f32", "add.rn.f32"],
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
    let kernels = crate::kernels(gpu)?;
    match variant {
        Variant::Accurate => kernels.launch(IntrinsicsAccurate, shape, args),
        Variant::Fast => kernels.launch(IntrinsicsFast, shape, args),
        Variant::HornerFused => kernels.launch(HornerFused, shape, args),
        Variant::HornerUnfused => kernels.launch(HornerUnfused, shape, args),
    }
}

/// Inputs in [-1, 1], 2001 distinct values.
pub fn inputs(n: usize) -> Result<Vec<f32>> {
    try_from_fn(n, |i| (i % 2001) as f32 / 1000.0 - 1.0)
}

/// Largest `|got - exact|`.
fn max_abs_error(got: &[f32], exact: &[f64]) -> f64 {
    let errors = got.iter().zip(exact).map(|(&g, &e)| (g as f64 - e).abs());
    errors.fold(0.0, f64::max)
}

/// Pairs in each precision's directed-rounding table.
pub const ROUNDING_PAIRS: usize = 4096;

/// `n` pairs `(a, b)` of magnitudes between 1/37 and 77 (so that an `f32` sum is exact in
/// `f64`), mostly with full significands (quotients by 37 and 13), every eighth rounded to an
/// integer so that some sums and products are exact.
pub fn rounding_inputs<T: Real>(n: usize) -> Result<(Vec<T>, Vec<T>)> {
    let value = |i: usize, prime: usize, modulus: usize, divisor: f64| {
        let v = ((i * prime) % modulus) as f64 - (modulus / 2) as f64;
        let v = if i.is_multiple_of(8) { v } else { v / divisor };
        T::from_f64(v)
    };
    Ok((
        try_from_fn(n, |i| value(i, 7919, 2001, 37.0))?,
        try_from_fn(n, |i| value(i, 104_729, 1999, 13.0))?,
    ))
}

/// `out = [a + b in rn, rz, ru, rd, a * b in rn, rz, ru, rd]` per pair.
pub fn directed_rounding<T: Element>(
    gpu: &Gpu,
    out_d: &mut DeviceBuffer<T>,
    a_d: &DeviceBuffer<T>,
    b_d: &DeviceBuffer<T>,
) -> Result<()>
where
    DirectedRounding: for<'k> Kernel<RoundingArgs<'k, T>>,
{
    let shape = LaunchShape::cover_1d(a_d.len(), THREADS_PER_BLOCK)?;
    let args = RoundingArgs {
        out: out_d.view_mut(),
        a: a_d.view(),
        b: b_d.view(),
    };
    crate::kernels(gpu)?.launch(DirectedRounding, shape, args)
}

/// Runs [`directed_rounding`] on [`ROUNDING_PAIRS`] pairs, prints three of them and the tally,
/// and checks every result against the exact one.
fn directed_rounding_section<T>(gpu: &Gpu) -> Result<Vec<Check>>
where
    T: Real + RoundingReal + Element + std::fmt::LowerExp,
    DirectedRounding: for<'k> Kernel<RoundingArgs<'k, T>>,
{
    let (a, b) = rounding_inputs::<T>(ROUNDING_PAIRS)?;
    let mut out_d = gpu.upload(&try_vec(ROUNDINGS * a.len(), T::from_f64(f64::NAN))?)?;
    directed_rounding(gpu, &mut out_d, &gpu.upload(&a)?, &gpu.upload(&b)?)?;
    let out = gpu.download(&out_d)?;
    let digits = if T::NAME == "f32" { 8 } else { 16 };
    println!(" directed rounding in {} (rn, rz, ru, rd), {} pairs:", T::NAME, a.len());
    for i in [1, 2, 3] {
        for (op, results) in [("+", &out[ROUNDINGS * i..][..4]), ("*", &out[ROUNDINGS * i + 4..][..4])] {
            let row: Vec<String> = results.iter().map(|r| format!("{r:+.digits$e}")).collect();
            println!("   {:+.digits$e} {op} {:+.digits$e}: {}", a[i], b[i], row.join("  "));
        }
    }
    let tally = reference::check_roundings(&a, &b, &out);
    println!(
        "   rd <= exact <= ru, one ulp apart when inexact ({} results), equal when exact ({}); rz toward zero: {} violations",
        tally.inexact, tally.exact, tally.violations
    );
    Ok(vec![Check::condition(
        &format!("directed_rounding_{}", T::NAME),
        tally.violations == 0 && tally.exact > 0 && tally.inexact > 0,
    )])
}

/// Pairs for the flush-to-zero table: a subnormal plus zero, two subnormals, a normal plus a
/// subnormal, normals whose difference is subnormal, a product that underflows to a subnormal,
/// and normals.
pub const FLUSH_PAIRS: [(f32, f32); 6] = [
    (1.0e-40, 0.0),
    (3.0e-39, 4.0e-39),
    (1.0, 1.0e-40),
    (f32::MIN_POSITIVE, -0.75 * f32::MIN_POSITIVE),
    (f32::MIN_POSITIVE, 0.25),
    (1.5, 2.0),
];

/// `out = [a + b, a + b flushed, a * b, a * b flushed]` per pair.
pub fn flush_to_zero(
    gpu: &Gpu,
    out_d: &mut DeviceBuffer<f32>,
    a_d: &DeviceBuffer<f32>,
    b_d: &DeviceBuffer<f32>,
) -> Result<()> {
    let shape = LaunchShape::cover_1d(a_d.len(), THREADS_PER_BLOCK)?;
    let args = FlushArgs {
        out: out_d.view_mut(),
        a: a_d.view(),
        b: b_d.view(),
    };
    crate::kernels(gpu)?.launch(FlushToZero, shape, args)
}

/// Runs [`flush_to_zero`] on [`FLUSH_PAIRS`] and prints the table.
fn flush_section(gpu: &Gpu) -> Result<Vec<Check>> {
    let (a, b): (Vec<f32>, Vec<f32>) = FLUSH_PAIRS.iter().copied().unzip();
    let mut out_d = gpu.upload(&vec![f32::NAN; FLUSH_RESULTS * a.len()])?;
    flush_to_zero(gpu, &mut out_d, &gpu.upload(&a)?, &gpu.upload(&b)?)?;
    let out = gpu.download(&out_d)?;
    println!(" flush to zero (add.rn.f32 vs add.rn.ftz.f32, mul likewise; the book's -Mcuda=flushz):");
    println!(
        "   {:>15} {:>15} {:>15} {:>15} {:>15} {:>15}",
        "a", "b", "a+b", "a+b ftz", "a*b", "a*b ftz"
    );
    let mut expected = Vec::new();
    for ((&a, &b), results) in a.iter().zip(&b).zip(out.chunks_exact(FLUSH_RESULTS)) {
        let row: Vec<String> = results.iter().map(|r| format!("{r:>15.6e}")).collect();
        println!("   {a:>15.6e} {b:>15.6e} {}", row.join(" "));
        expected.extend(reference::flush_to_zero(a, b));
    }
    // The IEEE path keeps subnormals: without one among its results the table shows nothing.
    let rows = || out.chunks_exact(FLUSH_RESULTS);
    let kept = rows().any(|r| r[0].is_subnormal() || r[2].is_subnormal());
    let flushed = rows().all(|r| !r[1].is_subnormal() && !r[3].is_subnormal());
    Ok(vec![
        Check::compare("flush_to_zero", &out, &expected, Tolerance::EXACT),
        Check::condition("IEEE keeps subnormals, .ftz flushes them", kept && flushed),
    ])
}

/// Inputs of the sincos kernels: `x` in [-100, 100], many quadrants.
pub fn sincos_inputs(n: usize) -> Result<Vec<f32>> {
    try_from_fn(n, |i| (i % 20_011) as f32 * 0.01 - 100.0)
}

/// The two ways to `sin(x)` and `cos(x)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SinCos {
    /// `sincos`: one range reduction for both.
    OneReduction,
    /// `sinf(x)` and `cosf(x)`, each reducing `x` itself.
    Separate,
}

impl SinCos {
    pub const ALL: [SinCos; 2] = [SinCos::OneReduction, SinCos::Separate];

    /// The PTX symbol.
    pub fn kernel(self) -> &'static str {
        ["sincos_one_reduction", "sin_cos_separate"][self as usize]
    }
}

/// `s = sin(x)`, `c = cos(x)` with `variant`.
pub fn sincos(
    gpu: &Gpu,
    variant: SinCos,
    s_d: &mut DeviceBuffer<f32>,
    c_d: &mut DeviceBuffer<f32>,
    x_d: &DeviceBuffer<f32>,
) -> Result<()> {
    let shape = LaunchShape::cover_1d(x_d.len(), THREADS_PER_BLOCK)?;
    let args = SincosArgs {
        s: s_d.view_mut(),
        c: c_d.view_mut(),
        x: x_d.view(),
    };
    match variant {
        SinCos::OneReduction => crate::kernels(gpu)?.launch(SincosOneReduction, shape, args),
        SinCos::Separate => crate::kernels(gpu)?.launch(SinCosSeparate, shape, args),
    }
}

/// Ulps between two finite `f32`s of one sign (`u32::MAX` across signs, 0 for equal zeros).
pub fn ulps_apart(a: f32, b: f32) -> u32 {
    if a == b {
        0
    } else if a.is_sign_negative() != b.is_sign_negative() {
        u32::MAX
    } else {
        a.to_bits().abs_diff(b.to_bits())
    }
}

/// The largest [`ulps_apart`] over two arrays.
fn max_ulps(got: &[f32], want: impl Fn(usize) -> f32) -> u32 {
    (0..got.len()).map(|i| ulps_apart(got[i], want(i))).max().unwrap_or(0)
}

/// Most ulps `sincos` may differ from the correctly rounded value (its documented bound).
pub const SINCOS_ULPS: u32 = 1;
/// Most ulps `libm`'s `sinf`/`cosf` may differ from it: 1 on the CPU; on the GPU its
/// multiply-adds are contracted into FMAs, which moves a few results by another ulp.
pub const SEPARATE_ULPS: u32 = 2;

/// Times both ways over `n` arguments, prints the times and the ulp distances, and checks both
/// against `f64`.
fn sincos_section(gpu: &Gpu, reps: usize, n: usize) -> Result<Vec<Check>> {
    let x = sincos_inputs(n)?;
    let x_d = gpu.upload(&x)?;
    let (mut s_d, mut c_d) = (gpu.zeros::<f32>(n)?, gpu.zeros::<f32>(n)?);
    let timing = gpu.timing_label();
    println!(" sincos: {n} arguments in [-100, 100], median of {reps} runs ({timing}):");
    println!(
        "   {:<22} {:>12} {:>26}",
        "kernel", "time (ms)", "max ulps from f64 (sin, cos)"
    );
    let (mut results, mut checks) = (Vec::new(), Vec::new());
    for variant in SinCos::ALL {
        let stats = time_reps(gpu, reps, || sincos(gpu, variant, &mut s_d, &mut c_d, &x_d))?;
        let (s, c) = (gpu.download(&s_d)?, gpu.download(&c_d)?);
        let ulps_sin = max_ulps(&s, |i| (x[i] as f64).sin() as f32);
        let ulps_cos = max_ulps(&c, |i| (x[i] as f64).cos() as f32);
        let kernel = variant.kernel();
        println!("   {kernel:<22} {:>12.4} {ulps_sin:>17} {ulps_cos:>8}", stats.median_ms);
        let bound = match variant {
            SinCos::OneReduction => SINCOS_ULPS,
            SinCos::Separate => SEPARATE_ULPS,
        };
        checks.push(Check::condition(kernel, ulps_sin.max(ulps_cos) <= bound));
        results.push((s, c));
    }
    let apart_sin = max_ulps(&results[0].0, |i| results[1].0[i]);
    let apart_cos = max_ulps(&results[0].1, |i| results[1].1[i]);
    println!("   sincos vs sinf, cosf apart: at most {apart_sin} ulps (sin), {apart_cos} (cos)");
    checks.push(Check::condition(
        "sincos agrees with sinf, cosf",
        apart_sin.max(apart_cos) <= SINCOS_ULPS + SEPARATE_ULPS,
    ));
    Ok(checks)
}
