//! Tests of ch5-bs-european-mc (book §5.5): the closed form and Hastings' CDF, the accurate
//! exponential, the summation bounds, the GPU against the CPU over the same normals, and the
//! book's printed runs. Included by `tests/ferrocuda-tests/ch5.rs`.
use crate::common::{TestResult, ensure, fail, passes_with, run_args};
use ferrocuda::Gpu;
use ferrocuda::device::elementary::Exp;
use ferrocuda::random::Generator;
use ferrocuda_book::examples::ch5::bs_european_mc::{self as bs_example, BOOK_RUNS, Bounds, McReal, wide};
use ferrocuda_book::reference::ch5::bs_european_mc::{self as bs, BOOK_OPTION, EuropeanOption};

/// Hastings' CDF within its published error (7.5e-8, Abramowitz & Stegun 26.2.17) of the exact
/// one everywhere, and the option values with the two within 1e-6 (the spec: 4.1e-7 apart).
pub fn ch5_bs_european_mc_hastings_vs_exact() -> TestResult {
    let worst = (-80_000..=80_000)
        .map(|i| i as f64 * 1e-4)
        .map(|d| (bs::cnd_hastings(d) - bs::cnd_exact(d)).abs())
        .fold(0.0, f64::max);
    ensure(worst <= bs::HASTINGS_MAX_ERROR, || {
        format!("Hastings' CDF is {worst:e} off the exact one")
    })?;
    let hastings = bs::black_scholes(&BOOK_OPTION, bs::cnd_hastings);
    let exact = bs::black_scholes(&BOOK_OPTION, bs::cnd_exact);
    ensure(
        (hastings.put - exact.put).abs() <= 1e-6 && (hastings.call - exact.call).abs() <= 1e-6,
        || format!("Hastings {hastings:?}, exact {exact:?}"),
    )?;
    // The spec's exact-CDF put for the book's option.
    ensure((exact.put - 0.1280219834864456).abs() <= 1e-15, || {
        format!("exact put {:.16}", exact.put)
    })
}

/// The closed form against known values: the textbook at-the-money option (S = K = 100, r = 5%,
/// sigma = 20%, T = 1: call 10.450583572185565, put 5.573526022256971), put-call parity over a
/// range of options, and the intrinsic values at and past expiry.
pub fn ch5_bs_european_mc_closed_form_identities() -> TestResult {
    let at_the_money = EuropeanOption {
        s: 100.0,
        e: 100.0,
        sigma: 0.2,
        r: 0.05,
        t: 1.0,
    };
    let exact = bs::black_scholes(&at_the_money, bs::cnd_exact);
    ensure(
        (exact.call - 10.450583572185565).abs() < 1e-12 && (exact.put - 5.573526022256971).abs() < 1e-12,
        || format!("at the money: {exact:?}"),
    )?;
    // Hastings' error on a price is at most 7.5e-8 (S + K).
    let hastings = bs::black_scholes(&at_the_money, bs::cnd_hastings);
    ensure(
        (hastings.call - exact.call).abs() <= bs::HASTINGS_MAX_ERROR * 200.0,
        || format!("Hastings at the money: {hastings:?}"),
    )?;
    for (s, e, sigma, r, t) in [
        (5.0, 4.0, 0.3, 0.05, 1.0),
        (42.0, 40.0, 0.2, 0.1, 0.5),
        (1.0, 3.0, 0.6, 0.0, 2.0),
    ] {
        let option = EuropeanOption { s, e, sigma, r, t };
        for cnd in [bs::cnd_hastings as fn(f64) -> f64, bs::cnd_exact] {
            let p = bs::black_scholes(&option, cnd);
            let parity = p.call - p.put - (s - e * (-r * t).exp());
            ensure(parity.abs() < 1e-12 && p.put >= 0.0 && p.call >= 0.0, || {
                format!("{option:?}: {p:?}, parity off by {parity:e}")
            })?;
        }
    }
    for (s, t, put, call) in [(5.0, 0.0, 0.0, 1.0), (3.0, 0.0, 1.0, 0.0), (5.0, -1.0, 0.0, 1.0)] {
        let option = EuropeanOption { s, t, ..BOOK_OPTION };
        let p = bs::black_scholes(&option, bs::cnd_hastings);
        ensure(p.put == put && p.call == call, || {
            format!("S = {s}, T = {t}: {p:?}, intrinsic put {put}, call {call}")
        })?;
    }
    Ok(())
}

