//! Tests of the book's chapter 5 examples: the summation methods of §5.4 (CPU, exact targets)
//! and the GPU tree sum of the same sevens.
mod common;

use common::{CpuTest, GpuTest, TestResult, ensure, example_passes, fail};
use ferrocuda::Gpu;
use ferrocuda::device::elementary::Exp;
use ferrocuda::random::Generator;
use ferrocuda::reduce;
use ferrocuda_book::examples::Options;
use ferrocuda_book::examples::Precision;
use ferrocuda_book::examples::ch5::bs_european_mc::{self as bs_example, BOOK_RUNS, Bounds, McReal, wide};
use ferrocuda_book::examples::ch5::fortran::fortran_e;
use ferrocuda_book::examples::ch5::pi::{self, PiFloat, Rounding};
use ferrocuda_book::examples::ch5::pi_fma::{self, TABLE_5_1};
use ferrocuda_book::examples::ch5::pi_reduction_atomiclock::LockedSum;
use ferrocuda_book::examples::ch5::pi_reduction_twopass::TwoPass;
use ferrocuda_book::examples::ch5::sum_accuracy::{BOOK_SERIES_ERRORS, FIRST_INEXACT_N, SERIES_N};
use ferrocuda_book::reference::ch5::bs_european_mc::{self as bs, BOOK_OPTION, EuropeanOption};
use ferrocuda_book::reference::ch5::pi::{self as pi_reference, PiReference};
use ferrocuda_book::reference::ch5::sum_accuracy::{self as methods, Series};

fn ch5_sum_accuracy_program(gpu: &Gpu) -> TestResult {
    example_passes(
        gpu,
        "ch5-sum-accuracy",
        Options {
            size: Some(100_003),
            ..Options::default()
        },
    )
}

/// The errors the book prints for pairwise and Kahan (7 digits), which reproduce exactly.
fn ch5_sum_accuracy_pairwise_kahan_errors() -> TestResult {
    for (series, pairwise, kahan) in BOOK_SERIES_ERRORS {
        let x = series.terms(SERIES_N);
        let reference = methods::recursive_dp(&x);
        for (method, got, book) in [
            ("pairwise", f64::from(methods::pairwise(&x)) - reference, pairwise),
            ("Kahan", f64::from(methods::kahan(&x)) - reference, kahan),
        ] {
            ensure(fortran_e(got) == fortran_e(book), || {
                format!(
                    "{series:?} {method}: error {} where the book prints {}",
                    fortran_e(got),
                    fortran_e(book)
                )
            })?;
        }
    }
    Ok(())
}

fn ch5_sum_accuracy_threshold() -> TestResult {
    let first = methods::first_inexact_count(7.0, 3_000_000);
    ensure(first == Some(FIRST_INEXACT_N), || format!("first inexact N {first:?}"))?;
    // The book's 2396746 is still exact: 16777222 is even, so an f32.
    let x = vec![7.0f32; FIRST_INEXACT_N - 1];
    ensure(methods::recursive_sp(&x) == 16_777_222.0, || "sum at N - 1".into())
}

/// Sevens in the millions: DP, pairwise and Kahan exact, the recursive sum not.
fn ch5_sum_accuracy_sevens() -> TestResult {
    let x = vec![7.0f32; 10_000_000];
    ensure(methods::pairwise(&x) == 7.0e7, || "pairwise".into())?;
    ensure(methods::kahan(&x) == 7.0e7, || "Kahan".into())?;
    ensure(methods::recursive_dp(&x) == 7.0e7, || "DP accumulator".into())?;
    ensure(methods::recursive_sp(&x) != 7.0e7, || {
        "the recursive SP sum cannot be exact past 2^24".into()
    })?;
    ensure(methods::lanes_sum(&x, 8).map_err(fail)? == 7.0e7, || "8 lanes".into())?;
    ensure(methods::lanes_sum(&x, 4).map_err(fail)? != 7.0e7, || {
        "4 lanes are inexact in the book".into()
    })?;
    ensure(
        methods::lanes_sum(&x, 0).is_err() && methods::lanes_sum(&x, 3).is_err(),
        || "0 or 3 lanes were accepted".into(),
    )
}

