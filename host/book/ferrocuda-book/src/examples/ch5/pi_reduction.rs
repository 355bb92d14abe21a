//! What the two written-out pi reductions share (`ch5-pi-reduction-twopass`,
//! `ch5-pi-reduction-atomiclock`, book §5.3): their `--blocks` and `--threads` flags, the launch
//! of a block-tree kernel, the bound on the count, and the checks of a total against the CPU's
//! count and the `pi_count` kernel's.
use crate::example::{LegacySize, Options};
use crate::examples::ch5::pi::{PiFloat, Rounding, count};
use crate::examples::ch5::pi::{SIZE_UNIT, points_memory};
use crate::reference::ch5::pi as reference;
use book_kernels::ch5::pi_reduction_twopass::shared_bytes;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};

/// The `--size` of both reductions: points up to the book's 4-byte integer counts.
pub const SIZE: LegacySize = LegacySize {
    unit: SIZE_UNIT,
    gpu: crate::examples::ch5::pi::N,
    simulator: crate::examples::ch5::pi::N,
    min: 1,
    max: MAX_POINTS,
    memory,
};

/// The most points the book's `integer` (i32) counts hold.
pub const MAX_POINTS: usize = i32::MAX as usize;

/// The peak bytes of a reduction over `n` points: the points on the device and their
/// downloaded copy for the CPU count (the partial counts are at most 1024 integers).
pub fn memory(options: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    points_memory(options.precision, n)
}

/// The launch of a block-tree kernel: `blocks` of `threads` threads, one `i32` of shared memory
/// per thread; `threads` must be a power of two (the tree halves the block) up to 1024.
pub fn tree_shape(blocks: u32, threads: u32) -> Result<LaunchShape> {
    if !threads.is_power_of_two() || threads > 1024 {
        return Err(Error::InvalidArgument(format!(
            "threads per block must be a power of two from 1 to 1024 (the tree halves the block), not {threads}"
        )));
    }
    if blocks == 0 {
        return Err(Error::InvalidArgument("at least one block is needed".into()));
    }
    Ok(LaunchShape::new((blocks, 1, 1), (threads, 1, 1)).with_shared_bytes(shared_bytes(threads as usize) as u32))
}

/// `--blocks` and `--threads`, or `default`.
pub fn shape_flags(options: &Options, default: (u32, u32)) -> Result<(u32, u32)> {
    Ok((
        options.parsed::<u32>("--blocks")?.unwrap_or(default.0),
        options.parsed::<u32>("--threads")?.unwrap_or(default.1),
    ))
}

/// The counts fit the book's `integer` (i32): at most `i32::MAX` points.
pub fn check_points(n: usize) -> Result<()> {
    if n > MAX_POINTS {
        return Err(Error::InvalidArgument(format!(
            "{n} points overflow the book's 4-byte integer counts (at most {})",
            i32::MAX
        )));
    }
    Ok(())
}

/// The checks every written-out reduction makes: its total against the CPU's count and the
/// CUF-style kernel's count of the same points.
pub fn reduction_checks<T: PiFloat>(gpu: &Gpu, what: &str, xy_d: &DeviceBuffer<T>, total: u64) -> Result<Vec<Check>> {
    let cuf = count(gpu, Rounding::Separate, xy_d)?;
    let cpu = reference::count_inside(&gpu.download(xy_d)?, T::norm2_separate);
    Ok(vec![
        Check::compare(
            &format!("{what} vs the CPU count"),
            &[total as f64],
            &[cpu as f64],
            Tolerance::EXACT,
        ),
        Check::compare(
            &format!("{what} vs the pi_count kernel"),
            &[total as f64],
            &[cuf as f64],
            Tolerance::EXACT,
        ),
    ])
}