/// How many ulps of `T` apart two nonnegative values of `T` are: the distance of their bit
/// patterns, which count up with the value (widening to f64 and back is exact).
fn ulps_apart<T: Exp>(a: T, b: T) -> u64 {
    let bits = |v: T| {
        if T::NAME == "f32" {
            u64::from((v.to_f64() as f32).to_bits())
        } else {
            v.to_f64().to_bits()
        }
    };
    bits(a).abs_diff(bits(b))
}

/// The kernels' exponential within 1 ulp of `std`'s (glibc's, itself within 1 ulp; for `f32`
/// the f64 value rounded) over the whole range, subnormal results included, and exact at the
/// special values.
fn exp_accuracy<T: Exp>(reference: fn(f64) -> f64, lowest: f64, highest: f64) -> TestResult {
    let steps = 400_000;
    let mut worst = (0, 0.0);
    for i in 0..=steps {
        let x = T::from_f64(lowest + (highest - lowest) * i as f64 / steps as f64);
        let ulps = ulps_apart(Exp::exp(x), T::from_f64(reference(x.to_f64())));
        if ulps > worst.0 {
            worst = (ulps, x.to_f64());
        }
    }
    ensure(worst.0 <= 1, || {
        format!("{}: exp is {} ulps off at {}", T::NAME, worst.0, worst.1)
    })?;
    let special = [
        (0.0, 1.0),
        (f64::NEG_INFINITY, 0.0),
        (f64::INFINITY, f64::INFINITY),
        (2.0 * highest, f64::INFINITY),
        (2.0 * lowest, 0.0),
    ];
    for (x, expected) in special {
        let got = Exp::exp(T::from_f64(x)).to_f64();
        ensure(got == expected, || format!("{}: exp({x}) = {got}", T::NAME))?;
    }
    ensure(Exp::exp(T::from_f64(f64::NAN)).to_f64().is_nan(), || {
        format!("{}: exp(NaN) is not NaN", T::NAME)
    })
}

pub fn ch5_bs_european_mc_exp_accuracy() -> TestResult {
    // From the smallest subnormal result to the largest finite one.
    exp_accuracy::<f32>(|x| (x as f32 as f64).exp(), -103.0, 88.7)?;
    exp_accuracy::<f64>(f64::exp, -744.0, 709.7)
}

/// The book's printed runs are transcribed consistently: each interval is centred within two
/// half-widths of the closed form, its half-width is 1.96 sd / sqrt(N) for the spec's sample
/// deviations (0.3125 put, 1.3848 call, within 1%), and the DP 10^6 put mean is its midpoint.
pub fn ch5_bs_european_mc_book_values() -> TestResult {
    let closed_form = bs::black_scholes(&BOOK_OPTION, bs::cnd_hastings);
    for run in &BOOK_RUNS {
        let intervals = [(run.ci_put, closed_form.put, 0.3125)]
            .into_iter()
            .chain(run.ci_call.map(|ci| (ci, closed_form.call, 1.3848)));
        for ([low, high], price, sd) in intervals {
            let (mid, half_width) = ((low + high) / 2.0, (high - low) / 2.0);
            let expected = 1.96 * sd / (run.n as f64).sqrt();
            ensure(
                (mid - price).abs() <= 2.0 * half_width && (half_width / expected - 1.0).abs() < 0.01,
                || format!("{:?} {}: [{low}, {high}] vs {price}", run.precision, run.n),
            )?;
        }
    }
    let dp = BOOK_RUNS[1];
    let (put, _) = dp.means.ok_or("the DP 10^6 run has the book's means")?;
    ensure((put - (dp.ci_put[0] + dp.ci_put[1]) / 2.0).abs() < 1e-15, || {
        "DP 10^6: the put mean is not its interval's midpoint".into()
    })
}

