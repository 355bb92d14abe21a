//! What the two written-out pi reductions share (`ch5-pi-reduction-twopass`,
//! `ch5-pi-reduction-atomiclock`, book §5.3): their `--size`, the launch of a block-tree kernel,
//! the bound on the count, the points, and the row, time and checks of a total against the
//! CPU's count and the `pi_count` kernel's.
use crate::example::{Outcome, Size};
use crate::examples::ch5::generator::RandomOptions;
use crate::examples::ch5::pi::{N, PiFloat, Rounding, SEED, SIZE_UNIT, count, estimate, heading, points, row};
use crate::reference::ch5::pi as reference;
use book_kernels::ch5::pi_reduction_twopass::shared_bytes;
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};

/// The `--size` of both reductions: points up to the book's 4-byte integer counts.
pub const SIZE: Size = Size::new(SIZE_UNIT, N, N).at_most(MAX_POINTS);

/// The most points the book's `integer` (i32) counts hold.
pub const MAX_POINTS: usize = i32::MAX as usize;

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

/// A reduction's points: `n` from the generator `random` asks for, after the heading.
pub fn reduction_points<T: PiFloat>(gpu: &Gpu, n: usize, random: &RandomOptions) -> Result<DeviceBuffer<T>> {
    let (generator, seed) = random.on(gpu, SEED);
    println!("{} ({} generator, seed {seed})", heading::<T>(), generator.name());
    points::<T>(gpu, generator, seed, n)
}

/// A reduction's result over the points `xy_d`: the book's row, the median time `ms` of the
/// `launches`, and the checks every written-out reduction makes: its `total` (`what`) against the
/// CPU's count and the CUF-style kernel's count of the same points.
pub fn report<T: PiFloat>(
    gpu: &Gpu,
    xy_d: &DeviceBuffer<T>,
    (what, total): (&str, u64),
    launches: &str,
    ms: f64,
) -> Result<Outcome> {
    let n = xy_d.len() / 2;
    let (pi, error) = estimate::<T>(total, n);
    println!("{}", row(n, pi, error));
    println!(" {launches}: {ms:.4} ms ({})", gpu.timing_label());
    let cuf = count(gpu, Rounding::Separate, xy_d)?;
    let cpu = reference::count_inside(&gpu.download(xy_d)?, T::norm2_separate);
    let check = |against: &str, expected: u64| {
        Check::compare(
            &format!("{what} vs {against}"),
            &[total as f64],
            &[expected as f64],
            Tolerance::EXACT,
        )
    };
    Ok(Outcome {
        checks: vec![check("the CPU count", cpu), check("the pi_count kernel", cuf)],
    })
}
