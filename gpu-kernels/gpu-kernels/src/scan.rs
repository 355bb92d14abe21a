//! Device-wide scans (CUB's `DeviceScan`): one pass with decoupled look-back
//! ([`scan_tiles`]), and the launch that zeroes its tile descriptors when their epochs run out. The host API is
//! `ferrocuda::scan`; a kernel of a user's crate calls [`scan_tiles`] with its own operation and
//! the host plans it the same way.
use ferrocuda_device::collective::grid::{ScanArgs, TileDescriptor, scan_tiles};
use ferrocuda_device::collective::{Max, Min, ReduceOp, Sum};
use ferrocuda_device::prelude::*;

/// Arguments of [`scan_init`]: the descriptors and the tile counter of one scan.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ScanInitArgs<'a> {
    pub tile_status: SliceMut<'a, u64>,
    pub tile_counter: SliceMut<'a, u32>,
}

/// Marks every tile's descriptor unpublished and the counter at 0 (CUB's
/// `DeviceScanInitKernel`, here needed once in `MAX_EPOCH` scans), on the scan's stream.
#[kernel]
pub fn scan_init(args: ScanInitArgs<'_>) {
    for i in grid_stride_range(args.tile_status.len()) {
        args.tile_status.set(i, 0);
    }
    if global_idx_x() == 0 {
        args.tile_counter.set(0, 0);
    }
}

// The 4-byte scans keep room for ten blocks of 128 threads per SM (48 registers a thread, as
// CUB's sm_90 scan has); the 8-byte ones, which hold twice the registers, have their own entry
// points without that bound.

/// Prefix sums of 4-byte elements.
#[kernel(i32, u32, f32, max_threads = 128, min_blocks_per_sm = 10)]
pub fn scan_sum<T: TileDescriptor>(args: ScanArgs<'_, T>)
where
    Sum: ReduceOp<T>,
{
    scan_tiles::<T, Sum>(args)
}

/// Running minima of 4-byte elements.
#[kernel(i32, u32, f32, max_threads = 128, min_blocks_per_sm = 10)]
pub fn scan_min<T: TileDescriptor>(args: ScanArgs<'_, T>)
where
    Min: ReduceOp<T>,
{
    scan_tiles::<T, Min>(args)
}

/// Running maxima of 4-byte elements.
#[kernel(i32, u32, f32, max_threads = 128, min_blocks_per_sm = 10)]
pub fn scan_max<T: TileDescriptor>(args: ScanArgs<'_, T>)
where
    Max: ReduceOp<T>,
{
    scan_tiles::<T, Max>(args)
}

/// Prefix sums of 8-byte elements.
#[kernel(u64, f64, max_threads = 128)]
pub fn scan_sum_wide<T: TileDescriptor>(args: ScanArgs<'_, T>)
where
    Sum: ReduceOp<T>,
{
    scan_tiles::<T, Sum>(args)
}

/// Running minima of 8-byte elements.
#[kernel(u64, f64, max_threads = 128)]
pub fn scan_min_wide<T: TileDescriptor>(args: ScanArgs<'_, T>)
where
    Min: ReduceOp<T>,
{
    scan_tiles::<T, Min>(args)
}

/// Running maxima of 8-byte elements.
#[kernel(u64, f64, max_threads = 128)]
pub fn scan_max_wide<T: TileDescriptor>(args: ScanArgs<'_, T>)
where
    Max: ReduceOp<T>,
{
    scan_tiles::<T, Max>(args)
}