/// Pairwise, Kahan and the lane sums add every element once at lengths that break the halving
/// and the lanes (odd, one past a power of two, shorter than the lanes): small integers, so every
/// method is exact.
fn ch5_sum_accuracy_awkward_lengths() -> TestResult {
    for n in [0usize, 1, 2, 3, 5, 7, 9, 31, 33, 255, 257, 1000, 4097] {
        let x: Vec<f32> = (0..n).map(|i| (i % 13) as f32 + 1.0).collect();
        let exact = (0..n).map(|i| (i % 13) as f64 + 1.0).sum::<f64>();
        let got = [
            ("pairwise", f64::from(methods::pairwise(&x))),
            ("Kahan", f64::from(methods::kahan(&x))),
            ("recursive", f64::from(methods::recursive_sp(&x))),
            ("backward", f64::from(methods::recursive_sp_backward(&x))),
            ("4 lanes", f64::from(methods::lanes_sum(&x, 4).map_err(fail)?)),
            ("16 lanes", f64::from(methods::lanes_sum(&x, 16).map_err(fail)?)),
        ];
        for (method, value) in got {
            ensure(value == exact, || {
                format!("n = {n}: {method} gave {value}, not {exact}")
            })?;
        }
    }
    Ok(())
}

/// Table 5.2's conclusion: backward (smallest first) is closer than forward, on both series.
fn ch5_sum_accuracy_backward_beats_forward() -> TestResult {
    for series in [Series::Harmonic, Series::InverseSquares] {
        let x = series.terms(SERIES_N);
        let reference = methods::recursive_dp(&x);
        let forward = (f64::from(methods::recursive_sp(&x)) - reference).abs();
        let backward = (f64::from(methods::recursive_sp_backward(&x)) - reference).abs();
        ensure(backward < forward, || {
            format!("{series:?}: backward {backward:e}, forward {forward:e}")
        })?;
    }
    Ok(())
}

fn ch5_sum_accuracy_fortran_e_format() -> TestResult {
    let cases = [
        (9.588196, "0.9588196E+01"),
        (-3.288733e-8, "-0.3288733E-07"),
        (0.0, "0.0000000E+00"),
        (70_000_000.0, "0.7000000E+08"),
    ];
    for (v, text) in cases {
        ensure(fortran_e(v) == text, || format!("{v} printed {}", fortran_e(v)))?;
    }
    Ok(())
}

/// The GPU tree sum of 10^7 sevens is exact (where the CPU loop is not), and at awkward lengths.
fn ch5_sum_accuracy_gpu_tree_sum_of_sevens(gpu: &Gpu) -> TestResult {
    for n in [1usize, 31, 33, 255, 257, 100_003, 10_000_000] {
        let x_d = gpu.upload(&vec![7.0f32; n]).map_err(fail)?;
        let exact = 7.0 * n as f32;
        let tree = reduce::sum(gpu, &x_d).map_err(fail)?;
        let kahan = reduce::sum_kahan(gpu, &x_d).map_err(fail)?;
        ensure(tree == exact && kahan == exact, || {
            format!("n = {n}: tree {tree}, Kahan {kahan}, exact {exact}")
        })?;
    }
    Ok(())
}

/// Points for the pi tests without a random-number library: `2n` values of a seeded 64-bit LCG
/// in [0, 1), plus points exactly on the circle (`(1, 0)`, `(0, 1)`, `(0.5, 0.75)`... rounded)
/// where `<=` matters.
fn pi_points<T: PiFloat>(n: usize, seed: u64) -> Vec<T> {
    let mut state = seed;
    let mut next = move || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut xy: Vec<T> = (0..2 * n).map(|_| T::from_f64(next())).collect();
    for (k, (x, y)) in [(1.0, 0.0), (0.0, 1.0), (0.6, 0.8), (0.8, 0.6)]
        .into_iter()
        .enumerate()
        .take(n)
    {
        xy[k] = T::from_f64(x);
        xy[n + k] = T::from_f64(y);
    }
    xy
}

