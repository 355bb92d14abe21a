//! What the course's image examples share (picture-kernel, color-convert, image-blur,
//! matrix-sum, convolution): `--size N` makes the image N x N, while without it each keeps its
//! own default shape, which need not be square.
use crate::example::{Run, Size};
use ferrocuda::gpu::{Error, Result};

/// `--size` of an image example: `unit` (which names the non-square default), the sides on a
/// GPU and on the simulator.
pub const fn size(unit: &'static str, gpu: usize, simulator: usize) -> Size {
    Size {
        unit,
        gpu,
        simulator,
        min: 1,
        max: usize::MAX,
    }
}

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
