//! The device-wide scan ([`scan_tiles`]): each block scans one tile in registers, chained to the
//! tiles before it by the look-back.
use super::look_back::{LookBack, TileDescriptor, take_tile, tile_prefix};
use super::tile::{Exchange, SCAN_TILE, for_each_chunk, is_full, load_items, store_items};
use crate::collective::ReduceOp;
use crate::collective::block::{BLOCK_SCAN_SCRATCH, block_exclusive_scan_with_prefix};
use crate::global::{Slice, SliceMut};
use crate::shared::Tile1d;

crate::shared_layout! {
    /// A scan block's shared memory: the exchange, the block scan's scratch, the tile number.
    struct ScanShared<T: Copy>() {
        exchange: Exchange<T>,
        scratch: Tile1d<T>[BLOCK_SCAN_SCRATCH],
        tile_number: Tile1d<u32>[1],
    }
}

/// Dynamic shared memory a scan launch of `T` needs, bytes.
pub fn scan_shared_bytes<T: Copy>() -> usize {
    ScanShared::<T>::bytes()
}

/// The arguments of a device-wide scan: `output[i]` receives the scan of `input[..=i]`
/// (inclusive) or of `input[..i]` (exclusive), after `initial`.
///
/// `tile_status` holds one descriptor per tile, `tile_values` two values per tile (its total,
/// then its inclusive prefix, for the types a descriptor cannot hold whole), `tile_counter` the
/// tickets blocks have taken. A scan reads only descriptors stamped with its own `epoch`, so the
/// next scan needs no zeroing pass: the host's plan counts epochs and tickets, and zeroes the
/// buffers (`scan_init`) once in [`MAX_EPOCH`](super::MAX_EPOCH) scans.
#[repr(C)]
#[derive(Clone, Copy, Debug, crate::KernelArgs)]
#[kernel_args(same_len(input, output))]
pub struct ScanArgs<'a, T> {
    pub input: Slice<'a, T>,
    pub output: SliceMut<'a, T>,
    pub tile_status: SliceMut<'a, u64>,
    pub tile_values: SliceMut<'a, T>,
    pub tile_counter: SliceMut<'a, u32>,
    /// What comes before `input[0]`: the operation's identity for a plain scan.
    pub initial: T,
    /// 1 for an exclusive scan, 0 for an inclusive one.
    pub exclusive: u32,
    /// This scan's stamp, 1 to [`MAX_EPOCH`](super::MAX_EPOCH), different from the last scan's with these buffers.
    pub epoch: u32,
    /// `tile_counter` before this launch: in the simulator the block that takes ticket
    /// `ticket_base + t` scans tile `t` (on the GPU, block `t` does).
    pub ticket_base: u32,
}

/// Scans `args.input` into `args.output` with `O`, one tile of [`SCAN_TILE`] elements per block.
///
/// Call from: every thread of a kernel launched with blocks of [`SCAN_THREADS`](super::SCAN_THREADS) threads, at least
/// `ceil(n / SCAN_TILE)` blocks (extra blocks return at once), [`scan_shared_bytes`] of dynamic
/// shared memory, and the epoch and tickets of [`ScanArgs`] (the host's plan does all of it). `O`
/// may be any associative operation; it need not commute. Cost: each element read once and
/// written once; per tile three barriers and a look-back by one warp.
#[inline(always)]
pub fn scan_tiles<T: TileDescriptor, O: ReduceOp<T>>(args: ScanArgs<'_, T>) {
    let ScanShared {
        exchange,
        scratch,
        tile_number,
    } = ScanShared::<T>::carve();
    let tile = take_tile(&args.tile_counter, args.ticket_base, &tile_number);
    let n = args.input.len();
    let start = tile * SCAN_TILE;
    if start >= n {
        return;
    }
    let full_tile = is_full(&args.input, start) && args.output.is_aligned16();
    let items = load_items(&args.input, &exchange, start, full_tile, O::identity());
    // Inclusive within the thread; `before[k][j]` is what comes before element `4k + j`.
    let mut running = O::identity();
    let mut before = items;
    for_each_chunk!(k => {
        crate::unroll!(j in [0, 1, 2, 3] => {
            before[k][j] = running;
            running = O::combine(running, items[k][j]);
        });
    });
    let (prefix, _) = block_exclusive_scan_with_prefix::<T, O>(running, &scratch, |tile_total| {
        let look = LookBack {
            status: &args.tile_status,
            values: &args.tile_values,
            epoch: args.epoch,
            initial: args.initial,
        };
        tile_prefix::<T, O>(&look, tile, tile_total)
    });
    let exclusive = args.exclusive != 0;
    let mut scanned = items;
    for_each_chunk!(k => {
        crate::unroll!(j in [0, 1, 2, 3] => {
            let within = if exclusive { before[k][j] } else { O::combine(before[k][j], items[k][j]) };
            scanned[k][j] = O::combine(prefix, within);
        });
    });
    // The block scan's barriers separate every lane's reads of the exchange from these writes.
    store_items(&args.output, &exchange, start, full_tile, scanned);
}
