//! GPU-vs-CPU tests of the reduction library (`ferrocuda::reduce`, `gpu_kernels::collective`).
use ferrocuda_testing as common;

use common::{GpuTest, TestResult, ensure, fail};
use ferrocuda::Gpu;
use ferrocuda::reduce::{self, Kind, Plan, Reduce};

/// Sizes that break assumptions: 1, a partial chunk of 4, a block of 256 ± 1, more elements than
/// one grid pass covers, and a non-multiple of everything.
const SIZES: [usize; 7] = [1, 3, 255, 257, 4099, 100_003, 3_000_001];
/// Block sizes that break assumptions (partial warps, one thread, the maximum).
const THREADS: [u32; 6] = [1, 7, 32, 65, 128, 1024];

/// Integers spread over signs and magnitudes, seeded (a 64-bit LCG), so a wrong index shows.
fn values(n: usize, seed: u64) -> Vec<i64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((state >> 33) % 2001) as i64 - 1000
        })
        .collect()
}

/// Every kind on `input`, against the CPU, exactly (integers, and floats holding small integers,
/// whose sums are exact in any order).
fn check_exact<T: Reduce + Ord + std::fmt::Debug>(gpu: &Gpu, input: &[T], expected_sum: T, threads: u32) -> TestResult {
    let input_d = gpu.upload(input).map_err(fail)?;
    let mut plan = Plan::<T>::new(gpu, input.len(), threads).map_err(fail)?;
    let expected = [
        (Kind::Sum, expected_sum),
        (Kind::Min, *input.iter().min().unwrap_or(&T::GREATEST)),
        (Kind::Max, *input.iter().max().unwrap_or(&T::LEAST)),
        (Kind::SumAtomic, expected_sum),
    ];
    for (kind, want) in expected {
        plan.launch(gpu, kind, &input_d).map_err(fail)?;
        let got = plan.result(gpu).map_err(fail)?;
        ensure(got == want, || {
            format!(
                "{kind:?} of {} with {threads} threads: {got:?}, expected {want:?}",
                input.len()
            )
        })?;
    }
    Ok(())
}

fn reduce_integers_all_kinds(gpu: &Gpu) -> TestResult {
    for (k, &n) in SIZES.iter().enumerate() {
        let v = values(n, k as u64);
        let i: Vec<i32> = v.iter().map(|&x| x as i32).collect();
        check_exact(gpu, &i, i.iter().sum(), 256)?;
        let u: Vec<u32> = v.iter().map(|&x| (x + 1000) as u32).collect();
        check_exact(gpu, &u, u.iter().sum(), 256)?;
        let l: Vec<u64> = v.iter().map(|&x| (x + 1000) as u64 * 3_000_000_000).collect();
        check_exact(gpu, &l, l.iter().sum(), 256)?;
    }
    Ok(())
}

fn reduce_block_shapes(gpu: &Gpu) -> TestResult {
    for threads in THREADS {
        for n in [1, 31, 33, 1000, 65_537] {
            let v: Vec<i32> = values(n, threads as u64).into_iter().map(|x| x as i32).collect();
            check_exact(gpu, &v, v.iter().sum(), threads)?;
        }
    }
    Ok(())
}

/// One thread in the whole grid (the second pass of a one-thread block): it alone must read
/// every element, the `n % 4` tail of the 16-byte chunks included.
fn reduce_grid_of_one_thread(gpu: &Gpu) -> TestResult {
    use ferrocuda::kernels::reduce::{ReduceArgs, ReduceSum, shared_bytes};
    use ferrocuda::{KernelView, LaunchShape};
    for n in [1usize, 2, 3, 5, 250, 1003] {
        let v: Vec<i32> = values(n, n as u64).into_iter().map(|x| x as i32).collect();
        let input_d = gpu.upload(&v).map_err(fail)?;
        let mut total_d = gpu.zeros::<i32>(1).map_err(fail)?;
        let shape = LaunchShape::new((1, 1, 1), (1, 1, 1)).with_shared_bytes(shared_bytes::<i32>() as u32);
        let args = ReduceArgs {
            input: input_d.view(),
            partials: total_d.view_mut(),
        };
        common::library(gpu)?.launch(ReduceSum, shape, args).map_err(fail)?;
        let got = gpu.download(&total_d).map_err(fail)?[0];
        ensure(got == v.iter().sum::<i32>(), || {
            format!("n = {n}: {got}, expected {}", v.iter().sum::<i32>())
        })?;
    }
    Ok(())
}

