//! ch3-batching: one large transfer against many small ones (book §3.1.2), and an array section
//! copied row by row against one `cudaMemcpy2D` (§3.1.2.1, whose listing is missing from the
//! text; the call here follows the arguments it describes).
//!
//! Every transfer costs a fixed overhead on top of its bytes (a driver call, a DMA setup, for
//! pageable memory a staging copy), so many small transfers run far below the bandwidth of one
//! large one. An array section `a_d(r0:r1, c0:c1) = a(r0:r1, c0:c1)` is one transfer per
//! contiguous run, unless the copy is described once, with strides, as `cudaMemcpy2D` does.
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::reference::ch3::batching::copy_section;
use ferrocuda::footprint::{self, Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{Copy2d, DeviceBuffer, Gpu, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

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

/// ch3-batching.
pub struct Ch3Batching;

/// The options of ch3-batching.
#[derive(clap::Args, Clone, Debug)]
pub struct Ch3BatchingOptions {
    /// the array of the section copies is N x N floats (default 2048; 512 on the simulator)
    #[arg(long, value_name = "N", value_parser = matrix)]
    pub matrix: Option<usize>,
}

/// A `--matrix` value: at least 2, and a square whose elements this machine can count.
fn matrix(value: &str) -> std::result::Result<usize, String> {
    match value.parse::<usize>().map_err(|e| e.to_string())? {
        m if m < 2 => Err("--matrix must be at least 2".into()),
        m if footprint::elements(&[m, m]).is_none() => {
            Err(format!("--matrix {m} makes more elements than this machine can count"))
        }
        m => Ok(m),
    }
}

impl Example for Ch3Batching {
    const ID: &'static str = "ch3-batching";
    const DESCRIPTION: &'static str =
        "one transfer vs many small ones, and an array section row by row vs one cudaMemcpy2D (book 3.1.2)";
    const SIZE: Option<Size> = Some(Size::new(
        "floats transferred in part 1 (the section copies' array is set by --matrix)",
        N_ELEMENTS,
        SIMULATOR_ELEMENTS,
    ));
    const REPS: bool = true;
    type Args = Ch3BatchingOptions;

    /// The run's peak, one part after the other: part 1's device buffer and, on the host, the
    /// pageable and pinned sources and a download, of `n` floats; part 2's three device arrays
    /// and, on the host, the array, its expected section, and a download and the 2-D download,
    /// of `--matrix`^2 floats (the GPU's default when not given); `None` on overflow.
    fn memory(run: &Run<Ch3BatchingOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let m = run.args.matrix.unwrap_or(MATRIX_N);
        let part1 = Footprint::NONE.device::<f32>(1, run.size)?.host::<f32>(3, run.size)?;
        let square = footprint::elements(&[m, m])?;
        let part2 = Footprint::NONE.device::<f32>(3, square)?.host::<f32>(4, square)?;
        Some(part1.max(part2))
    }

    fn run(gpu: &Gpu, run: &Run<Ch3BatchingOptions>) -> Result<Outcome> {
        let m = run.args.matrix.unwrap_or(gpu.pick(MATRIX_N, SIMULATOR_MATRIX_N));
        let mut checks = vec![batches(gpu, run.size, run.reps)?];
        checks.extend(sections(gpu, m, run.reps)?);
        Ok(Outcome { checks })
    }
}

/// Part 1: the same `n` floats in 1 to 16384 transfers, from pageable and from pinned memory;
/// the check that every batching arrives whole.
fn batches(gpu: &Gpu, n: usize, reps: usize) -> Result<Check> {
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
        let mut ms = [0.0; 2];
        for (k, (label, source)) in [("pageable", &host[..]), ("pinned", pinned.as_slice()?)]
            .into_iter()
            .enumerate()
        {
            let mut a_d = gpu.zeros::<f32>(n)?;
            ms[k] = time_reps(gpu, reps, || upload_in_parts(gpu, source, &mut a_d, transfers))?.median_ms;
            if gpu.download(&a_d)? != host {
                wrong.push(format!("{label} in {transfers} transfers"));
            }
        }
        println!(
            " {:>9} {:>12} {:>13.4} {:>13.3} {:>13.4} {:>13.3} {:>16.2}",
            transfers,
            (n * 4).div_ceil(transfers),
            ms[0],
            gb_per_s(n * 4, ms[0]),
            ms[1],
            gb_per_s(n * 4, ms[1]),
            ms[1] * 1e3 / transfers as f64
        );
    }
    println!(" (median of {reps} runs each, {})", gpu.timing_label());
    Ok(Check::condition(
        &if wrong.is_empty() {
            "every batching arrives whole".to_string()
        } else {
            format!("batchings that arrived wrong: {}", wrong.join(", "))
        },
        wrong.is_empty(),
    ))
}

/// Part 2: the section of an `m x m` array, row by row against one 2-D copy each way, and the
/// whole array in one copy; the checks of the three section copies.
fn sections(gpu: &Gpu, m: usize, reps: usize) -> Result<Vec<Check>> {
    let copy = section(m);
    let a = try_from_fn(m * m, |i| (i % (1 << 24)) as f32 + 0.5)?;
    let mut expected = try_vec(m * m, 0.0f32)?;
    copy_section(&a, &mut expected, copy)?;
    let section_bytes = copy.width * copy.height * 4;
    println!();
    println!(
        " Section a_d({0}:{1}, {0}:{1}) = a({0}:{1}, {0}:{1}) of a {m} x {m} float array ({section_bytes} bytes; 0-based, end exclusive, row-major):",
        m / 8,
        m / 8 + copy.width
    );
    let row_by_row = |a_d: &mut DeviceBuffer<f32>| -> Result<()> {
        for r in 0..copy.height {
            let s = copy.src_offset + r * copy.src_pitch;
            gpu.upload_range(&a[s..s + copy.width], a_d, copy.dst_offset + r * copy.dst_pitch)?;
        }
        Ok(())
    };
    let mut checks = Vec::new();
    let mut check = |what: &str, got: &[f32]| checks.push(Check::compare(what, got, &expected, Tolerance::EXACT));
    let mut a_d = gpu.zeros::<f32>(m * m)?;
    let per_row = time_reps(gpu, reps, || row_by_row(&mut a_d))?.median_ms;
    check("section, one cudaMemcpy per row", &gpu.download(&a_d)?);
    let mut a_d = gpu.zeros::<f32>(m * m)?;
    let up = time_reps(gpu, reps, || gpu.upload_2d(&a, &mut a_d, copy))?.median_ms;
    check("section, one cudaMemcpy2D", &gpu.download(&a_d)?);
    let mut back = try_vec(m * m, 0.0f32)?;
    let down = time_reps(gpu, reps, || gpu.download_2d(&a_d, &mut back, copy))?.median_ms;
    check("section back, one cudaMemcpy2D", &back);
    let mut whole = gpu.zeros::<f32>(m * m)?;
    let all = time_reps(gpu, reps, || gpu.upload_range(&a, &mut whole, 0))?.median_ms;
    println!(" {:<44} {:>10} {:>10}", "copy (pageable host memory)", "ms", "GB/s");
    for (label, ms, bytes) in [
        (
            format!("one cudaMemcpy per row ({} transfers)", copy.height),
            per_row,
            section_bytes,
        ),
        ("one cudaMemcpy2D, host to device".into(), up, section_bytes),
        ("one cudaMemcpy2D, device to host".into(), down, section_bytes),
        ("the whole array, one cudaMemcpy".into(), all, m * m * 4),
    ] {
        println!(" {label:<44} {ms:>10.4} {:>10.3}", gb_per_s(bytes, ms));
    }
    println!(" (median of {reps} runs each, {})", gpu.timing_label());
    Ok(checks)
}

/// Copies `host` into `device` as `transfers` `cudaMemcpy` calls of (nearly) equal parts.
pub fn upload_in_parts(gpu: &Gpu, host: &[f32], device: &mut DeviceBuffer<f32>, transfers: usize) -> Result<()> {
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
