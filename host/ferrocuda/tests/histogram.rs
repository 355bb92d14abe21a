//! GPU-vs-CPU tests of the histograms (`ferrocuda::histogram`): bytes, and even bins of each
//! sample type, with bin counts that fit shared memory many times, once, and not at all.
use ferrocuda_testing as common;

use common::{GpuTest, TestResult, ensure, fail, seeded_values as values};
use ferrocuda::Gpu;
use ferrocuda::histogram::{self, Even};

/// Sizes: none, one, below and around a 16-byte chunk, and large odd ones.
const SIZES: [usize; 7] = [0, 1, 15, 17, 4099, 100_003, 1_000_003];

/// The CPU's count of each bin, with the sample type's own binning.
fn cpu_even<T: Even + Copy>(samples: &[T], lower: T, upper: T, bins: usize) -> Vec<u32> {
    let mut counts = vec![0u32; bins];
    for &x in samples {
        if let Some(bin) = x.bin(lower, upper, bins as u32) {
            counts[bin as usize] += 1;
        }
    }
    counts
}

fn check_even<T: Even + Copy>(gpu: &Gpu, samples: &[T], lower: T, upper: T, bins: usize) -> TestResult {
    let samples_d = gpu.upload(samples).map_err(fail)?;
    // Counts start as garbage: the histogram overwrites them.
    let mut counts_d = gpu.upload(&vec![7u32; bins]).map_err(fail)?;
    histogram::even(gpu, &samples_d, lower, upper, &mut counts_d).map_err(fail)?;
    let got = gpu.download(&counts_d).map_err(fail)?;
    let want = cpu_even(samples, lower, upper, bins);
    let first_wrong = got.iter().zip(&want).position(|(g, w)| g != w);
    ensure(first_wrong.is_none(), || {
        let b = first_wrong.unwrap_or(0);
        format!(
            "{} bins over {lower:?}..{upper:?} of {} {}: bin {b} is {}, expected {}",
            bins,
            samples.len(),
            std::any::type_name::<T>(),
            got[b],
            want[b]
        )
    })
}

fn histogram_bytes_every_size(gpu: &Gpu) -> TestResult {
    for (k, &n) in SIZES.iter().enumerate() {
        // Uniform, then skewed (most bytes one value: lanes queue on one bin).
        for skewed in [false, true] {
            let bytes: Vec<u8> = values(n, k as u64, 256)
                .into_iter()
                .map(|x| if skewed && x % 8 != 0 { 42 } else { x as u8 })
                .collect();
            let bytes_d = gpu.upload(&bytes).map_err(fail)?;
            let mut counts_d = gpu.upload(&[3u32; 256]).map_err(fail)?;
            histogram::bytes(gpu, &bytes_d, &mut counts_d).map_err(fail)?;
            let mut want = vec![0u32; 256];
            bytes.iter().for_each(|&b| want[b as usize] += 1);
            ensure(gpu.download(&counts_d).map_err(fail)? == want, || {
                format!("byte histogram of {n} (skewed: {skewed})")
            })?;
        }
    }
    Ok(())
}

/// Bin counts: one, a few, 256, more than one copy per warp fits (5000), and more than shared
/// memory holds (20000: global atomics).
fn histogram_even_every_type_and_bin_count(gpu: &Gpu) -> TestResult {
    for (k, &n) in SIZES.iter().enumerate() {
        let v = values(n, k as u64 + 9, 1 << 20);
        let floats: Vec<f32> = v.iter().map(|&x| x as f32 / 1000.0 - 100.0).collect();
        let ints: Vec<i32> = v.iter().map(|&x| x as i32 - 300_000).collect();
        let uints: Vec<u32> = v.iter().map(|&x| x as u32 * 4096).collect();
        for bins in [1, 7, 256, 5000, 20_000] {
            check_even(gpu, &floats, -50.0, 900.5, bins)?;
            check_even(gpu, &ints, -200_000, 700_001, bins)?;
            check_even(gpu, &uints, 1 << 20, u32::MAX, bins)?;
        }
    }
    // The whole of each integer range, where `upper - lower` needs 33 bits.
    check_even(gpu, &[i32::MIN, -1, 0, i32::MAX - 1, i32::MAX], i32::MIN, i32::MAX, 4)?;
    check_even(gpu, &[0, 1, u32::MAX - 1, u32::MAX], 0, u32::MAX, 3)?;
    // NaNs and infinities are outside every range.
    check_even(
        gpu,
        &[f32::NAN, f32::INFINITY, -f32::INFINITY, 0.5, 0.999_999_9],
        0.0,
        1.0,
        10,
    )
}

/// The `_on` form on a stream; refusals in a sentence, with the counts left as they were.
fn histogram_on_a_stream_and_refusals(gpu: &Gpu) -> TestResult {
    let stream = gpu.new_stream().map_err(fail)?;
    let samples: Vec<f32> = (0..10_000).map(|i| (i % 100) as f32).collect();
    let samples_d = gpu.upload(&samples).map_err(fail)?;
    let mut counts_d = gpu.zeros::<u32>(10).map_err(fail)?;
    histogram::even_on(gpu, Some(&stream), &samples_d, 0.0, 100.0, &mut counts_d).map_err(fail)?;
    gpu.synchronize_stream(&stream).map_err(fail)?;
    ensure(gpu.download(&counts_d).map_err(fail)? == [1000; 10], || {
        "ten bins of 0..100 on a stream".into()
    })?;
    let bytes_d = gpu.upload(&[1u8, 2, 3]).map_err(fail)?;
    let mut short_d = gpu.upload(&[5u32; 255]).map_err(fail)?;
    let mut none_d = gpu.zeros::<u32>(0).map_err(fail)?;
    let cases = [
        (
            "255 byte counts",
            histogram::bytes(gpu, &bytes_d, &mut short_d),
            "a byte histogram has 256 counts, not 255",
        ),
        (
            "no bins",
            histogram::even(gpu, &samples_d, 0.0, 1.0, &mut none_d),
            "from 1 to 2^32 - 1 bins, not 0",
        ),
        (
            "upper below lower",
            histogram::even(gpu, &samples_d, 1.0, 1.0, &mut short_d),
            "lower bound must be below its upper one: 1.0 .. 1.0",
        ),
        (
            "a NaN bound",
            histogram::even(gpu, &samples_d, f32::NAN, 1.0, &mut short_d),
            "lower bound must be below its upper one",
        ),
    ];
    for (what, result, says) in cases {
        ensure(result.as_ref().is_err_and(|e| e.to_string().contains(says)), || {
            format!("{what}: {result:?}, expected an error saying `{says}`")
        })?;
    }
    ensure(gpu.download(&short_d).map_err(fail)? == [5; 255], || {
        "a refused histogram wrote".into()
    })
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("histogram_bytes_every_size", histogram_bytes_every_size),
        (
            "histogram_even_every_type_and_bin_count",
            histogram_even_every_type_and_bin_count,
        ),
        ("histogram_on_a_stream_and_refusals", histogram_on_a_stream_and_refusals),
    ];
    common::main(vec![], gpu_tests)
}
