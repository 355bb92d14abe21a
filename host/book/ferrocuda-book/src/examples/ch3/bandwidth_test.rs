//! ch3-bandwidth-test: host-to-device and device-to-host bandwidth from pageable and from pinned
//! host memory (book §3.1.1, `program BandwidthTest`), then the same across transfer sizes, as
//! the book's Figures 3.2 and 3.3 plot (their data is not in the text).
//!
//! Pageable memory is an ordinary `Vec`: the driver first copies it into a pinned staging buffer
//! of its own (book Figure 3.1), which the pinned buffer (`cudaMallocHost`) skips.
use crate::defaults::Pick;
use crate::example::{Flag, LegacyExample, LegacySize, Options, Outcome};
use crate::examples::plot_option;
use crate::plot::{Chart, Series};
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, Result};
use ferrocuda::measure::{Stats, gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch3-bandwidth-test",
    description: "pageable vs pinned host memory, H2D and D2H, at 16 MB (book 3.1.1) and from 4 KiB to 256 MiB",
    size: Some(LegacySize {
        unit: "floats of the book's transfer (the sweep's sizes are set by --max-mib)",
        gpu: N_ELEMENTS,
        simulator: N_ELEMENTS,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: true,
    flags: &[
        plot_option::FLAG,
        Flag {
            name: "--max-mib",
            value: Some("N"),
            help: "largest transfer of the sweep, MiB (default 256; 16 on the simulator)",
            requires: None,
        },
    ],
    run,
};

/// The book's `nElements`: 4*1024*1024 floats, 16 MB (`--size` sets it).
pub const N_ELEMENTS: usize = 4 * 1024 * 1024;
/// The sweep: 4 KiB, 16 KiB, ..., up to the largest size, by factors of 4.
pub const SWEEP_MIN_BYTES: usize = 4 << 10;
pub const SWEEP_MAX_MIB: usize = 256;
/// The simulator's largest sweep size: its copies are host memcpys, so only the data path, not
/// the rate, is of interest there.
pub const SIMULATOR_SWEEP_MAX_MIB: usize = 16;

/// The peak of one round trip of `elements` `T`s: two device buffers (pageable's and
/// pinned's); on the host the source, the pageable download and two pinned buffers.
fn round_trip_memory<T>(elements: usize) -> Option<Footprint> {
    Footprint::NONE.device::<T>(2, elements)?.host::<T>(4, elements)
}

/// The run's peak: the book's transfer of `n` floats, then the sweep's largest transfer
/// (`--max-mib`, the GPU's default when not given), one after the other; `None` on overflow.
pub fn memory(options: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    let max_mib = options
        .parsed::<usize>("--max-mib")
        .ok()
        .flatten()
        .unwrap_or(SWEEP_MAX_MIB);
    let sweep = round_trip_memory::<u32>(max_mib.checked_mul(1 << 20)? / 4)?;
    Some(round_trip_memory::<f32>(n)?.max(sweep))
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
    let bytes = std::mem::size_of_val(a);

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
        bytes,
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

/// The book's output at 16 MB, then the sweep as a table (and a chart with `--plot`).
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(N_ELEMENTS)?;
    let max_mib = options
        .parsed::<usize>("--max-mib")?
        .unwrap_or(gpu.pick(SWEEP_MAX_MIB, SIMULATOR_SWEEP_MAX_MIB));
    if max_mib == 0 {
        return Err(Error::InvalidArgument("--max-mib must be at least 1".into()));
    }
    let max_bytes = max_mib.checked_mul(1 << 20).ok_or_else(|| {
        Error::InvalidArgument(format!("--max-mib {max_mib} is more bytes than this machine can count"))
    })?;

    // a_pageable(i) = i, as the book (exact in f32 up to 2^24 elements).
    let a = try_from_fn(n, |i| i as f32)?;
    let (rates, [pageable, pinned]) = round_trips(gpu, &a, options.reps)?;
    let [p_h2d, p_d2h, q_h2d, q_d2h] = rates.gb_per_s();
    println!();
    println!(" Device: {}", gpu.properties().name);
    println!(" Transfer size (MB): {:11.5}", n as f64 * 4.0 / (1024.0 * 1024.0));
    println!();
    println!(" Pageable transfers");
    println!("   Host to Device bandwidth (GB/s): {p_h2d:11.6}");
    println!("   Device to Host bandwidth (GB/s): {p_d2h:11.6}");
    println!();
    println!(" Pinned transfers");
    println!("   Host to Device bandwidth (GB/s): {q_h2d:11.6}");
    println!("   Device to Host bandwidth (GB/s): {q_d2h:11.6}");
    println!();
    if !pageable.passed() {
        println!(" *** Pageable transfers failed ***");
    }
    if !pinned.passed() {
        println!(" *** Pinned transfers failed ***");
    }
    println!(
        " (each the median of {} copies, {}; GB = 1e9 bytes)",
        options.reps,
        gpu.timing_label()
    );

    println!();
    println!(" Bandwidth (GB/s) against transfer size (book Figures 3.2 and 3.3):");
    println!(
        " {:>12} {:>13} {:>13} {:>13} {:>13}",
        "bytes", "pageable H2D", "pageable D2H", "pinned H2D", "pinned D2H"
    );
    let mut series: [Vec<(f64, f64)>; 4] = Default::default();
    let mut failures = Vec::new();
    for bytes in sweep_sizes(max_bytes) {
        // u32 elements hold their index exactly at every size, so a misplaced block shows.
        let a = try_from_fn(bytes / 4, |i| i as u32)?;
        let (rates, checks) = round_trips(gpu, &a, options.reps)?;
        let row = rates.gb_per_s();
        println!(
            " {:>12} {:>13.3} {:>13.3} {:>13.3} {:>13.3}",
            bytes, row[0], row[1], row[2], row[3]
        );
        for (s, gb) in series.iter_mut().zip(row) {
            s.push((bytes as f64, gb));
        }
        failures.extend(
            checks
                .iter()
                .filter(|c| !c.passed())
                .map(|c| format!("{} at {bytes} B", c.what)),
        );
    }
    println!(" ({})", gpu.timing_label());
    let names = ["pageable H2D", "pageable D2H", "pinned H2D", "pinned D2H"];
    let series: Vec<Series> = names
        .iter()
        .zip(series)
        .map(|(name, points)| Series::new(*name, points))
        .collect();
    let chart = Chart::new(
        format!("Host-device bandwidth, {}", gpu.properties().name),
        "transfer size (bytes)",
        "GB/s",
    )
    .log_x();
    plot_option::write_if_asked(options, &chart, &series)?;

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
