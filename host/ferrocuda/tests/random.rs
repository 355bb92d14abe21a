//! Tests of the random-number library (`ferrocuda::random`, `gpu_kernels::random`): the Philox
//! streams on the GPU against the CPU reference bit for bit, the statistics of the normals, the
//! `Generator` front end, and cuRAND's generator (the book's tests check its printed numbers).
use ferrocuda_testing as common;

use common::{CpuTest, GpuTest, TestResult, ensure, fail};
use ferrocuda::kernels::random::PhiloxArgs;
use ferrocuda::random::cpu as reference;
use ferrocuda::random::{self, Generator, RandomFloat, blocks_for};
use ferrocuda::{Error, Gpu, KernelView, LaunchShape, SliceMut};

/// Sizes that break assumptions: one element, a partial chunk of four, one chunk, a chunk and
/// one, around a 1024-element boundary, and a large odd size.
const SIZES: [usize; 7] = [1, 3, 4, 5, 1023, 1025, 100_003];
/// Offsets: the start, an odd block, and one past 2^32 blocks (the counter's high word).
const OFFSETS: [u64; 3] = [0, 7, (1 << 32) + 5];
const SEED: u64 = 1234;

/// The bits of `values`, widened (exact) to `f64`, so that `-0.0` and `0.0` differ.
fn bits<T: RandomFloat>(values: &[T]) -> Vec<u64> {
    values.iter().map(|v| v.to_f64().to_bits()).collect()
}

/// The index of the first element where `got` and `want` differ, with both values.
fn first_difference<T: RandomFloat>(got: &[T], want: &[T]) -> Option<(usize, f64, f64)> {
    if got.len() != want.len() {
        return Some((got.len().min(want.len()), f64::NAN, f64::NAN));
    }
    let (g, w) = (bits(got), bits(want));
    (0..g.len())
        .find(|&i| g[i] != w[i])
        .map(|i| (i, got[i].to_f64(), want[i].to_f64()))
}

/// A fill of the library and the CPU reference of the same stream.
type Pair<T> = (
    &'static str,
    fn(&Gpu, u64, u64, &mut ferrocuda::DeviceBuffer<T>) -> ferrocuda::Result<()>,
    fn(u64, u64, usize) -> ferrocuda::Result<Vec<T>>,
);

fn uniform_and_normal_match_cpu<T: RandomFloat + Send>(gpu: &Gpu) -> TestResult {
    let pairs: [Pair<T>; 2] = [
        ("uniforms", random::fill_uniform, reference::uniform),
        ("normals", random::fill_normal, reference::normal),
    ];
    for &n in &SIZES {
        for &offset in &OFFSETS {
            for (what, fill, cpu) in pairs {
                let mut x_d = gpu.zeros::<T>(n).map_err(fail)?;
                fill(gpu, SEED, offset, &mut x_d).map_err(fail)?;
                let got = gpu.download(&x_d).map_err(fail)?;
                let difference = first_difference(&got, &cpu(SEED, offset, n).map_err(fail)?);
                ensure(difference.is_none(), || {
                    format!(
                        "{} {what}, n = {n}, offset {offset}: first difference {difference:?}",
                        T::NAME
                    )
                })?;
            }
        }
    }
    Ok(())
}

fn random_philox_f32_matches_cpu(gpu: &Gpu) -> TestResult {
    uniform_and_normal_match_cpu::<f32>(gpu)
}

fn random_philox_f64_matches_cpu(gpu: &Gpu) -> TestResult {
    uniform_and_normal_match_cpu::<f64>(gpu)
}

