//! ch3-bandwidth-test: host-to-device and device-to-host bandwidth from pageable and from pinned
//! host memory (book §3.1.1, `program BandwidthTest`), then the same across transfer sizes, as
//! the book's Figures 3.2 and 3.3 plot (their data is not in the text).
//!
//! Pageable memory is an ordinary `Vec`: the driver first copies it into a pinned staging buffer
//! of its own (book Figure 3.1), which the pinned buffer (`cudaMallocHost`) skips.
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::plot_option::PlotOption;
use crate::plot::{Chart, Series};
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Element, Gpu, Result};
use ferrocuda::measure::{Stats, gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

/// The book's `nElements`: 4*1024*1024 floats, 16 MB (`--size` sets it).
pub const N_ELEMENTS: usize = 4 * 1024 * 1024;
/// The sweep: 4 KiB, 16 KiB, ..., up to the largest size, by factors of 4.
pub const SWEEP_MIN_BYTES: usize = 4 << 10;
pub const SWEEP_MAX_MIB: usize = 256;
/// The simulator's largest sweep size: its copies are host memcpys, so only the data path, not
/// the rate, is of interest there.
pub const SIMULATOR_SWEEP_MAX_MIB: usize = 16;
/// The four transfers, in the order of [`Rates::gb_per_s`].
const TRANSFERS: [&str; 4] = ["pageable H2D", "pageable D2H", "pinned H2D", "pinned D2H"];

/// ch3-bandwidth-test.
pub struct Ch3BandwidthTest;

/// The options of ch3-bandwidth-test.
#[derive(clap::Args, Clone, Debug)]
pub struct Ch3BandwidthTestOptions {
    #[command(flatten)]
    pub plot: PlotOption,
    /// largest transfer of the sweep, MiB (default 256; 16 on the simulator)
    #[arg(long, value_name = "N", value_parser = max_mib)]
    pub max_mib: Option<usize>,
}

/// A `--max-mib` value: at least 1, and a byte count this machine can hold.
fn max_mib(value: &str) -> std::result::Result<usize, String> {
    match value.parse::<usize>().map_err(|e| e.to_string())? {
        0 => Err("--max-mib must be at least 1".into()),
        mib if mib.checked_mul(1 << 20).is_none() => {
            Err(format!("--max-mib {mib} is more bytes than this machine can count"))
        }
        mib => Ok(mib),
    }
}

impl Example for Ch3BandwidthTest {
    const ID: &'static str = "ch3-bandwidth-test";
    const DESCRIPTION: &'static str =
        "pageable vs pinned host memory, H2D and D2H, at 16 MB (book 3.1.1) and from 4 KiB to 256 MiB";
    const SIZE: Option<Size> = Some(Size::new(
        "floats of the book's transfer (the sweep's sizes are set by --max-mib)",
        N_ELEMENTS,
        N_ELEMENTS,
    ));
    const REPS: bool = true;
    type Args = Ch3BandwidthTestOptions;

    /// The run's peak: the book's transfer of `n` floats, then the sweep's largest transfer
    /// (`--max-mib`, the GPU's default when not given), one after the other; `None` on overflow.
    fn memory(run: &Run<Ch3BandwidthTestOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let max_mib = run.args.max_mib.unwrap_or(SWEEP_MAX_MIB);
        let sweep = round_trip_memory::<u32>(max_mib.checked_mul(1 << 20)? / 4)?;
        Some(round_trip_memory::<f32>(run.size)?.max(sweep))
    }

    /// The book's output at 16 MB, then the sweep as a table (and a chart with `--plot`).
    fn run(gpu: &Gpu, run: &Run<Ch3BandwidthTestOptions>) -> Result<Outcome> {
        let n = run.size;
        let max_mib = run
            .args
            .max_mib
            .unwrap_or(gpu.pick(SWEEP_MAX_MIB, SIMULATOR_SWEEP_MAX_MIB));
        // a_pageable(i) = i, as the book (exact in f32 up to 2^24 elements).
        let a = try_from_fn(n, |i| i as f32)?;
        let (rates, [pageable, pinned]) = round_trips(gpu, &a, run.reps)?;
        let [p_h2d, p_d2h, q_h2d, q_d2h] = rates.gb_per_s();
        println!();
        println!(" Device: {}", gpu.properties().name);
        println!(" Transfer size (MB): {:11.5}", n as f64 * 4.0 / (1024.0 * 1024.0));
        for (kind, h2d, d2h) in [("Pageable", p_h2d, p_d2h), ("Pinned", q_h2d, q_d2h)] {
            println!();
            println!(" {kind} transfers");
            println!("   Host to Device bandwidth (GB/s): {h2d:11.6}");
            println!("   Device to Host bandwidth (GB/s): {d2h:11.6}");
        }
        println!();
        for (kind, check) in [("Pageable", &pageable), ("Pinned", &pinned)] {
            if !check.passed() {
                println!(" *** {kind} transfers failed ***");
            }
        }
        println!(
            " (each the median of {} copies, {}; GB = 1e9 bytes)",
            run.reps,
            gpu.timing_label()
        );

        println!();
        println!(" Bandwidth (GB/s) against transfer size (book Figures 3.2 and 3.3):");
        println!(
            " {:>12} {:>13} {:>13} {:>13} {:>13}",
            "bytes", TRANSFERS[0], TRANSFERS[1], TRANSFERS[2], TRANSFERS[3]
        );
        let mut series: [Vec<(f64, f64)>; 4] = Default::default();
        let mut failures = Vec::new();
        for bytes in sweep_sizes(max_mib << 20) {
            // u32 elements hold their index exactly at every size, so a misplaced block shows.
            let a = try_from_fn(bytes / 4, |i| i as u32)?;
            let (rates, checks) = round_trips(gpu, &a, run.reps)?;
            let row = rates.gb_per_s();
            println!(
                " {:>12} {:>13.3} {:>13.3} {:>13.3} {:>13.3}",
                bytes, row[0], row[1], row[2], row[3]
            );
            for (s, gb) in series.iter_mut().zip(row) {
                s.push((bytes as f64, gb));
            }
            let failed = checks.iter().filter(|c| !c.passed());
            failures.extend(failed.map(|c| format!("{} at {bytes} B", c.what)));
        }
        println!(" ({})", gpu.timing_label());
        let series: Vec<Series> = TRANSFERS
            .into_iter()
            .zip(series)
            .map(|(n, p)| Series::new(n, p))
            .collect();
        let chart = Chart::new(
            format!("Host-device bandwidth, {}", gpu.properties().name),
            "transfer size (bytes)",
            "GB/s",
        )
        .log_x();
        run.args.plot.write(&chart, &series)?;

        let sweep = Check::condition(
            &if failures.is_empty() {
                "sweep round trips, pageable and pinned, every size".to_string()
            } else {
                format!("sweep round trips: {}", failures.join(", "))
            },
            failures.is_empty(),
        );
        Ok(Outcome {
            checks: vec![pageable, pinned, sweep],
        })
    }
}

/// The peak of one round trip of `elements` `T`s: two device buffers (pageable's and
/// pinned's); on the host the source, the pageable download and two pinned buffers.
fn round_trip_memory<T>(elements: usize) -> Option<Footprint> {
    Footprint::NONE.device::<T>(2, elements)?.host::<T>(4, elements)
}

/// The four transfers, each the median of repeated event timings.
#[derive(Clone, Copy, Debug)]
pub struct Rates {
    pub bytes: usize,
    pub pageable_h2d: Stats,
    pub pageable_d2h: Stats,
    pub pinned_h2d: Stats,
    pub pinned_d2h: Stats,
}

impl Rates {
    /// The four bandwidths, GB/s (1e9 bytes), in the order of the fields.
    pub fn gb_per_s(&self) -> [f64; 4] {
        [self.pageable_h2d, self.pageable_d2h, self.pinned_h2d, self.pinned_d2h]
            .map(|s| gb_per_s(self.bytes, s.median_ms))
    }
}

/// The round trips `a -> a_d -> b`, pageable then pinned, each copy timed `reps` times after one
/// warm-up; returns the rates and one check per kind of memory (`b == a`, bit for bit).
pub fn round_trips<T: Element + Into<f64>>(gpu: &Gpu, a: &[T], reps: usize) -> Result<(Rates, [Check; 2])> {
    let n = a.len();
    let mut a_d: DeviceBuffer<T> = gpu.zeros(n)?;
    let mut b = gpu.download(&a_d)?;
    let pageable_h2d = time_reps(gpu, reps, || gpu.upload_into(a, &mut a_d))?;
    let pageable_d2h = time_reps(gpu, reps, || gpu.download_into(&a_d, &mut b))?;
    let pageable = Check::compare("pageable round trip", &b, a, Tolerance::EXACT);

    // A fresh device buffer: the pinned check must not pass on what the pageable copy left.
    let mut a_d: DeviceBuffer<T> = gpu.zeros(n)?;
    let mut a_pinned = gpu.pinned::<T>(n)?;
    a_pinned.as_mut_slice()?.copy_from_slice(a);
    let mut b_pinned = gpu.pinned::<T>(n)?;
    let pinned_h2d = time_reps(gpu, reps, || gpu.upload_pinned(&a_pinned, &mut a_d))?;
    let pinned_d2h = time_reps(gpu, reps, || gpu.download_pinned(&a_d, &mut b_pinned))?;
    let pinned = Check::compare("pinned round trip", b_pinned.as_slice()?, a, Tolerance::EXACT);

    let rates = Rates {
        bytes: size_of_val(a),
        pageable_h2d,
        pageable_d2h,
        pinned_h2d,
        pinned_d2h,
    };
    Ok((rates, [pageable, pinned]))
}

/// The sweep's sizes, bytes: `SWEEP_MIN_BYTES` times powers of 4 up to `max_bytes`.
pub fn sweep_sizes(max_bytes: usize) -> Vec<usize> {
    std::iter::successors(Some(SWEEP_MIN_BYTES), |&b| b.checked_mul(4))
        .take_while(|&b| b <= max_bytes)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sweep_runs_from_4_kib_by_factors_of_4() {
        let sizes = sweep_sizes(256 << 20);
        assert_eq!(sizes.first(), Some(&4096));
        assert_eq!(sizes.last(), Some(&(256 << 20)));
        assert_eq!(sizes.len(), 9);
        assert!(sweep_sizes(1000).is_empty());
    }
}
