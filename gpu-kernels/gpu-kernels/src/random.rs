//! Philox4x32-10 uniforms and normals into a device buffer (issue 5; cuRAND's
//! `curandGenerateUniform` / `curandGenerateNormal` with `CURAND_RNG_PSEUDO_PHILOX4_32_10`).
//!
//! Each thread makes four elements at a time, one 16-byte store (two for `f64`), over a
//! grid-stride loop, from the stream layout of `random::stream`: the values depend on `(seed,
//! offset, index)` only, not on the launch shape, and the CPU reference computes them with the
//! same functions. The host API is `ferrocuda::random`.
use ferrocuda_device::prelude::*;
use ferrocuda_device::random::philox::Key;
use ferrocuda_device::random::stream::PhiloxReal;

/// Arguments of [`philox_uniform`] and [`philox_normal`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct PhiloxArgs<'a, T> {
    /// Filled with elements `0 .. len` of the stream.
    pub out: SliceMut<'a, T>,
    /// The generator's seed (Philox's key).
    pub seed: u64,
    /// The first Philox block of the stream (see `random::stream` for the layout).
    pub offset: u64,
}

/// Writes the stream `make(key, offset, chunk)` into `args.out`, four elements per step.
#[inline(always)]
fn fill<T: PhiloxReal>(args: PhiloxArgs<'_, T>, make: impl Fn(Key, u64, u64) -> [T; 4]) {
    let out = args.out;
    let n = out.len();
    let key = Key::from_seed(args.seed);
    let full_chunks = if out.is_aligned16() { n / 4 } else { 0 };
    let stride = grid_size_x();
    // Full chunks: one 16-byte store each, no per-element bounds test. Two chunks per step:
    // their Philox rounds and polynomial chains are independent, so the scheduler interleaves
    // them (one chain alone leaves the pipelines waiting on each dependent multiply).
    let mut chunk = global_idx_x();
    while chunk + stride < full_chunks {
        let (first, second) = (
            make(key, args.offset, chunk as u64),
            make(key, args.offset, (chunk + stride) as u64),
        );
        out.set4(chunk, first);
        out.set4(chunk + stride, second);
        chunk += 2 * stride;
    }
    if chunk < full_chunks {
        out.set4(chunk, make(key, args.offset, chunk as u64));
    }
    // The rest (the last n % 4 elements, or all of an unaligned view), element by element,
    // grid-strided over the chunks that hold them.
    let mut chunk = full_chunks + global_idx_x();
    while 4 * chunk < n {
        // Element by element with constant indices into the array, which keeps it in registers
        // (a loop that may stop early leaves it in local memory).
        let [a, b, c, d] = make(key, args.offset, chunk as u64);
        let first = 4 * chunk;
        out.set(first, a);
        if first + 1 < n {
            out.set(first + 1, b);
        }
        if first + 2 < n {
            out.set(first + 2, c);
        }
        if first + 3 < n {
            out.set(first + 3, d);
        }
        chunk += stride;
    }
}

/// `out[i]` = uniform `i` of the stream `(seed, offset)`, in (0, 1].
#[kernel(f32, f64)]
pub fn philox_uniform<T: PhiloxReal>(args: PhiloxArgs<'_, T>) {
    fill(args, T::uniform4)
}

/// `out[i]` = normal `i` (mean 0, standard deviation 1, Box-Muller) of the stream `(seed,
/// offset)`.
#[kernel(f32, f64)]
pub fn philox_normal<T: PhiloxReal>(args: PhiloxArgs<'_, T>) {
    fill(args, T::normal4)
}