/// A view that starts one element into its buffer (not 16-byte aligned) takes the kernels'
/// element-by-element path and still gets the stream, whatever the launch shape.
fn unaligned_view_and_other_shapes<T: RandomFloat + Send>(gpu: &Gpu) -> TestResult {
    let n = 1029;
    for (threads, blocks) in [(1, 1), (7, 3), (32, 1), (65, 2), (256, 40)] {
        let mut x_d = gpu.zeros::<T>(n + 1).map_err(fail)?;
        let whole = x_d.view_mut();
        // SAFETY: elements 1 ..= n of the buffer, which `x_d` keeps alive and nothing else
        // writes until the download below.
        let tail = unsafe { SliceMut::from_raw_parts(whole.as_mut_ptr().wrapping_add(1), n) };
        let shape = LaunchShape::new((blocks, 1, 1), (threads, 1, 1));
        let args = PhiloxArgs {
            out: tail,
            seed: SEED,
            offset: 3,
        };
        T::launch_normal(gpu, shape, args).map_err(fail)?;
        let got = gpu.download(&x_d).map_err(fail)?;
        let want = reference::normal::<T>(SEED, 3, n).map_err(fail)?;
        ensure(
            got[0] == T::from_f64(0.0) && first_difference(&got[1..], &want).is_none(),
            || {
                format!(
                    "{} normals into an unaligned view, {blocks} x {threads}: first difference {:?}",
                    T::NAME,
                    first_difference(&got[1..], &want)
                )
            },
        )?;
        let mut y_d = gpu.zeros::<T>(n).map_err(fail)?;
        let args = PhiloxArgs {
            out: y_d.view_mut(),
            seed: SEED,
            offset: 3,
        };
        T::launch_uniform(gpu, shape, args).map_err(fail)?;
        let got = gpu.download(&y_d).map_err(fail)?;
        let want = reference::uniform::<T>(SEED, 3, n).map_err(fail)?;
        ensure(first_difference(&got, &want).is_none(), || {
            format!("{} uniforms with {blocks} x {threads}", T::NAME)
        })?;
    }
    Ok(())
}

fn random_philox_unaligned_and_launch_shapes(gpu: &Gpu) -> TestResult {
    unaligned_view_and_other_shapes::<f32>(gpu)?;
    unaligned_view_and_other_shapes::<f64>(gpu)
}

/// Elements in the sample of the statistics tests: the simulator's share keeps the test to
/// about a second.
fn statistics_n(gpu: &Gpu) -> usize {
    if gpu.is_simulator() { 1 << 18 } else { 1 << 24 }
}
/// Tolerance of each statistic, in standard errors of the estimate: a correct generator fails a
/// 6-sigma bound with probability about 2e-9 per statistic, and the seeds are fixed anyway.
const SIGMAS: f64 = 6.0;
/// Two-sided tail probabilities of the standard normal: P(|z| > 1), P(|z| > 2), P(|z| > 3).
const NORMAL_TAILS: [(f64, f64); 3] = [
    (1.0, 0.317_310_507_862_914_1),
    (2.0, 0.045_500_263_896_358_4),
    (3.0, 0.002_699_796_063_260_2),
];

fn normal_statistics<T: RandomFloat>(gpu: &Gpu, seed: u64) -> TestResult {
    let n = statistics_n(gpu);
    let mut z_d = gpu.zeros::<T>(n).map_err(fail)?;
    Generator::Philox.fill_normal(gpu, seed, &mut z_d).map_err(fail)?;
    let z: Vec<f64> = gpu.download(&z_d).map_err(fail)?.iter().map(|v| v.to_f64()).collect();
    let nf = n as f64;
    let mean = z.iter().sum::<f64>() / nf;
    let variance = z.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (nf - 1.0);
    // Standard errors: sd / sqrt(n) for the mean; sqrt(2 / n) for the variance of a normal.
    ensure(mean.abs() <= SIGMAS / nf.sqrt(), || {
        format!("{} normals: mean {mean}", T::NAME)
    })?;
    ensure((variance - 1.0).abs() <= SIGMAS * (2.0 / nf).sqrt(), || {
        format!("{} normals: variance {variance}", T::NAME)
    })?;
    for (bound, p) in NORMAL_TAILS {
        let fraction = z.iter().filter(|x| x.abs() > bound).count() as f64 / nf;
        // A binomial proportion's standard error: sqrt(p (1 - p) / n).
        ensure((fraction - p).abs() <= SIGMAS * (p * (1.0 - p) / nf).sqrt(), || {
            format!("{} normals: P(|z| > {bound}) = {fraction}, expected {p}", T::NAME)
        })?;
    }
    let negative = z.iter().filter(|&&x| x < 0.0).count() as f64 / nf;
    ensure((negative - 0.5).abs() <= SIGMAS * (0.25 / nf).sqrt(), || {
        format!("{} normals: {negative} negative", T::NAME)
    })?;
    // Consecutive elements (the two of a Box-Muller pair, or of neighbouring pairs) are
    // uncorrelated: the lag-1 correlation's standard error is 1 / sqrt(n).
    let lag1 = z.windows(2).map(|w| (w[0] - mean) * (w[1] - mean)).sum::<f64>() / ((nf - 1.0) * variance);
    ensure(lag1.abs() <= SIGMAS / nf.sqrt(), || {
        format!("{} normals: lag-1 correlation {lag1}", T::NAME)
    })
}

