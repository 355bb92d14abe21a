//! Warp divergence (book §3.6.3): a branch whose two sides are taken by different lanes of one
//! warp runs both sides one after the other, the lanes of the other side masked off. The book's
//! `if (mod(i, 2) == 0)` splits every warp; `if (mod((i-1)/warpsize, 2) == 0)` gives each warp
//! one side. The book's sides (`x(i) = 0` / `x(i) = 1`) are one instruction each, which the
//! compiler predicates instead of branching; here each side is a loop of [`STEPS`] dependent
//! operations, different on the two sides, so the cost of running both shows.
use ferrocuda_device::prelude::*;
use ferrocuda_device::warp::WARP_SIZE;

/// Dependent steps on each side of the branch.
pub const STEPS: usize = 256;

/// Arguments of [`divergent`] and [`warp_uniform`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct DivergenceArgs<'a> {
    pub x: SliceMut<'a, f32>,
}

/// The even side: `v <- v * 0.999 + 0.001`, [`STEPS`] times, from `v = i mod 1024 / 1024`.
#[inline(always)]
pub fn side_a(i: usize) -> f32 {
    let mut v = (i % 1024) as f32 / 1024.0;
    for _ in 0..STEPS {
        v = math::fma(v, 0.999, 0.001);
    }
    v
}

/// The odd side: `v <- (1 - v^2) / 2` (stays in [0, 1/2]), [`STEPS`] times.
#[inline(always)]
pub fn side_b(i: usize) -> f32 {
    let mut v = (i % 1024) as f32 / 1024.0;
    for _ in 0..STEPS {
        v = math::mul_rn(math::fma(-v, v, 1.0), 0.5);
    }
    v
}

/// `x[i] = side_a(i)` for even `i`, `side_b(i)` for odd `i`: every warp takes both sides.
#[kernel]
pub fn divergent(args: DivergenceArgs<'_>) {
    let i = global_idx_x();
    if i < args.x.len() {
        let v = if i.is_multiple_of(2) { side_a(i) } else { side_b(i) };
        args.x.set(i, v);
    }
}

/// The same two sides chosen per warp, `(i / 32) mod 2`: each warp takes one side.
#[kernel]
pub fn warp_uniform(args: DivergenceArgs<'_>) {
    let i = global_idx_x();
    if i < args.x.len() {
        let v = if (i / WARP_SIZE).is_multiple_of(2) {
            side_a(i)
        } else {
            side_b(i)
        };
        args.x.set(i, v);
    }
}
