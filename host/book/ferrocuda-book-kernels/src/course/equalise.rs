//! course-equalise's kernels: a gray picture's 256-bin histogram, privatised per block in a
//! shared layout with block-scope atomics, and the equalisation map that reads the histogram's
//! scan (`ferrocuda::scan` runs between them). What issue 34's primitives look like together in
//! a user's kernels.
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// Bins of a byte histogram.
pub const BINS: usize = 256;

ferrocuda_device::shared_layout! {
    /// One block's private histogram.
    pub struct HistogramShared() {
        pub bins: Tile1d<u32>[BINS],
    }
}

/// Arguments of [`histogram_u8`]: the picture's bytes and the 256 global bins (zeroed first).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct HistogramArgs<'a> {
    pub pixels: Slice<'a, u8>,
    pub bins: SliceMut<'a, u32>,
}

/// Counts each byte value of `pixels` into `bins`: each block counts its grid-stride share in
/// shared memory (block-scope atomics, which stay in the SM), then adds its 256 counts to the
/// global bins (device scope).
#[kernel]
pub fn histogram_u8(args: HistogramArgs<'_>) {
    let HistogramShared { bins } = HistogramShared::carve();
    let (t, threads) = (thread_idx_x(), block_dim().x);
    for bin in (t..BINS).step_by(threads) {
        bins.set(bin, 0);
    }
    sync_threads();
    for i in grid_stride_range(args.pixels.len()) {
        bins.atomic(args.pixels.get(i) as usize).block().add(1);
    }
    sync_threads();
    for bin in (t..BINS).step_by(threads) {
        let count = bins.get(bin);
        if count != 0 {
            args.bins.atomic(bin).add(count);
        }
    }
}

/// Arguments of [`equalise_map`]: the picture, its histogram's inclusive scan, and the scan at
/// the first non-empty bin.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(pixels, equalised))]
pub struct EqualiseArgs<'a> {
    pub pixels: Slice<'a, u8>,
    pub equalised: SliceMut<'a, u8>,
    pub cdf: Slice<'a, u32>,
    pub cdf_min: u32,
}

/// The equalised byte of `value`: `(cdf(value) - cdf_min) * 255 / (n - cdf_min)`, rounded to
/// nearest, `n` the picture's pixels (the classic histogram equalisation); 0 when every pixel
/// has one value.
#[inline(always)]
pub fn equalised(cdf_value: u32, cdf_min: u32, n: u64) -> u8 {
    let span = n - u64::from(cdf_min);
    if span == 0 {
        return 0;
    }
    ((u64::from(cdf_value - cdf_min) * 255 + span / 2) / span) as u8
}

/// Maps each pixel through the equalisation of its picture's histogram.
#[kernel]
pub fn equalise_map(args: EqualiseArgs<'_>) {
    let n = args.pixels.len() as u64;
    for i in grid_stride_range(args.pixels.len()) {
        let value = args.pixels.get(i) as usize;
        args.equalised.set(i, equalised(args.cdf.get(value), args.cdf_min, n));
    }
}
