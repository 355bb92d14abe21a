//! ch3-batching: one large transfer against many small ones (book §3.1.2), and an array section
//! copied row by row against one `cudaMemcpy2D` (§3.1.2.1, whose listing is missing from the
//! text; the call here follows the arguments it describes).
//!
//! Every transfer costs a fixed overhead on top of its bytes (a driver call, a DMA setup, for
//! pageable memory a staging copy), so many small transfers run far below the bandwidth of one
//! large one. An array section `a_d(r0:r1, c0:c1) = a(r0:r1, c0:c1)` is one transfer per
//! contiguous run, unless the copy is described once, with strides, as `cudaMemcpy2D` does.
use crate::defaults::Pick;
use crate::example::{Flag, LegacyExample, LegacySize, Options, Outcome};
use crate::reference::ch3::batching::copy_section;
use ferrocuda::footprint::{self, Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{Copy2d, Error, Gpu, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch3-batching",
    description: "one transfer vs many small ones, and an array section row by row vs one cudaMemcpy2D (book 3.1.2)",
    size: Some(LegacySize {
        unit: "floats transferred in part 1 (the section copies' array is set by --matrix)",
        gpu: N_ELEMENTS,
        simulator: SIMULATOR_ELEMENTS,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: true,
    flags: &[Flag {
        name: "--matrix",
        value: Some("N"),
        help: "the array of the section copies is N x N floats (default 2048; 512 on the simulator)",
        requires: None,
    }],
    run,
};

/// Elements of the batching experiment (`--size`): 16 MB of floats, as the book's transfers.
pub const N_ELEMENTS: usize = 4 * 1024 * 1024;
/// The simulator's: its copies are host memcpys.
pub const SIMULATOR_ELEMENTS: usize = 1 << 18;
/// The transfer counts tried: 1 is the batched copy, the largest moves 1 KiB per transfer at the
/// default size.
pub const TRANSFER_COUNTS: [usize; 8] = [1, 4, 16, 64, 256, 1024, 4096, 16384];
/// The section experiment's array, `N x N` floats, and the section: the middle three quarters
/// in both directions, starting one eighth in.
pub const MATRIX_N: usize = 2048;
pub const SIMULATOR_MATRIX_N: usize = 512;

/// The run's peak, one part after the other: part 1's device buffer and, on the host, the
/// pageable and pinned sources and a download, of `n` floats; part 2's three device arrays and,
/// on the host, the array, its expected section, and a download and the 2-D download, of
/// `--matrix`^2 floats (the GPU's default when not given); `None` on overflow.
pub fn memory(options: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    let m = options.parsed::<usize>("--matrix").ok().flatten().unwrap_or(MATRIX_N);
    let part1 = Footprint::NONE.device::<f32>(1, n)?.host::<f32>(3, n)?;
    let square = footprint::elements(&[m, m])?;
    let part2 = Footprint::NONE.device::<f32>(3, square)?.host::<f32>(4, square)?;
    Some(part1.max(part2))
}

/// Copies `host` into `device` as `transfers` `cudaMemcpy` calls of (nearly) equal parts.
pub fn upload_in_parts(
    gpu: &Gpu,
    host: &[f32],
    device: &mut ferrocuda::gpu::DeviceBuffer<f32>,
    transfers: usize,
) -> Result<()> {
    let part = host.len().div_ceil(transfers.max(1)).max(1);
    for (k, chunk) in host.chunks(part).enumerate() {
        gpu.upload_range(chunk, device, k * part)?;
    }
    Ok(())
}

/// The section of an `n x n` row-major array used here: rows and columns `n/8 .. n/8 + 3n/4`,
/// the same place on both sides.
pub fn section(n: usize) -> Copy2d {
    let start = n / 8;
    let extent = (3 * n / 4).max(1);
    Copy2d {
        src_offset: start * n + start,
        src_pitch: n,
        dst_offset: start * n + start,
        dst_pitch: n,
        width: extent,
        height: extent,
    }
}

pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(gpu.pick(N_ELEMENTS, SIMULATOR_ELEMENTS))?;
    let mut checks = Vec::new();

    // Part 1: the same bytes in 1 to 16384 transfers, from pageable and from pinned memory.
    let host = try_from_fn(n, |i| (i % (1 << 24)) as f32)?;
    let mut pinned = gpu.pinned::<f32>(n)?;
    pinned.as_mut_slice()?.copy_from_slice(&host);
    println!();
    println!(
        " {} bytes host to device, as one transfer or many (cudaMemcpy each):",
        n * 4
    );
    println!(
        " {:>9} {:>12} {:>13} {:>13} {:>13} {:>13} {:>16}",
        "transfers", "bytes each", "pageable ms", "pageable GB/s", "pinned ms", "pinned GB/s", "pinned us/xfer"
    );
    let mut wrong = Vec::new();
    for transfers in TRANSFER_COUNTS.into_iter().filter(|&t| t <= n) {
        let mut row = Vec::new();
        for (label, source) in [("pageable", &host[..]), ("pinned", pinned.as_slice()?)] {
            let mut a_d = gpu.zeros::<f32>(n)?;
            let stats = time_reps(gpu, options.reps, || upload_in_parts(gpu, source, &mut a_d, transfers))?;
            if gpu.download(&a_d)? != host {
                wrong.push(format!("{label} in {transfers} transfers"));
            }
            row.push(stats.median_ms);
        }
        println!(
            " {:>9} {:>12} {:>13.4} {:>13.3} {:>13.4} {:>13.3} {:>16.2}",
            transfers,
            (n * 4).div_ceil(transfers),
            row[0],
            gb_per_s(n * 4, row[0]),
            row[1],
            gb_per_s(n * 4, row[1]),
            row[1] * 1e3 / transfers as f64
        );
    }
    println!(" (median of {} runs each, {})", options.reps, gpu.timing_label());
    checks.push(Check::condition(
        &if wrong.is_empty() {
            "every batching arrives whole".to_string()
        } else {
            format!("batchings that arrived wrong: {}", wrong.join(", "))
        },
        wrong.is_empty(),
    ));

    // Part 2: an array section, row by row against one 2-D copy.
    let m = options
        .parsed::<usize>("--matrix")?
        .unwrap_or(gpu.pick(MATRIX_N, SIMULATOR_MATRIX_N));
    if m < 2 {
        return Err(Error::InvalidArgument("--matrix must be at least 2".into()));
    }
    let square = footprint::elements(&[m, m]).ok_or_else(|| {
        Error::InvalidArgument(format!("--matrix {m} makes more elements than this machine can count"))
    })?;
    let copy = section(m);
    let a = try_from_fn(square, |i| (i % (1 << 24)) as f32 + 0.5)?;
    let mut expected = try_vec(square, 0.0f32)?;
    copy_section(&a, &mut expected, copy)?;
    let section_bytes = copy.width * copy.height * 4;
    println!();
    println!(
        " Section a_d({0}:{1}, {0}:{1}) = a({0}:{1}, {0}:{1}) of a {m} x {m} float array ({section_bytes} bytes; 0-based, end exclusive, row-major):",
        m / 8,
        m / 8 + copy.width
    );
    let row_by_row = |a_d: &mut ferrocuda::gpu::DeviceBuffer<f32>| -> Result<()> {
        for r in 0..copy.height {
            let s = copy.src_offset + r * copy.src_pitch;
            gpu.upload_range(&a[s..s + copy.width], a_d, copy.dst_offset + r * copy.dst_pitch)?;
        }
        Ok(())
    };
    let mut rows: Vec<(String, f64, usize)> = Vec::new();
    let mut a_d = gpu.zeros::<f32>(m * m)?;
    let ms = time_reps(gpu, options.reps, || row_by_row(&mut a_d))?.median_ms;
    checks.push(Check::compare(
        "section, one cudaMemcpy per row",
        &gpu.download(&a_d)?,
        &expected,
        Tolerance::EXACT,
    ));
    rows.push((
        format!("one cudaMemcpy per row ({} transfers)", copy.height),
        ms,
        section_bytes,
    ));
    let mut a_d = gpu.zeros::<f32>(m * m)?;
    let ms = time_reps(gpu, options.reps, || gpu.upload_2d(&a, &mut a_d, copy))?.median_ms;
    checks.push(Check::compare(
        "section, one cudaMemcpy2D",
        &gpu.download(&a_d)?,
        &expected,
        Tolerance::EXACT,
    ));
    rows.push(("one cudaMemcpy2D, host to device".into(), ms, section_bytes));
    let mut back = try_vec(square, 0.0f32)?;
    let ms = time_reps(gpu, options.reps, || gpu.download_2d(&a_d, &mut back, copy))?.median_ms;
    checks.push(Check::compare(
        "section back, one cudaMemcpy2D",
        &back,
        &expected,
        Tolerance::EXACT,
    ));
    rows.push(("one cudaMemcpy2D, device to host".into(), ms, section_bytes));
    let mut whole = gpu.zeros::<f32>(m * m)?;
    let ms = time_reps(gpu, options.reps, || gpu.upload_range(&a, &mut whole, 0))?.median_ms;
    rows.push(("the whole array, one cudaMemcpy".into(), ms, m * m * 4));
    println!(" {:<44} {:>10} {:>10}", "copy (pageable host memory)", "ms", "GB/s");
    for (label, ms, bytes) in rows {
        println!(" {label:<44} {ms:>10.4} {:>10.3}", gb_per_s(bytes, ms));
    }
    println!(" (median of {} runs each, {})", options.reps, gpu.timing_label());
    Ok(Outcome { checks })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_is_the_middle_three_quarters() {
        let c = section(16);
        assert_eq!((c.src_offset, c.width, c.height, c.src_pitch), (2 * 16 + 2, 12, 12, 16));
        let c = section(2);
        assert_eq!((c.src_offset, c.width, c.height), (0, 1, 1));
    }
}