fn uniform_statistics<T: RandomFloat>(gpu: &Gpu, seed: u64) -> TestResult {
    let n = statistics_n(gpu);
    let mut u_d = gpu.zeros::<T>(n).map_err(fail)?;
    Generator::Philox.fill_uniform(gpu, seed, &mut u_d).map_err(fail)?;
    let u: Vec<f64> = gpu.download(&u_d).map_err(fail)?.iter().map(|v| v.to_f64()).collect();
    ensure(u.iter().all(|&x| x > 0.0 && x <= 1.0), || {
        format!("{} uniforms outside (0, 1]", T::NAME)
    })?;
    let nf = n as f64;
    let mean = u.iter().sum::<f64>() / nf;
    // A uniform's standard deviation is 1 / sqrt(12).
    ensure((mean - 0.5).abs() <= SIGMAS / (12.0 * nf).sqrt(), || {
        format!("{} uniforms: mean {mean}", T::NAME)
    })?;
    // Each tenth of (0, 1] holds a tenth of the values.
    for decile in 0..10 {
        let (lo, hi) = (decile as f64 / 10.0, (decile + 1) as f64 / 10.0);
        let fraction = u.iter().filter(|&&x| x > lo && x <= hi).count() as f64 / nf;
        ensure((fraction - 0.1).abs() <= SIGMAS * (0.09 / nf).sqrt(), || {
            format!("{} uniforms: {fraction} in ({lo}, {hi}]", T::NAME)
        })?;
    }
    Ok(())
}

fn random_philox_statistics(gpu: &Gpu) -> TestResult {
    for seed in [SEED, 20_240_517] {
        normal_statistics::<f32>(gpu, seed)?;
        normal_statistics::<f64>(gpu, seed)?;
        uniform_statistics::<f32>(gpu, seed)?;
        uniform_statistics::<f64>(gpu, seed)?;
    }
    Ok(())
}

/// Consecutive buffers at `offset` and `offset + blocks_for(n)` continue one stream, and
/// another seed gives another stream.
fn random_philox_offsets_continue_the_stream(gpu: &Gpu) -> TestResult {
    let (n, m) = (1001, 37);
    let mut whole_d = gpu.zeros::<f32>(1004 + m).map_err(fail)?;
    random::fill_normal(gpu, SEED, 0, &mut whole_d).map_err(fail)?;
    let whole = gpu.download(&whole_d).map_err(fail)?;
    let mut part_d = gpu.zeros::<f32>(m).map_err(fail)?;
    random::fill_normal(gpu, SEED, blocks_for::<f32>(n as u64), &mut part_d).map_err(fail)?;
    let part = gpu.download(&part_d).map_err(fail)?;
    ensure(bits(&part) == bits(&whole[1004..]), || {
        "the next buffer does not continue the stream".into()
    })?;
    random::fill_normal(gpu, SEED + 1, 0, &mut part_d).map_err(fail)?;
    let other = gpu.download(&part_d).map_err(fail)?;
    let same = other.iter().zip(&whole).filter(|(a, b)| a == b).count();
    ensure(same == 0, || {
        format!("seeds {SEED} and {} share {same} of {m} values", SEED + 1)
    })
}

