//! The library's solvers, generators and primitives on both backends: SOR, Philox, every
//! reduction kind and the count and Kahan sum, every scan operation and mode, both selections,
//! the sort of each key type, the histograms, exact.
use super::{Comparison, library, ramp_i32};
use ferrocuda::gpu::{KernelView, LaunchShape, Result};
use ferrocuda::histogram;
use ferrocuda::random::{self as rng, RandomFloat};
use ferrocuda::reduce::{self, Kind, Plan, Reduce};
use ferrocuda::scan::{self as scan, Scan};
use ferrocuda::select::{self, Select};
use ferrocuda::sor::SorReal;
use ferrocuda::sort::{self, Sort};
use ferrocuda::verify::Tolerance;

/// The SOR kernels, bit for bit, on a grid whose sides are not multiples of any block: each
/// kernel's 10 iterations and, for the split layout, its residual.
pub(super) fn sor<T: SorReal>(c: &mut Comparison) -> Result<()> {
    use ferrocuda::sor::single::{Stop, solve, solve_iterations};
    let (rows, cols) = (67, 229);
    let initial: Vec<T> = ferrocuda::sor::Problem::Harmonic.initial(rows, cols)?;
    for variant in ferrocuda::sor::Variant::ALL {
        c.compare(&format!("sor_{variant}_{}", T::NAME), Tolerance::EXACT, |gpu| {
            Ok(solve_iterations(gpu, variant, &initial, rows, cols, 1.7, 10)?.grid)
        })?;
    }
    c.compare(&format!("sor_residual_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let stop = Stop::Tolerance {
            tolerance: 1e-30,
            max_iterations: 3,
            check_every: 3,
        };
        let solution = solve(gpu, ferrocuda::sor::Variant::Split, &initial, rows, cols, 1.7, stop)?;
        Ok(vec![solution.residual.unwrap_or(f64::NAN)])
    })
}

/// The Philox kernels, bit for bit: their logarithm and sine round every operation explicitly,
/// so the simulator's result is the GPU's (a 16-byte-aligned buffer and its tail of three).
pub(super) fn philox<T: RandomFloat + Into<f64>>(c: &mut Comparison) -> Result<()> {
    let n = 100_003;
    c.compare(&format!("philox_uniform_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let mut x = gpu.zeros::<T>(n)?;
        rng::fill_uniform(gpu, 1234, 5, &mut x)?;
        gpu.download(&x)
    })?;
    c.compare(&format!("philox_normal_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let mut x = gpu.zeros::<T>(n)?;
        rng::fill_normal(gpu, 1234, 5, &mut x)?;
        gpu.download(&x)
    })
}

/// Every reduction kind on `T` over 100003 integers from 0 to 7: every partial sum stays below
/// 2^24, exact even in `f32`, so the order the blocks finish in cannot matter.
pub(super) fn reductions<T: Reduce>(c: &mut Comparison) -> Result<()> {
    let values: Vec<T> = ramp_i32(100_003)
        .into_iter()
        .map(|x| T::from_u32(x as u32 % 8))
        .collect();
    for kind in [Kind::Sum, Kind::Min, Kind::Max, Kind::SumAtomic] {
        let name = format!("reduce_{}_{}", kind.kernel_stem(), std::any::type_name::<T>());
        c.compare(&name, Tolerance::EXACT, |gpu| {
            let input = gpu.upload(&values)?;
            let mut plan = Plan::<T>::new(gpu, values.len(), reduce::THREADS_PER_BLOCK)?;
            plan.launch(gpu, kind, &input)?;
            Ok(vec![plan.result(gpu)?.to_f64()])
        })?;
    }
    Ok(())
}

/// Every scan operation and mode on `T` over 100003 integers from 0 to 7 (every partial sum below
/// 2^24, exact in `f32`, so the order in which tiles publish cannot matter), 25 tiles and a
/// partial one.
pub(super) fn scans<T: Scan + Reduce>(c: &mut Comparison) -> Result<()> {
    let values: Vec<T> = ramp_i32(100_003)
        .into_iter()
        .map(|x| T::from_u32(x as u32 % 8))
        .collect();
    for op in [scan::Op::Sum, scan::Op::Min, scan::Op::Max] {
        for mode in [scan::Mode::Inclusive, scan::Mode::Exclusive] {
            let name = format!("scan_{op:?}_{mode:?}_{}", std::any::type_name::<T>()).to_lowercase();
            c.compare(&name, Tolerance::EXACT, |gpu| {
                let input = gpu.upload(&values)?;
                let mut output = gpu.zeros::<T>(values.len())?;
                scan::Plan::new(gpu, values.len())?.scan(gpu, None, op, mode, op.identity(), &input, &mut output)?;
                Ok(gpu.download(&output)?.into_iter().map(Reduce::to_f64).collect())
            })?;
        }
    }
    Ok(())
}

/// Both selections on `T` over 100003 integers from 0 to 7 (flags: every third), the count
/// last: the kept elements' order is the input's on both backends.
pub(super) fn selections<T: Select + Reduce>(c: &mut Comparison) -> Result<()> {
    let values: Vec<T> = ramp_i32(100_003)
        .into_iter()
        .map(|x| T::from_u32(x as u32 % 8))
        .collect();
    let flags: Vec<u8> = (0..values.len()).map(|i| u8::from(i % 3 == 0)).collect();
    for flagged in [true, false] {
        let name = format!(
            "select_{}_{}",
            if flagged { "flagged" } else { "within" },
            std::any::type_name::<T>()
        );
        c.compare(&name, Tolerance::EXACT, |gpu| {
            let input = gpu.upload(&values)?;
            let mut output = gpu.zeros::<T>(values.len())?;
            let count = if flagged {
                select::flagged(gpu, &input, &gpu.upload(&flags)?, &mut output)?
            } else {
                select::within(gpu, &input, T::from_u32(2), T::from_u32(5), &mut output)?
            };
            let mut kept: Vec<f64> = gpu.download(&output)?[..count].iter().map(|x| x.to_f64()).collect();
            kept.push(count as f64);
            Ok(kept)
        })?;
    }
    Ok(())
}

