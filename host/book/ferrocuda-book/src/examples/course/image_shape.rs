//! What the course's image examples share (picture-kernel, color-convert, image-blur,
//! matrix-sum, convolution): `--size N` makes the image N x N, while without it each keeps its
//! own default shape, which need not be square.
use crate::example::Run;
use ferrocuda::gpu::{Error, LaunchShape, Result};

/// `(width, height)`: `--size N` x `N` when given, else `default`.
pub fn shape<A>(run: &Run<A>, default: (usize, usize)) -> (usize, usize) {
    match run.size_given {
        true => (run.size, run.size),
        false => default,
    }
}

/// `w * h`, refusing an empty image or one beyond memory.
pub fn pixels(w: usize, h: usize) -> Result<usize> {
    match w.checked_mul(h) {
        Some(n) if n > 0 => Ok(n),
        _ => Err(Error::InvalidArgument(format!(
            "a {w} x {h} image has no pixels or more than memory can address"
        ))),
    }
}

/// Blocks of `block` threads on a `grid` of blocks over a `w x h` image, refusing a grid beyond
/// what a launch holds.
pub fn grid_shape((w, h): (usize, usize), grid: (usize, usize), block: (u32, u32)) -> Result<LaunchShape> {
    match (u32::try_from(grid.0), u32::try_from(grid.1)) {
        (Ok(gx), Ok(gy)) => Ok(LaunchShape::new((gx, gy, 1), (block.0, block.1, 1))),
        _ => Err(Error::InvalidArgument(format!(
            "a {w} x {h} image needs more blocks than a grid holds"
        ))),
    }
}