/// `Generator`: parsing, the default per backend, Philox at offset 0, cuRAND refused on the
/// simulator with one sentence.
fn random_generator_front_end(gpu: &Gpu) -> TestResult {
    ensure("curand".parse::<Generator>().ok() == Some(Generator::Curand), || {
        "curand".into()
    })?;
    ensure("philox".parse::<Generator>().ok() == Some(Generator::Philox), || {
        "philox".into()
    })?;
    let refused = "xorwow"
        .parse::<Generator>()
        .err()
        .map(|e| e.to_string())
        .unwrap_or_default();
    ensure(
        refused.contains("curand, curand-seeded or philox") && !refused.contains('\n'),
        || refused.clone(),
    )?;
    ensure(
        "curand-seeded".parse::<Generator>().ok() == Some(Generator::CurandSeeded),
        || "curand-seeded".into(),
    )?;
    let default = Generator::default_for(gpu);
    ensure(
        default
            == if gpu.is_simulator() {
                Generator::Philox
            } else {
                Generator::Curand
            },
        || format!("default {default:?}"),
    )?;
    let mut x_d = gpu.zeros::<f64>(5).map_err(fail)?;
    Generator::Philox.fill_normal(gpu, 9, &mut x_d).map_err(fail)?;
    let got = gpu.download(&x_d).map_err(fail)?;
    ensure(
        bits(&got) == bits(&reference::normal::<f64>(9, 0, 5).map_err(fail)?),
        || "Generator::Philox is not offset 0".into(),
    )?;
    if gpu.is_simulator() {
        match Generator::Curand.fill_uniform(gpu, SEED, &mut x_d) {
            Err(e @ Error::NeedsCuda(_)) => ensure(!e.to_string().contains('\n'), || e.to_string())?,
            other => return Err(format!("cuRAND on the simulator: {other:?}")),
        }
    }
    Ok(())
}

/// cuRAND's normals: pairs only (an odd length is one clear error), mean near 0.
fn random_curand_normals(gpu: &Gpu) -> TestResult {
    let n = 1 << 20;
    let mut z_d = gpu.zeros::<f32>(n).map_err(fail)?;
    Generator::Curand.fill_normal(gpu, SEED, &mut z_d).map_err(fail)?;
    let z = gpu.download(&z_d).map_err(fail)?;
    let mean = z.iter().map(|&v| f64::from(v)).sum::<f64>() / n as f64;
    ensure(mean.abs() <= SIGMAS / (n as f64).sqrt(), || {
        format!("cuRAND normals: mean {mean}")
    })?;
    let mut odd_d = gpu.zeros::<f64>(5).map_err(fail)?;
    ensure(Generator::Curand.fill_normal(gpu, SEED, &mut odd_d).is_err(), || {
        "cuRAND accepted an odd count of normals".into()
    })
}

/// The CPU reference alone: a stream at `offset + 1` is the stream at `offset` shifted by one
/// block, for both types and both distributions.
fn random_reference_layout() -> TestResult {
    let a = reference::uniform::<f32>(5, 10, 23).map_err(fail)?;
    let b = reference::uniform::<f32>(5, 11, 19).map_err(fail)?;
    ensure(bits(&a[4..]) == bits(&b), || {
        "f32 uniforms: offset + 1 is not four elements on".into()
    })?;
    let a = reference::normal::<f64>(5, 10, 23).map_err(fail)?;
    let b = reference::normal::<f64>(5, 11, 21).map_err(fail)?;
    ensure(bits(&a[2..]) == bits(&b), || {
        "f64 normals: offset + 1 is not two elements on".into()
    })?;
    ensure(reference::normal::<f32>(5, 10, 0).map_err(fail)?.is_empty(), || {
        "n = 0".into()
    })
}