/// The sort of 100003 keys with their indices alongside, the keys of `key` (a spread of the
/// type's range with repeats), sorted keys then values.
pub(super) fn sorts<K: Sort + Copy>(
    c: &mut Comparison,
    key: impl Fn(u32) -> K,
    to_f64: impl Fn(K) -> f64,
) -> Result<()> {
    let keys: Vec<K> = ramp_i32(100_003)
        .into_iter()
        .map(|x| key((x as u32).wrapping_mul(2_654_435_761) >> 20))
        .collect();
    let name = format!("sort_pairs_{}", std::any::type_name::<K>());
    c.compare(&name, Tolerance::EXACT, |gpu| {
        let keys_in = gpu.upload(&keys)?;
        let values_in = gpu.upload(&(0..keys.len() as u32).collect::<Vec<_>>())?;
        let mut keys_out = gpu.zeros::<K>(keys.len())?;
        let mut values_out = gpu.zeros::<u32>(keys.len())?;
        sort::sort_pairs(gpu, &keys_in, &values_in, &mut keys_out, &mut values_out)?;
        let mut row: Vec<f64> = gpu.download(&keys_out)?.into_iter().map(&to_f64).collect();
        row.extend(gpu.download(&values_out)?.into_iter().map(f64::from));
        Ok(row)
    })
}

/// The histograms: bytes, and even bins of each sample type, 256 of them (shared copies) and
/// 20000 (global atomics), over 100003 samples.
pub(super) fn histograms(c: &mut Comparison) -> Result<()> {
    let hashes: Vec<u32> = (0..100_003u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    let bytes: Vec<u8> = hashes.iter().map(|h| (h >> 24) as u8).collect();
    c.compare("histogram_bytes", Tolerance::EXACT, |gpu| {
        let mut counts = gpu.zeros::<u32>(256)?;
        histogram::bytes(gpu, &gpu.upload(&bytes)?, &mut counts)?;
        Ok(gpu.download(&counts)?.into_iter().map(f64::from).collect())
    })?;
    let floats: Vec<f32> = hashes.iter().map(|&h| (h >> 8) as f32 / 65536.0 - 100.0).collect();
    let ints: Vec<i32> = hashes.iter().map(|&h| (h >> 8) as i32 - 5_000_000).collect();
    for bins in [256, 20_000] {
        c.compare(&format!("histogram_even_f32_{bins}"), Tolerance::EXACT, |gpu| {
            let mut counts = gpu.zeros::<u32>(bins)?;
            histogram::even(gpu, &gpu.upload(&floats)?, -50.0, 150.0, &mut counts)?;
            Ok(gpu.download(&counts)?.into_iter().map(f64::from).collect())
        })?;
        c.compare(&format!("histogram_even_i32_{bins}"), Tolerance::EXACT, |gpu| {
            let mut counts = gpu.zeros::<u32>(bins)?;
            histogram::even(gpu, &gpu.upload(&ints)?, -1_000_000, 9_000_000, &mut counts)?;
            Ok(gpu.download(&counts)?.into_iter().map(f64::from).collect())
        })?;
        c.compare(&format!("histogram_even_u32_{bins}"), Tolerance::EXACT, |gpu| {
            let mut counts = gpu.zeros::<u32>(bins)?;
            histogram::even(gpu, &gpu.upload(&hashes)?, 1 << 30, u32::MAX, &mut counts)?;
            Ok(gpu.download(&counts)?.into_iter().map(f64::from).collect())
        })?;
    }
    Ok(())
}

/// The count of nonzeros, and the Kahan sum through the library's two reduce kernels.
pub(super) fn count_nonzero_and_kahan_sum(c: &mut Comparison) -> Result<()> {
    c.compare("count_nonzero_i32", Tolerance::EXACT, |gpu| {
        let input = gpu.upload(&ramp_i32(100_003).iter().map(|x| x % 3).collect::<Vec<_>>())?;
        Ok(vec![reduce::count_nonzero(gpu, &input)? as f64])
    })?;
    // Float sums depend on the launch shape, which `reduce::sum_kahan` takes from the SM count:
    // both backends launch the same one here.
    c.compare("reduce_sum_kahan_f32", Tolerance::EXACT, |gpu| {
        use ferrocuda::kernels::reduce::{ReduceArgs, ReduceSum, ReduceSumKahan, shared_bytes};
        let input = gpu.upload(&vec![0.1f32; 1_000_003])?;
        let mut partials = gpu.zeros::<f32>(64)?;
        let mut total = gpu.zeros::<f32>(1)?;
        let shape = |blocks| {
            LaunchShape::new((blocks, 1, 1), (reduce::THREADS_PER_BLOCK, 1, 1))
                .with_shared_bytes(shared_bytes::<f32>() as u32)
        };
        let first = ReduceArgs {
            input: input.view(),
            partials: partials.view_mut(),
        };
        library(gpu)?.launch(ReduceSumKahan, shape(64), first)?;
        let second = ReduceArgs {
            input: partials.view(),
            partials: total.view_mut(),
        };
        library(gpu)?.launch(ReduceSum, shape(1), second)?;
        gpu.download(&total)
    })
}