/// Sizes for the pi tests: one point, fewer than a warp, around a block, and a large odd count.
const PI_SIZES: [usize; 7] = [1, 2, 31, 33, 255, 257, 100_003];

fn pi_count_matches_cpu<T: PiFloat>(gpu: &Gpu) -> TestResult {
    for n in PI_SIZES {
        let xy = pi_points::<T>(n, n as u64);
        let xy_d = gpu.upload(&xy).map_err(fail)?;
        for (rounding, norm2) in [
            (Rounding::Separate, T::norm2_separate as fn(T, T) -> T),
            (Rounding::Fma, T::norm2_fma),
        ] {
            let got = pi::count(gpu, rounding, &xy_d).map_err(fail)?;
            let expected = pi_reference::count_inside(&xy, norm2);
            ensure(got == expected, || {
                format!("{} n = {n} {rounding:?}: GPU {got}, CPU {expected}", T::NAME)
            })?;
        }
    }
    Ok(())
}

fn ch5_pi_cuf_count_awkward_sizes(gpu: &Gpu) -> TestResult {
    pi_count_matches_cpu::<f32>(gpu)?;
    pi_count_matches_cpu::<f64>(gpu)
}

fn ch5_pi_cuf_program(gpu: &Gpu) -> TestResult {
    for precision in ["f32", "f64"] {
        example_passes(
            gpu,
            "ch5-pi-cuf",
            Options {
                size: Some(100_003),
                precision: precision.parse().map_err(fail)?,
                reps: 1,
                ..Options::default()
            },
        )?;
    }
    Ok(())
}

fn ch5_pi_cuf_estimate_and_row() -> TestResult {
    // The book's first SP row: 7778 of 10^4 points; pi and its error in f32.
    let (pi, error) = pi::estimate::<f32>(7778, 10_000);
    let row = pi::row(10_000, pi, error);
    ensure(row == "  Samples=     10000  Pi=3.11120009 Error= 0.3039E-01", || {
        row.clone()
    })
}

/// Table 5.1's three points on the GPU: all inside with separate roundings, none with
/// `fma(y, y, x*x)`, and the mismatch kernel lists all three.
fn ch5_pi_fma_table_5_1_points(gpu: &Gpu) -> TestResult {
    let xy_d = gpu.upload(&pi_fma::table_5_1_points()).map_err(fail)?;
    let separate = pi::count(gpu, Rounding::Separate, &xy_d).map_err(fail)?;
    let fused = pi::count(gpu, Rounding::Fma, &xy_d).map_err(fail)?;
    ensure((separate, fused) == (3, 0), || {
        format!("separate {separate}, fma {fused}")
    })?;
    let (count, indices) = pi_fma::mismatches(gpu, &xy_d).map_err(fail)?;
    ensure(count == 3 && indices == [0, 1, 2], || {
        format!("{count} mismatches: {indices:?}")
    })
}

/// The mismatch kernel finds exactly the CPU's points at awkward sizes, in both precisions.
fn ch5_pi_fma_mismatches_match_cpu(gpu: &Gpu) -> TestResult {
    fn check<T: PiFloat>(gpu: &Gpu) -> TestResult {
        for n in PI_SIZES {
            let xy = pi_points::<T>(n, 7 * n as u64);
            let xy_d = gpu.upload(&xy).map_err(fail)?;
            let (count, indices) = pi_fma::mismatches(gpu, &xy_d).map_err(fail)?;
            let expected = pi_reference::mismatches(&xy);
            ensure(count == expected.len() && indices == expected, || {
                format!("{} n = {n}: GPU {count} {indices:?}, CPU {expected:?}", T::NAME)
            })?;
        }
        Ok(())
    }
    check::<f32>(gpu)?;
    check::<f64>(gpu)
}

