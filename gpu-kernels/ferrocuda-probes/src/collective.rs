//! Probes of the scans at each layer of `ferrocuda_device::collective` (warp, block, grid), each
//! also with [`LastNonZero`], an operation that does not commute, so a scan that combines out of
//! order shows; and a selection with a predicate of its own ([`FlaggedOdd`]). Their tests are in
//! `host/ferrocuda/tests/scan.rs` and `select.rs`.
use ferrocuda_device::collective::block::{
    BLOCK_SCAN_SCRATCH, block_all_reduce, block_exclusive_scan, block_inclusive_scan,
};
use ferrocuda_device::collective::grid::{ScanArgs, SelectArgs, SelectPredicate, scan_tiles, select_tiles};
use ferrocuda_device::collective::warp::{warp_exclusive_sum, warp_inclusive_scan, warp_inclusive_sum};
use ferrocuda_device::collective::{ReduceOp, Sum};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// `a ⊕ b = b` unless `b` is 0, then `a`: the last non-zero value so far. Associative, with
/// identity 0, and not commutative.
#[derive(Clone, Copy, Debug)]
pub struct LastNonZero;

impl ReduceOp<u32> for LastNonZero {
    #[inline(always)]
    fn identity() -> u32 {
        0
    }
    #[inline(always)]
    fn combine(a: u32, b: u32) -> u32 {
        if b != 0 { b } else { a }
    }
}

/// Arguments of the warp and block scan probes: one input per thread, `FIELDS` outputs each.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct ScanProbeArgs<'a> {
    pub input: Slice<'a, u32>,
    pub out: SliceMut<'a, u32>,
}

/// Values each thread of [`probe_warp_scan`] writes.
pub const WARP_SCAN_FIELDS: usize = 4;

/// The warp scans on full warps (a multiple of 32 threads, one per input): per thread, the
/// inclusive sum, the exclusive sum, the warp's total and the inclusive [`LastNonZero`] scan.
#[kernel]
pub fn probe_warp_scan(args: ScanProbeArgs<'_>) {
    let i = global_idx_x();
    let x = args.input.get(i);
    let (exclusive, total) = warp_exclusive_sum(x);
    let values = [
        warp_inclusive_sum(x),
        exclusive,
        total,
        warp_inclusive_scan(x, LastNonZero::combine),
    ];
    ferrocuda_device::unroll!(k in [0, 1, 2, 3] => {
        args.out.set(WARP_SCAN_FIELDS * i + k, values[k]);
    });
}

/// Values each thread of [`probe_block_scan`] writes.
pub const BLOCK_SCAN_FIELDS: usize = 6;

ferrocuda_device::shared_layout! {
    /// The shared memory of [`probe_block_scan`]: the block collectives' scratch.
    pub struct BlockScanShared() {
        pub scratch: Tile1d<u32>[BLOCK_SCAN_SCRATCH],
    }
}

/// The block scans at any block size (one input per thread of the grid): per thread, the
/// inclusive and exclusive sums within its block, the block's total, the all-reduced total, and
/// the inclusive and exclusive [`LastNonZero`] scans.
#[kernel]
pub fn probe_block_scan(args: ScanProbeArgs<'_>) {
    let BlockScanShared { scratch } = BlockScanShared::carve();
    let i = global_idx_x();
    let x = args.input.get(i);
    // A barrier between two uses of one scratch tile (the block layer's rule).
    let (inclusive, total) = block_inclusive_scan::<u32, Sum>(x, &scratch);
    sync_threads();
    let (exclusive, _) = block_exclusive_scan::<u32, Sum>(x, &scratch);
    sync_threads();
    let all = block_all_reduce::<u32, Sum>(x, &scratch);
    sync_threads();
    let (last_inclusive, _) = block_inclusive_scan::<u32, LastNonZero>(x, &scratch);
    sync_threads();
    let (last_exclusive, _) = block_exclusive_scan::<u32, LastNonZero>(x, &scratch);
    let values = [inclusive, exclusive, total, all, last_inclusive, last_exclusive];
    // Unrolled, so the array stays in registers.
    ferrocuda_device::unroll!(k in [0, 1, 2, 3, 4, 5] => {
        args.out.set(BLOCK_SCAN_FIELDS * i + k, values[k]);
    });
}

/// A device-wide scan with an operation of the kernel crate's own, as a user writes one: the
/// host plans it with `ferrocuda::scan::Plan::scan_with`.
#[kernel]
pub fn probe_scan_last_nonzero(args: ScanArgs<'_, u32>) {
    scan_tiles::<u32, LastNonZero>(args)
}

/// Keeps the values `x` whose flag is not 0 and with `x % modulus == 1`: a predicate of the
/// kernel crate's own that reads both.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct FlaggedOdd {
    pub modulus: u32,
}

impl SelectPredicate<u32> for FlaggedOdd {
    const READS_FLAGS: bool = true;
    #[inline(always)]
    fn keep(&self, x: u32, flag: u8) -> bool {
        flag != 0 && x.checked_rem(self.modulus) == Some(1)
    }
}

/// A selection with a predicate of the kernel crate's own, as a user writes one: the host plans
/// it with `ferrocuda::select::Plan::select_with`.
#[kernel]
pub fn probe_select_flagged_odd(args: SelectArgs<'_, u32, FlaggedOdd>) {
    select_tiles::<u32, FlaggedOdd>(args)
}