fn reduce_floats_min_max_and_sums(gpu: &Gpu) -> TestResult {
    for (k, &n) in SIZES.iter().enumerate() {
        let v = values(n, 100 + k as u64);
        // Halves of small integers: every partial sum is exact, in any order.
        let f: Vec<f32> = v.iter().map(|&x| x as f32 * 0.5).collect();
        let d: Vec<f64> = v.iter().map(|&x| x as f64 * 0.25).collect();
        let (f_d, d_d) = (gpu.upload(&f).map_err(fail)?, gpu.upload(&d).map_err(fail)?);
        let f_sum: f32 = v.iter().map(|&x| x as f64 * 0.5).sum::<f64>() as f32;
        let d_sum: f64 = v.iter().map(|&x| x as f64 * 0.25).sum();
        let got = [
            (reduce::sum(gpu, &f_d).map_err(fail)? as f64, f_sum as f64),
            (reduce::sum_atomic(gpu, &f_d).map_err(fail)? as f64, f_sum as f64),
            (reduce::sum_kahan(gpu, &f_d).map_err(fail)? as f64, f_sum as f64),
            (
                reduce::min(gpu, &f_d).map_err(fail)? as f64,
                f.iter().cloned().fold(f32::INFINITY, f32::min) as f64,
            ),
            (
                reduce::max(gpu, &f_d).map_err(fail)? as f64,
                f.iter().cloned().fold(f32::NEG_INFINITY, f32::max) as f64,
            ),
            (reduce::sum(gpu, &d_d).map_err(fail)?, d_sum),
            (reduce::sum_kahan(gpu, &d_d).map_err(fail)?, d_sum),
            (
                reduce::min(gpu, &d_d).map_err(fail)?,
                d.iter().cloned().fold(f64::INFINITY, f64::min),
            ),
            (
                reduce::max(gpu, &d_d).map_err(fail)?,
                d.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
            ),
        ];
        for (case, (g, c)) in got.iter().enumerate() {
            ensure(g == c, || format!("n = {n}, case {case}: gpu {g}, cpu {c}"))?;
        }
    }
    Ok(())
}

/// The book's §5.4 point on the GPU: 10^7 copies of 7.0 in f32 sum to 7.0e7 exactly in a tree,
/// where a sequential f32 loop gives 77603248.
fn reduce_seven_million_sevens(gpu: &Gpu) -> TestResult {
    let n = 10_000_000;
    let x = gpu.upload(&vec![7.0f32; n]).map_err(fail)?;
    let tree = reduce::sum(gpu, &x).map_err(fail)?;
    let sequential = (0..n).fold(0.0f32, |s, _| s + 7.0);
    ensure(tree == 7.0e7 && sequential != 7.0e7, || {
        format!("tree {tree}, sequential {sequential}")
    })
}

/// Kahan inside each thread: the sum of 0.1f32 repeated is within one f32 ulp of the exact sum
/// of those values.
fn reduce_kahan_accuracy(gpu: &Gpu) -> TestResult {
    let n = 4_000_000;
    let x = gpu.upload(&vec![0.1f32; n]).map_err(fail)?;
    let exact = 0.1f32 as f64 * n as f64;
    let kahan = reduce::sum_kahan(gpu, &x).map_err(fail)? as f64;
    let ulp = f32::EPSILON as f64 * exact;
    ensure((kahan - exact).abs() <= ulp, || format!("kahan {kahan}, exact {exact}"))
}

/// The pairwise sum of n values of 0.1f32 stays within O(log n) ulps of the exact sum, where
/// a sequential f32 loop drifts by thousands (shown here too, so the test shows what it guards).
fn reduce_pairwise_accuracy(gpu: &Gpu) -> TestResult {
    for n in [1usize, 31, 4097, 4_000_001] {
        let x = gpu.upload(&vec![0.1f32; n]).map_err(fail)?;
        let exact = 0.1f32 as f64 * n as f64;
        let pairwise = reduce::sum_pairwise(gpu, &x).map_err(fail)? as f64;
        let ulp = f32::EPSILON as f64 * exact;
        // 16 sequential additions per thread, then trees of 256 per pass: at most
        // 16 + 8 log_256(n) + 8 roundings, each at most half an ulp of a partial no larger than
        // the total; 24 ulps covers 4e6 with room.
        const PAIRWISE_ULPS: f64 = 24.0;
        ensure((pairwise - exact).abs() <= PAIRWISE_ULPS * ulp, || {
            format!("n = {n}: pairwise {pairwise}, exact {exact}")
        })?;
        if n == 4_000_001 {
            let sequential = (0..n).fold(0.0f32, |s, _| s + 0.1) as f64;
            ensure((sequential - exact).abs() > 1000.0 * ulp, || {
                format!("a sequential f32 loop was expected to drift: {sequential} vs {exact}")
            })?;
        }
    }
    Ok(())
}

fn reduce_count_nonzero(gpu: &Gpu) -> TestResult {
    for &n in &SIZES {
        let v: Vec<i32> = values(n, 7).into_iter().map(|x| (x % 3) as i32).collect();
        let f: Vec<f64> = v.iter().map(|&x| x as f64).collect();
        let want = v.iter().filter(|&&x| x != 0).count() as u64;
        let got_i = reduce::count_nonzero(gpu, &gpu.upload(&v).map_err(fail)?).map_err(fail)?;
        let got_f = reduce::count_nonzero(gpu, &gpu.upload(&f).map_err(fail)?).map_err(fail)?;
        ensure(got_i == want && got_f == want, || {
            format!("n = {n}: {got_i}, {got_f}, expected {want}")
        })?;
    }
    Ok(())
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("reduce_integers_all_kinds", reduce_integers_all_kinds),
        ("reduce_block_shapes", reduce_block_shapes),
        ("reduce_grid_of_one_thread", reduce_grid_of_one_thread),
        ("reduce_floats_min_max_and_sums", reduce_floats_min_max_and_sums),
        ("reduce_seven_million_sevens", reduce_seven_million_sevens),
        ("reduce_kahan_accuracy", reduce_kahan_accuracy),
        ("reduce_count_nonzero", reduce_count_nonzero),
        ("reduce_pairwise_accuracy", reduce_pairwise_accuracy),
    ];
    common::main(vec![], gpu_tests)
}