fn ch5_pi_fma_program(gpu: &Gpu) -> TestResult {
    for fma in ["on", "off"] {
        example_passes(
            gpu,
            "ch5-pi-fma",
            Options {
                size: Some(1_000_003),
                ..Options::default()
            }
            .with_flag("--fma", Some(fma)),
        )?;
    }
    Ok(())
}

/// The book's `test_accuracy`: x^2 + y^2 of Table 5.1's first point in SP, in DP, and DP
/// rounded to SP (which equals the GPU's fused result); and the three orderings of the text.
fn ch5_pi_fma_test_accuracy() -> TestResult {
    for (_, x, y) in TABLE_5_1 {
        let (x, y) = (f32::from_bits(x), f32::from_bits(y));
        ensure((x * x + y * y).to_bits() == 0x3F80_0000, || "x*x+y*y".into())?;
        ensure(x.mul_add(x, y * y).to_bits() == 0x3F80_0000, || "fmaf(x,x,y*y)".into())?;
        ensure(y.mul_add(y, x * x).to_bits() == 0x3F80_0001, || "fmaf(y,y,x*x)".into())?;
        let double = f64::from(x) * f64::from(x) + f64::from(y) * f64::from(y);
        ensure((double as f32).to_bits() == 0x3F80_0001, || "DP as SP".into())?;
    }
    let (single, double, rounded) = pi_fma::TEST_ACCURACY_BITS;
    let (x, y) = (
        f64::from(f32::from_bits(TABLE_5_1[0].1)),
        f64::from(f32::from_bits(TABLE_5_1[0].2)),
    );
    ensure((x * x + y * y).to_bits() == double, || {
        "DP bits of the first point".into()
    })?;
    ensure((single, rounded) == (0x3F80_0000, 0x3F80_0001), || "SP bits".into())
}

/// Launch shapes of the two-pass and lock-guarded counts: one thread, one warp, odd block
/// counts, the book's shapes, the largest block; each total equals the CPU count.
fn ch5_pi_reductions_launch_shapes(gpu: &Gpu) -> TestResult {
    let shapes = [(1, 1), (1, 32), (7, 64), (64, 256), (256, 512), (3, 1024), (130, 128)];
    for n in [1usize, 33, 100_003] {
        let xy = pi_points::<f32>(n, 11 * n as u64);
        let expected = pi_reference::count_inside(&xy, f32::norm2_separate);
        let xy_d = gpu.upload(&xy).map_err(fail)?;
        for (blocks, threads) in shapes {
            let mut two_pass = TwoPass::new(gpu, blocks, threads).map_err(fail)?;
            two_pass.launch(gpu, &xy_d).map_err(fail)?;
            let mut locked = LockedSum::new(gpu, blocks, threads).map_err(fail)?;
            locked.launch(gpu, &xy_d).map_err(fail)?;
            let (two, lock) = (two_pass.total(gpu).map_err(fail)?, locked.total(gpu).map_err(fail)?);
            ensure(two == expected && lock == expected, || {
                format!("n = {n}, <<<{blocks},{threads}>>>: two-pass {two}, lock {lock}, CPU {expected}")
            })?;
        }
    }
    Ok(())
}

fn ch5_pi_reductions_programs(gpu: &Gpu) -> TestResult {
    for id in ["ch5-pi-reduction-twopass", "ch5-pi-reduction-atomiclock"] {
        for precision in ["f32", "f64"] {
            example_passes(
                gpu,
                id,
                Options {
                    size: Some(100_003),
                    precision: precision.parse().map_err(fail)?,
                    reps: 1,
                    ..Options::default()
                },
            )?;
        }
    }
    Ok(())
}

