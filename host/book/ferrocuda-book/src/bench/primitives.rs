//! The library's device-wide primitives (`ferrocuda::scan`, `select`, `sort`, `histogram`)
//! against CUB, what a CUDA C user would call instead: `nvcc/cub/primitives.cu`, built by nvcc at
//! bench time and run in the same bench run, times CUB on the same inputs (element `i` is
//! `i % 4`; sort keys and histogram samples from `i * 2654435761`), sizes and repetitions. Both
//! report the median of event timings of the primitive alone, its temporary storage allocated
//! before.
use super::Settings;
use crate::nvcc::build_program;
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::histogram::{self, EvenBins};
use ferrocuda::measure::gb_per_s;
use ferrocuda::reduce::Reduce;
use ferrocuda::scan::{Mode, Op, Plan, Scan};
use ferrocuda::select::{self, Select};
use ferrocuda::sort::{self, Order};
use std::process::Command;

/// The sizes of the table: 2^20 (the working set fits in L2) and 2^28 (it does not).
pub const SIZES: [usize; 2] = [1 << 20, 1 << 28];

/// One CUB timing: primitive, type, elements, median ms.
struct CubTiming {
    primitive: String,
    ty: String,
    n: usize,
    median_ms: f64,
}

/// Builds and runs the CUB program; its timings, or why there are none.
fn cub_timings(reps: usize) -> std::result::Result<Vec<CubTiming>, String> {
    let source = include_str!("../../nvcc/cub/primitives.cu");
    let (exe, _) = build_program("cub/primitives.cu", source).map_err(|e| e.to_string())?;
    let output = Command::new(&exe)
        .arg(reps.to_string())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", exe.display()))?;
    if !output.status.success() {
        return Err(format!(
            "{} failed: {}",
            exe.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| match line.split_whitespace().collect::<Vec<_>>()[..] {
            [primitive, ty, n, ms] => Ok(CubTiming {
                primitive: primitive.into(),
                ty: ty.into(),
                n: n.parse().map_err(|e| format!("`{line}`: {e}"))?,
                median_ms: ms.parse().map_err(|e| format!("`{line}`: {e}"))?,
            }),
            _ => Err(format!("cannot read the CUB program's line `{line}`")),
        })
        .collect()
}

/// One row of the table: the library's median time for `primitive` on `n` elements of `ty`, and
/// the bytes it reads and writes.
struct Row {
    primitive: &'static str,
    ty: &'static str,
    n: usize,
    bytes: usize,
    median_ms: f64,
}

/// The bench's input: element `i` is `i % 4`.
fn input<T: Reduce>(n: usize) -> Vec<T> {
    (0..n).map(|i| T::from_u32((i % 4) as u32)).collect()
}

/// Times the library's inclusive sum of `n` elements of `T` (`i % 4`), after checking it against
/// the CPU when every partial sum is exact, that is when the total, about `1.5 n`, stays below
/// `exact_below` (2^24 for f32, 2^31 for i32).
fn inclusive_sum<T: Scan + Reduce>(
    gpu: &Gpu,
    ty: &'static str,
    n: usize,
    reps: usize,
    exact_below: usize,
) -> Result<Row> {
    let input = gpu.upload(&input::<T>(n))?;
    let mut output = gpu.zeros::<T>(n)?;
    let mut plan = Plan::<T>::new(gpu, n)?;
    let mut scan = |output: &mut _| plan.scan(gpu, None, Op::Sum, Mode::Inclusive, T::ZERO, &input, output);
    scan(&mut output)?;
    let got = gpu.download(&output)?;
    if n / 2 * 3 < exact_below {
        let mut running = 0u64;
        let wrong = (0..n).find(|&i| {
            running += (i % 4) as u64;
            got[i].to_f64() != running as f64
        });
        if let Some(i) = wrong {
            return Err(Error::Io(format!(
                "the inclusive sum of {n} elements differs from the CPU at element {i}"
            )));
        }
    }
    let (stats, _) = super::interleaved(gpu, reps, false, |_| scan(&mut output))?;
    Ok(Row {
        primitive: "scan_inclusive_sum",
        ty,
        n,
        bytes: 2 * n * size_of::<T>(),
        median_ms: stats.median_ms,
    })
}

/// Times the library's selection of the elements in `0..=1` from `n` elements of `T` (`i % 4`:
/// half are kept), after checking the kept elements and their count against the CPU.
fn select_within<T: Select + Reduce>(gpu: &Gpu, ty: &'static str, n: usize, reps: usize) -> Result<Row> {
    let input = gpu.upload(&input::<T>(n))?;
    let mut output = gpu.zeros::<T>(n)?;
    let mut plan = select::Plan::new(gpu, n)?;
    let (low, high) = (T::from_u32(0), T::from_u32(1));
    plan.within(gpu, None, low, high, &input, &mut output)?;
    let kept = (n / 4) * 2 + (n % 4).min(2);
    let count = plan.count(gpu)?;
    let got = gpu.download(&output)?;
    let wrong = (0..count).find(|&i| got[i].to_f64() != (i % 2) as f64);
    if count != kept || wrong.is_some() {
        return Err(Error::Io(format!(
            "the selection from {n} elements kept {count} (expected {kept}), first wrong at {wrong:?}"
        )));
    }
    let (stats, _) = super::interleaved(gpu, reps, false, |_| {
        plan.within(gpu, None, low, high, &input, &mut output)
    })?;
    Ok(Row {
        primitive: "select_within",
        ty,
        n,
        bytes: (n + kept) * size_of::<T>(),
        median_ms: stats.median_ms,
    })
}

/// The bench's sort keys: `i * 2654435761` (Knuth's multiplicative hash), distinct, every
/// digit of every pass even over the input.
fn sort_keys(n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(KEY_FACTOR)).collect()
}

/// The factor of the sort keys.
const KEY_FACTOR: u32 = 2_654_435_761;

/// Times the library's sort of `n` `u32` keys (with their indices as values when `pairs`), after
/// checking it against the CPU.
fn sort_u32(gpu: &Gpu, n: usize, reps: usize, pairs: bool) -> Result<Row> {
    let keys = sort_keys(n);
    let keys_in = gpu.upload(&keys)?;
    let values_in = gpu.upload(&(0..n as u32).collect::<Vec<_>>())?;
    let mut keys_out = gpu.zeros::<u32>(n)?;
    let mut values_out = gpu.zeros::<u32>(if pairs { n } else { 0 })?;
    let mut plan = sort::Plan::<u32>::new(gpu, n)?;
    let mut run = |keys_out: &mut _, values_out: &mut _| {
        if pairs {
            plan.sort_pairs(gpu, None, Order::Ascending, &keys_in, &values_in, keys_out, values_out)
        } else {
            plan.sort_keys(gpu, None, Order::Ascending, &keys_in, keys_out)
        }
    };
    run(&mut keys_out, &mut values_out)?;
    // Each key is `i * K` for its own `i < n` (K odd: invertible mod 2^32), so the output is right
    // when its keys rise strictly, each comes from an `i < n`, and its value is that `i`: O(n),
    // where a CPU sort of 2^28 keys would take the bench's time.
    let inverse = (0..5).fold(KEY_FACTOR, |x: u32, _| {
        x.wrapping_mul(2u32.wrapping_sub(KEY_FACTOR.wrapping_mul(x)))
    });
    let got_keys = gpu.download(&keys_out)?;
    let got_values = if pairs { gpu.download(&values_out)? } else { Vec::new() };
    let wrong = (0..n).find(|&p| {
        let i = got_keys[p].wrapping_mul(inverse);
        (i as usize) >= n || (p > 0 && got_keys[p] <= got_keys[p - 1]) || (pairs && got_values[p] != i)
    });
    if let Some(p) = wrong {
        return Err(Error::Io(format!(
            "the sort of {n} keys (pairs: {pairs}) is wrong at element {p}"
        )));
    }
    let (stats, _) = super::interleaved(gpu, reps, false, |_| run(&mut keys_out, &mut values_out))?;
    Ok(Row {
        primitive: if pairs { "sort_pairs" } else { "sort_keys" },
        ty: "u32",
        n,
        bytes: 2 * n * if pairs { 8 } else { 4 },
        median_ms: stats.median_ms,
    })
}

/// The histograms' samples, from `h = i * 2654435761`: bytes `h >> 24`, `f32` `(h >> 8) / 2^22`
/// in `0..4`, `i32` `h >> 8` in `0..2^24`, each even over 256 bins.
fn histogram_samples(n: usize) -> (Vec<u8>, Vec<f32>, Vec<i32>) {
    let hashes = (0..n as u32).map(|i| i.wrapping_mul(KEY_FACTOR));
    let bytes = hashes.clone().map(|h| (h >> 24) as u8).collect();
    let floats = hashes.clone().map(|h| (h >> 8) as f32 / 4_194_304.0).collect();
    let ints = hashes.map(|h| (h >> 8) as i32).collect();
    (bytes, floats, ints)
}

/// Times a histogram of `n` samples of `bytes_each` bytes into 256 bins with `count`, after
/// checking its counts against the CPU's (`want`).
fn histogram_row(
    gpu: &Gpu,
    (primitive, ty, n, bytes_each): (&'static str, &'static str, usize, usize),
    reps: usize,
    want: &[u32],
    mut count: impl FnMut(&mut ferrocuda::DeviceBuffer<u32>) -> Result<()>,
) -> Result<Row> {
    let mut counts = gpu.zeros::<u32>(256)?;
    count(&mut counts)?;
    if gpu.download(&counts)? != want {
        return Err(Error::Io(format!(
            "the {ty} histogram of {n} samples differs from the CPU"
        )));
    }
    let (stats, _) = super::interleaved(gpu, reps, false, |_| count(&mut counts))?;
    Ok(Row {
        primitive,
        ty,
        n,
        bytes: n * bytes_each,
        median_ms: stats.median_ms,
    })
}

/// The three histogram rows: bytes, and 256 even bins of `f32` and of `i32`.
fn histograms(gpu: &Gpu, n: usize, reps: usize) -> Result<[Row; 3]> {
    let (bytes, floats, ints) = histogram_samples(n);
    let cpu = |bins: &mut dyn Iterator<Item = usize>| {
        let mut counts = vec![0u32; 256];
        bins.for_each(|b| counts[b] += 1);
        counts
    };
    let bytes_d = gpu.upload(&bytes)?;
    let want = cpu(&mut bytes.iter().map(|&b| b as usize));
    let byte_row = histogram_row(gpu, ("histogram_bytes", "u8", n, 1), reps, &want, |counts| {
        histogram::bytes(gpu, &bytes_d, counts)
    })?;
    let floats_d = gpu.upload(&floats)?;
    let want = cpu(&mut floats.iter().map(|x| x.bin(0.0, 4.0, 256).map_or(0, |b| b as usize)));
    let float_row = histogram_row(gpu, ("histogram_even", "f32", n, 4), reps, &want, |counts| {
        histogram::even(gpu, &floats_d, 0.0, 4.0, counts)
    })?;
    let ints_d = gpu.upload(&ints)?;
    let want = cpu(&mut ints.iter().map(|x| x.bin(0, 1 << 24, 256).map_or(0, |b| b as usize)));
    let int_row = histogram_row(gpu, ("histogram_even", "i32", n, 4), reps, &want, |counts| {
        histogram::even(gpu, &ints_d, 0, 1 << 24, counts)
    })?;
    Ok([byte_row, float_row, int_row])
}

/// The table: each primitive, type and size, in GB/s (bytes read and written), against memcpy and
/// CUB.
pub fn run(gpu: &Gpu, settings: &Settings, memcpy: f64) -> Result<()> {
    let cub = cub_timings(settings.reps);
    if let Err(e) = &cub {
        println!("CUB: not measured ({e})");
    }
    println!(
        "{:<24} {:>4} {:>11} {:>10} {:>9} {:>10} {:>9}",
        "primitive", "type", "elements", "Rust GB/s", "/memcpy", "CUB GB/s", "Rust/CUB"
    );
    let reps = settings.reps;
    for n in SIZES {
        let rows = [
            inclusive_sum::<f32>(gpu, "f32", n, reps, 1 << 24)?,
            inclusive_sum::<i32>(gpu, "i32", n, reps, 1 << 31)?,
            select_within::<f32>(gpu, "f32", n, reps)?,
            select_within::<i32>(gpu, "i32", n, reps)?,
            sort_u32(gpu, n, reps, false)?,
            sort_u32(gpu, n, reps, true)?,
        ];
        for row in rows.into_iter().chain(histograms(gpu, n, reps)?) {
            let rust = gb_per_s(row.bytes, row.median_ms);
            let theirs = cub.as_ref().ok().and_then(|timings| {
                timings
                    .iter()
                    .find(|t| t.primitive == row.primitive && t.ty == row.ty && t.n == row.n)
            });
            let (cub_gb_per_s, ratio) = match theirs {
                Some(t) => {
                    let g = gb_per_s(row.bytes, t.median_ms);
                    (format!("{g:.0}"), format!("{:.3}", rust / g))
                }
                None => ("-".into(), "-".into()),
            };
            println!(
                "{:<24} {:>4} {:>11} {rust:>10.0} {:>9.3} {cub_gb_per_s:>10} {ratio:>9}",
                row.primitive,
                row.ty,
                format!("2^{}", row.n.trailing_zeros()),
                rust / memcpy
            );
        }
    }
    println!(
        "(median of {} runs each; GB = 1e9 bytes read + written, a sort's keys (and values) counted once each way, a histogram's samples read; CUB from the CUDA toolkit's nvcc, in the same bench run)",
        settings.reps
    );
    Ok(())
}