/// The CPU reference refuses what it cannot compute with one sentence, never a panic: more
/// elements than memory can address, a stream past the last Philox block; the last block itself
/// is fine.
fn random_reference_refuses_bad_input() -> TestResult {
    let refused = |what: &str, result: ferrocuda::Result<Vec<f32>>| match result {
        Err(e @ Error::InvalidArgument(_)) => ensure(!e.to_string().contains('\n'), || e.to_string()),
        other => Err(format!("{what}: {:?}", other.map(|v| v.len()))),
    };
    refused("usize::MAX uniforms", reference::uniform::<f32>(SEED, 0, usize::MAX))?;
    refused("usize::MAX normals", reference::normal::<f32>(SEED, 0, usize::MAX))?;
    refused("f64 normals past the last block", {
        reference::normal::<f64>(SEED, u64::MAX, 3).map(|v| v.into_iter().map(|x| x as f32).collect())
    })?;
    refused(
        "uniforms past the last block",
        reference::uniform::<f32>(SEED, u64::MAX - 1, 9),
    )?;
    let last = reference::uniform::<f32>(SEED, u64::MAX, 4).map_err(fail)?;
    ensure(last.len() == 4, || {
        format!("the last block gave {} elements", last.len())
    })
}

/// `fill_uniform` and `fill_normal` refuse, with one sentence, a stream that would run past the
/// last Philox block and wrap into offset 0's, and leave the buffer as it was; the last block
/// itself is filled as the CPU fills it.
fn wrapping_offset_refused<T: RandomFloat + Send>(gpu: &Gpu) -> TestResult {
    let pairs: [Pair<T>; 2] = [
        ("uniforms", random::fill_uniform, reference::uniform),
        ("normals", random::fill_normal, reference::normal),
    ];
    let per_block = blocks_for::<T>(4) as usize; // blocks per four elements: 1 (f32) or 2 (f64)
    let fit = 4 / per_block; // the elements of one block
    for (what, fill, cpu) in pairs {
        for (offset, n) in [
            (u64::MAX, fit + 1),
            (u64::MAX - 1, 2 * fit + 1),
            (u64::MAX - 2, 1 << 12),
        ] {
            let mut x_d = gpu.zeros::<T>(n).map_err(fail)?;
            match fill(gpu, SEED, offset, &mut x_d) {
                Err(e @ Error::InvalidArgument(_)) => ensure(!e.to_string().contains('\n'), || e.to_string())?,
                other => return Err(format!("{} {what}, n = {n}, offset {offset}: {other:?}", T::NAME)),
            }
            let untouched = gpu.download(&x_d).map_err(fail)?;
            ensure(untouched.iter().all(|x| x.to_f64() == 0.0), || {
                format!("{} {what}: a refused fill wrote the buffer", T::NAME)
            })?;
        }
        let mut last_d = gpu.zeros::<T>(fit).map_err(fail)?;
        fill(gpu, SEED, u64::MAX, &mut last_d).map_err(fail)?;
        let got = gpu.download(&last_d).map_err(fail)?;
        let difference = first_difference(&got, &cpu(SEED, u64::MAX, fit).map_err(fail)?);
        ensure(difference.is_none(), || {
            format!("{} {what}, the last block: first difference {difference:?}", T::NAME)
        })?;
    }
    Ok(())
}

fn random_philox_refuses_a_wrapping_offset(gpu: &Gpu) -> TestResult {
    wrapping_offset_refused::<f32>(gpu)?;
    wrapping_offset_refused::<f64>(gpu)
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        ("random_reference_layout", random_reference_layout),
        ("random_reference_refuses_bad_input", random_reference_refuses_bad_input),
    ];
    let gpu_tests: Vec<GpuTest> = vec![
        ("random_philox_f32_matches_cpu", random_philox_f32_matches_cpu),
        ("random_philox_f64_matches_cpu", random_philox_f64_matches_cpu),
        (
            "random_philox_unaligned_and_launch_shapes",
            random_philox_unaligned_and_launch_shapes,
        ),
        ("random_philox_statistics", random_philox_statistics),
        (
            "random_philox_offsets_continue_the_stream",
            random_philox_offsets_continue_the_stream,
        ),
        ("random_generator_front_end", random_generator_front_end),
        (
            "random_philox_refuses_a_wrapping_offset",
            random_philox_refuses_a_wrapping_offset,
        ),
    ];
    let cuda_tests: Vec<GpuTest> = vec![("random_curand_normals", random_curand_normals)];
    common::main_with_cuda_only(cpu_tests, gpu_tests, cuda_tests)
}