/// Shapes the tree kernels cannot run: a block that is not a power of two, no block, more
/// partials than one block of `final_sum` can add; each is one clear error.
fn ch5_pi_reductions_refuse_bad_shapes(gpu: &Gpu) -> TestResult {
    for (blocks, threads) in [(1, 48), (0, 256), (4, 2048)] {
        ensure(TwoPass::new(gpu, blocks, threads).is_err(), || {
            format!("two-pass <<<{blocks},{threads}>>> accepted")
        })?;
        ensure(LockedSum::new(gpu, blocks, threads).is_err(), || {
            format!("lock <<<{blocks},{threads}>>> accepted")
        })?;
    }
    ensure(TwoPass::new(gpu, 2048, 256).is_err(), || {
        "2048 partials accepted".into()
    })
}

/// The book's tables, from cuRAND's streams: every printed `Pi=` to 8 decimals.
fn ch5_pi_cuf_book_tables(gpu: &Gpu) -> TestResult {
    example_passes(gpu, "ch5-pi-cuf", Options::default().with_flag("--book", None))
}

/// The book's FMA experiment: its `Pi=` column and Table 5.1's three points at N = 10^8.
fn ch5_pi_fma_book_table(gpu: &Gpu) -> TestResult {
    example_passes(gpu, "ch5-pi-fma", Options::default().with_flag("--book", None))
}

