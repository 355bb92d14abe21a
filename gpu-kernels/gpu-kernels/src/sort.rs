//! Radix sort (CUB's `DeviceRadixSort`, onesweep): a histogram of every pass's digits, then one
//! launch per pass ([`radix_pass_tiles`]). The host API is `ferrocuda::sort`.
use ferrocuda_device::collective::grid::{
    RadixHistogramArgs, RadixKey, RadixPassArgs, radix_histogram_tiles, radix_pass_tiles,
};
use ferrocuda_device::prelude::*;

/// Arguments of [`radix_init`]: counters to zero before a pass.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct RadixInitArgs<'a> {
    /// The pass's tile descriptors.
    pub tile_status: SliceMut<'a, u32>,
    /// The histograms, before the first pass; empty before the others.
    pub histograms: SliceMut<'a, u32>,
}

/// Zeroes a pass's descriptors (and, before the first, the histograms), on the sort's stream.
#[kernel]
pub fn radix_init(args: RadixInitArgs<'_>) {
    for i in grid_stride_range(args.tile_status.len()) {
        args.tile_status.set(i, 0);
    }
    for i in grid_stride_range(args.histograms.len()) {
        args.histograms.set(i, 0);
    }
}

/// Counts every pass's digits.
#[kernel(u32, i32, f32, u64, i64, f64, max_threads = 256)]
pub fn radix_histogram<K: RadixKey>(args: RadixHistogramArgs<'_, K>) {
    radix_histogram_tiles(args)
}

/// One pass: 4-byte keys (and values) ordered by one digit. Four blocks a multiprocessor hold
/// it at 64 registers without spilling (ptxas; 80 uncapped).
#[kernel(u32, i32, f32, max_threads = 256, min_blocks_per_sm = 4)]
pub fn radix_pass<K: RadixKey>(args: RadixPassArgs<'_, K>) {
    radix_pass_tiles(args)
}

/// One pass of 8-byte keys: at 64 registers they would spill, three blocks hold them at 80.
#[kernel(u64, i64, f64, max_threads = 256, min_blocks_per_sm = 3)]
pub fn radix_pass_wide<K: RadixKey>(args: RadixPassArgs<'_, K>) {
    radix_pass_tiles(args)
}
