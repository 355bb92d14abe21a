//! The Philox streams of `ferrocuda::random` on the CPU, with rayon: each task computes four
//! elements with the very functions the kernels call (`ferrocuda_device::random::stream`), so the
//! results match the GPU's bit for bit.
use ferrocuda_device::random::PhiloxReal;
use ferrocuda_device::random::philox::Key;
use rayon::prelude::*;

/// Elements `0 .. n` of the stream `make(key, offset, chunk)`, four per chunk.
fn stream<T: PhiloxReal + Send>(n: usize, make: impl Fn(u64) -> [T; 4] + Sync) -> Vec<T> {
    (0..n.div_ceil(4))
        .into_par_iter()
        .flat_map_iter(|chunk| make(chunk as u64).into_iter().take(n - 4 * chunk))
        .collect()
}

/// Uniforms `0 .. n` in (0, 1] of the Philox stream `(seed, offset)`, as `fill_uniform` makes them.
pub fn uniform<T: PhiloxReal + Send>(seed: u64, offset: u64, n: usize) -> Vec<T> {
    let key = Key::from_seed(seed);
    stream(n, |chunk| T::uniform4(key, offset, chunk))
}

/// Normals `0 .. n` of the Philox stream `(seed, offset)`, as `fill_normal` makes them.
pub fn normal<T: PhiloxReal + Send>(seed: u64, offset: u64, n: usize) -> Vec<T> {
    let key = Key::from_seed(seed);
    stream(n, |chunk| T::normal4(key, offset, chunk))
}