/// Hastings' CDF within its published error (7.5e-8, Abramowitz & Stegun 26.2.17) of the exact
/// one everywhere, and the option values with the two within 1e-6 (the spec: 4.1e-7 apart).
fn ch5_bs_european_mc_hastings_vs_exact() -> TestResult {
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
fn ch5_bs_european_mc_closed_form_identities() -> TestResult {
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

fn ch5_bs_european_mc_exp_accuracy() -> TestResult {
    // From the smallest subnormal result to the largest finite one.
    exp_accuracy::<f32>(|x| (x as f32 as f64).exp(), -103.0, 88.7)?;
    exp_accuracy::<f64>(f64::exp, -744.0, 709.7)
}

/// The book's printed runs are transcribed consistently: each interval is centred within two
/// half-widths of the closed form, its half-width is 1.96 sd / sqrt(N) for the spec's sample
/// deviations (0.3125 put, 1.3848 call, within 1%), and the DP 10^6 put mean is its midpoint.
fn ch5_bs_european_mc_book_values() -> TestResult {
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
fn ch5_bs_european_mc_bounds_catch_errors() -> TestResult {
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
fn ch5_bs_european_mc_book_needs_curand() -> TestResult {
    let example = ferrocuda_book::examples::find("ch5-bs-european-mc").ok_or("no example")?;
    let options = Options::default().with_flag("--book", None);
    match (example.run)(&Gpu::simulator(), &options) {
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

fn ch5_bs_european_mc_gpu_vs_cpu_awkward_sizes(gpu: &Gpu) -> TestResult {
    bs_gpu_matches_cpu::<f32>(gpu)?;
    bs_gpu_matches_cpu::<f64>(gpu)
}

fn ch5_bs_european_mc_program(gpu: &Gpu) -> TestResult {
    for precision in [Precision::F32, Precision::F64] {
        let options = Options {
            size: Some(100_003),
            precision,
            ..Options::default()
        };
        example_passes(
            gpu,
            "ch5-bs-european-mc",
            options.with_flag("--generator", Some("philox")),
        )?;
    }
    Ok(())
}

/// The book's four runs against its printed intervals (cuRAND).
fn ch5_bs_european_mc_book(gpu: &Gpu) -> TestResult {
    example_passes(gpu, "ch5-bs-european-mc", Options::default().with_flag("--book", None))
}

/// The book's suggested `CURAND_ORDERING_PSEUDO_SEEDED` (CUDA): another stream than the default
/// ordering's for the same seed, of uniforms in (0, 1], and the Black-Scholes program with it
/// passes its checks (GPU against CPU over the same normals).
fn ch5_bs_european_mc_seeded_ordering(gpu: &Gpu) -> TestResult {
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
    let options = Options {
        size: Some(100_000),
        ..Options::default()
    };
    example_passes(
        gpu,
        "ch5-bs-european-mc",
        options.with_flag("--generator", Some("curand-seeded")),
    )
}

/// `--generator curand-seeded` is parsed, and refused on the simulator in one sentence.
fn ch5_curand_seeded_needs_cuda() -> TestResult {
    let generator: Generator = "curand-seeded".parse().map_err(fail)?;
    ensure(generator == Generator::CurandSeeded, || format!("parsed {generator:?}"))?;
    let example = ferrocuda_book::examples::find("ch5-bs-european-mc").ok_or("no example")?;
    let options = Options {
        size: Some(1000),
        ..Options::default()
    }
    .with_flag("--generator", Some("curand-seeded"));
    match (example.run)(&Gpu::simulator(), &options) {
        Err(e) if e.to_string().contains("cuRAND") && !e.to_string().contains('\n') => Ok(()),
        Err(e) => Err(format!("curand-seeded on the simulator: {e}")),
        Ok(_) => Err("curand-seeded ran on the simulator".into()),
    }
}

/// ch5-curand-basic with Philox (either backend): the GPU's uniforms equal the CPU reference's
/// bit for bit, in both precisions, at the listing's n and at sizes short of one Philox block.
fn ch5_curand_basic_philox_program(gpu: &Gpu) -> TestResult {
    for precision in [Precision::F32, Precision::F64] {
        for size in [None, Some(1), Some(3), Some(1025)] {
            let options = Options {
                size,
                precision,
                ..Options::default()
            }
            .with_flag("--generator", Some("philox"))
            .with_flag("--seed", Some("7"));
            example_passes(gpu, "ch5-curand-basic", options)?;
        }
    }
    Ok(())
}

/// ch5-curand-basic with cuRAND and seed 1234: the book's first four, digit for digit.
fn ch5_curand_basic_book(gpu: &Gpu) -> TestResult {
    for precision in [Precision::F32, Precision::F64] {
        let options = Options {
            precision,
            ..Options::default()
        }
        .with_flag("--generator", Some("curand"));
        example_passes(gpu, "ch5-curand-basic", options)?;
    }
    Ok(())
}

/// ch5-curand-basic takes exactly `--generator` and `--seed` (the pi examples' first two flags).
fn ch5_curand_basic_flags() -> TestResult {
    let example = ferrocuda_book::examples::find("ch5-curand-basic").ok_or("no example ch5-curand-basic")?;
    let names: Vec<&str> = example.flags.iter().map(|f| f.name).collect();
    ensure(names == ["--generator", "--seed"], || format!("flags {names:?}"))
}

/// The memory plans of this file's ids.
fn ch5_memory_plans() -> TestResult {
    common::memory_plans_grow(&[
        "ch5-pi-cuf",
        "ch5-pi-fma",
        "ch5-pi-reduction-twopass",
        "ch5-pi-reduction-atomiclock",
        "ch5-curand-basic",
        "ch5-sum-accuracy",
        "ch5-bs-european-mc",
    ])
}

/// `--book` runs the book's sizes: a `--size` beside it is refused in one sentence.
fn ch5_book_refuses_size() -> TestResult {
    for id in ["ch5-pi-cuf", "ch5-pi-fma", "ch5-bs-european-mc"] {
        let example = ferrocuda_book::examples::find(id).ok_or(format!("no example {id}"))?;
        let options = Options {
            size: Some(1000),
            ..Options::default()
        }
        .with_flag("--book", None);
        match (example.run)(&Gpu::simulator(), &options) {
            Err(ferrocuda::Error::InvalidArgument(e)) if e.contains("--size") => {}
            Err(e) => return Err(format!("{id} --book --size: another error: {e}")),
            Ok(_) => return Err(format!("{id} ran --book with --size")),
        }
    }
    Ok(())
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        (
            "ch5_sum_accuracy_pairwise_kahan_errors",
            ch5_sum_accuracy_pairwise_kahan_errors,
        ),
        ("ch5_sum_accuracy_threshold", ch5_sum_accuracy_threshold),
        ("ch5_sum_accuracy_sevens", ch5_sum_accuracy_sevens),
        ("ch5_sum_accuracy_awkward_lengths", ch5_sum_accuracy_awkward_lengths),
        (
            "ch5_sum_accuracy_backward_beats_forward",
            ch5_sum_accuracy_backward_beats_forward,
        ),
        ("ch5_sum_accuracy_fortran_e_format", ch5_sum_accuracy_fortran_e_format),
        ("ch5_pi_cuf_estimate_and_row", ch5_pi_cuf_estimate_and_row),
        ("ch5_pi_fma_test_accuracy", ch5_pi_fma_test_accuracy),
        (
            "ch5_bs_european_mc_hastings_vs_exact",
            ch5_bs_european_mc_hastings_vs_exact,
        ),
        (
            "ch5_bs_european_mc_closed_form_identities",
            ch5_bs_european_mc_closed_form_identities,
        ),
        ("ch5_bs_european_mc_exp_accuracy", ch5_bs_european_mc_exp_accuracy),
        ("ch5_bs_european_mc_book_values", ch5_bs_european_mc_book_values),
        (
            "ch5_bs_european_mc_bounds_catch_errors",
            ch5_bs_european_mc_bounds_catch_errors,
        ),
        ("ch5_curand_seeded_needs_cuda", ch5_curand_seeded_needs_cuda),
        (
            "ch5_bs_european_mc_book_needs_curand",
            ch5_bs_european_mc_book_needs_curand,
        ),
        ("ch5_curand_basic_flags", ch5_curand_basic_flags),
        ("ch5_memory_plans", ch5_memory_plans),
        ("ch5_book_refuses_size", ch5_book_refuses_size),
    ];
    let gpu_tests: Vec<GpuTest> = vec![
        ("ch5_sum_accuracy_program", ch5_sum_accuracy_program),
        (
            "ch5_sum_accuracy_gpu_tree_sum_of_sevens",
            ch5_sum_accuracy_gpu_tree_sum_of_sevens,
        ),
        ("ch5_pi_cuf_count_awkward_sizes", ch5_pi_cuf_count_awkward_sizes),
        ("ch5_pi_cuf_program", ch5_pi_cuf_program),
        ("ch5_pi_fma_table_5_1_points", ch5_pi_fma_table_5_1_points),
        ("ch5_pi_fma_mismatches_match_cpu", ch5_pi_fma_mismatches_match_cpu),
        ("ch5_pi_fma_program", ch5_pi_fma_program),
        ("ch5_pi_reductions_launch_shapes", ch5_pi_reductions_launch_shapes),
        ("ch5_pi_reductions_programs", ch5_pi_reductions_programs),
        (
            "ch5_pi_reductions_refuse_bad_shapes",
            ch5_pi_reductions_refuse_bad_shapes,
        ),
        (
            "ch5_bs_european_mc_gpu_vs_cpu_awkward_sizes",
            ch5_bs_european_mc_gpu_vs_cpu_awkward_sizes,
        ),
        ("ch5_bs_european_mc_program", ch5_bs_european_mc_program),
        ("ch5_curand_basic_philox_program", ch5_curand_basic_philox_program),
    ];
    // The book's numbers come from cuRAND's streams: on a CUDA device only.
    let cuda_tests: Vec<GpuTest> = vec![
        ("ch5_pi_cuf_book_tables", ch5_pi_cuf_book_tables),
        ("ch5_pi_fma_book_table", ch5_pi_fma_book_table),
        ("ch5_bs_european_mc_book", ch5_bs_european_mc_book),
        ("ch5_curand_basic_book", ch5_curand_basic_book),
        ("ch5_bs_european_mc_seeded_ordering", ch5_bs_european_mc_seeded_ordering),
    ];
    common::main_with_cuda_only(cpu_tests, gpu_tests, cuda_tests)
}
