//! The Philox streams of `ferrocuda::random` on the CPU, with rayon: each task computes four
//! elements with the very functions the kernels call (`ferrocuda_device::random::stream`), so the
//! results match the GPU's bit for bit.
//!
//! Bad input is refused with [`Error::InvalidArgument`], never a panic: more elements than
//! memory can hold, or a stream that would run past the last Philox block (`2^64 - 1`).
use crate::gpu::{Error, Result};
use ferrocuda_device::random::PhiloxReal;
use ferrocuda_device::random::philox::Key;
use rayon::prelude::*;

/// Elements `0 .. n` of the stream `make(key, offset, chunk)` at `offset`, four per chunk.
fn stream<T: PhiloxReal + Send>(offset: u64, n: usize, make: impl Fn(u64) -> [T; 4] + Sync) -> Result<Vec<T>> {
    super::check_stream::<T>(offset, n)?;
    let mut out = Vec::new();
    out.try_reserve_exact(n).map_err(|_| {
        Error::InvalidArgument(format!(
            "{n} random elements of {} bytes do not fit in memory",
            size_of::<T>()
        ))
    })?;
    out.par_extend(
        (0..n.div_ceil(4))
            .into_par_iter()
            .flat_map_iter(|chunk| make(chunk as u64).into_iter().take(n - 4 * chunk)),
    );
    Ok(out)
}

/// Uniforms `0 .. n` in (0, 1] of the Philox stream `(seed, offset)`, as `fill_uniform` makes them.
pub fn uniform<T: PhiloxReal + Send>(seed: u64, offset: u64, n: usize) -> Result<Vec<T>> {
    let key = Key::from_seed(seed);
    stream(offset, n, |chunk| T::uniform4(key, offset, chunk))
}

/// Normals `0 .. n` of the Philox stream `(seed, offset)`, as `fill_normal` makes them.
pub fn normal<T: PhiloxReal + Send>(seed: u64, offset: u64, n: usize) -> Result<Vec<T>> {
    let key = Key::from_seed(seed);
    stream(offset, n, |chunk| T::normal4(key, offset, chunk))
}