/// The agreement bounds are tight enough to catch a wrong sum: a relative error of 1e-4 in a
/// mean fails them at 10^6 samples in f32 (and 1e-12 in f64), while they hold the GPU's sums.
pub fn ch5_bs_european_mc_bounds_catch_errors() -> TestResult {
    fn caught<T: McReal>(relative: f64) -> bool {
        let n = 1_000_000;
        let normals: Vec<T> = (0..n)
            .map(|i| T::from_f64(((i * 7919 % 10007) as f64 / 10007.0 - 0.5) * 6.0))
            .collect();
        let Ok(cpu) = bs::monte_carlo(BOOK_OPTION.model::<T>(), &normals) else {
            return false;
        };
        let cpu = cpu.stats;
        // An H100's launch: 132 SMs x 16 blocks x 128 threads.
        let bounds = Bounds::new(&cpu, n, 132 * 16 * 128);
        let wrong = wide(cpu.mean_put) * (1.0 + relative);
        (wrong - wide(cpu.mean_put)).abs() > bounds.mean[0]
    }
    ensure(caught::<f32>(1e-4) && caught::<f64>(1e-12), || {
        "the bounds let a 1e-4 (f32) or 1e-12 (f64) error in a mean pass".into()
    })
}

/// `--book` needs cuRAND: one clear error on the simulator.
pub fn ch5_bs_european_mc_book_needs_curand() -> TestResult {
    match run_args(&Gpu::simulator(), "ch5-bs-european-mc", &["--book"]) {
        Err(e) if e.to_string().contains("cuRAND") => Ok(()),
        Err(e) => Err(format!("--book on the simulator: {e}")),
        Ok(_) => Err("--book ran on the simulator".into()),
    }
}

/// The GPU's payoffs (bit for bit) and statistics (within the summation bounds) against the CPU
/// over the same normals, at sizes that break assumptions: one sample (its deviation is 0/0 on
/// both), fewer than a warp, one past a warp, one short of 8 blocks of 128, and a large odd count
/// (cuRAND makes normals in pairs).
fn bs_gpu_matches_cpu<T: McReal>(gpu: &Gpu) -> TestResult {
    let generator = Generator::default_for(gpu);
    let model = BOOK_OPTION.model::<T>();
    for n in [1, 2, 33, 1023, 100_003] {
        let normals_d = bs_example::normals::<T>(gpu, generator, n as u64, n).map_err(fail)?;
        let mc = bs_example::monte_carlo(gpu, &normals_d, n, model).map_err(fail)?;
        let normals = gpu.download(&normals_d).map_err(fail)?;
        let cpu = bs::monte_carlo(model, &normals[..n]).map_err(fail)?;
        for check in bs_example::agreement_checks(gpu, &mc, &cpu).map_err(fail)? {
            ensure(check.passed(), || format!("{} n = {n}: {check}", T::NAME))?;
        }
        ensure(
            n > 1 || (wide(mc.stats.sd_put).is_nan() && wide(cpu.stats.sd_put).is_nan()),
            || "one sample: the deviation must be 0/0 on both".into(),
        )?;
    }
    Ok(())
}

pub fn ch5_bs_european_mc_gpu_vs_cpu_awkward_sizes(gpu: &Gpu) -> TestResult {
    bs_gpu_matches_cpu::<f32>(gpu)?;
    bs_gpu_matches_cpu::<f64>(gpu)
}

pub fn ch5_bs_european_mc_program(gpu: &Gpu) -> TestResult {
    for precision in ["f32", "f64"] {
        let args = ["--size", "100003", "--precision", precision, "--generator", "philox"];
        passes_with(gpu, "ch5-bs-european-mc", &args)?;
    }
    Ok(())
}

/// The book's four runs against its printed intervals (cuRAND).
pub fn ch5_bs_european_mc_book(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch5-bs-european-mc", &["--book"])
}

/// The book's suggested `CURAND_ORDERING_PSEUDO_SEEDED` (CUDA): another stream than the default
/// ordering's for the same seed, of uniforms in (0, 1], and the Black-Scholes program with it
/// passes its checks (GPU against CPU over the same normals).
pub fn ch5_bs_european_mc_seeded_ordering(gpu: &Gpu) -> TestResult {
    let mut streams = Vec::new();
    for generator in [Generator::Curand, Generator::CurandSeeded] {
        let mut x_d = gpu.zeros::<f32>(1024).map_err(fail)?;
        generator.fill_uniform(gpu, 1234, &mut x_d).map_err(fail)?;
        let x = gpu.download(&x_d).map_err(fail)?;
        ensure(x.iter().all(|&v| v > 0.0 && v <= 1.0), || {
            format!("{generator:?}: a uniform outside (0, 1]")
        })?;
        streams.push(x);
    }
    ensure(streams[0] != streams[1], || {
        "the seeded ordering gave the default ordering's stream".into()
    })?;
    let args = ["--size", "100000", "--generator", "curand-seeded"];
    passes_with(gpu, "ch5-bs-european-mc", &args)
}
