//! Stream compaction ([`select_tiles`], CUB's `DeviceSelect`): each block keeps the elements of
//! its tile that a predicate accepts, counts them, finds where its share starts by the look-back
//! over the counts of the tiles before it, and writes its kept elements there in order.
use super::look_back::{LookBack, TileDescriptor, take_tile, tile_prefix};
use super::tile::{Exchange, SCAN_TILE, first_item, flat_slot, for_each_chunk, is_full, load_items};
use crate::collective::Sum;
use crate::collective::block::{BLOCK_SCAN_SCRATCH, block_exclusive_scan};
use crate::global::{Slice, SliceMut};
use crate::index::thread_idx_x;
use crate::shared::Tile1d;
use crate::sync::sync_threads;

/// Which elements a selection keeps. `READS_FLAGS`: the kernel reads `flags` (one byte per
/// element, the same length as the input) and passes each element's flag to [`keep`]; otherwise
/// `flags` is empty and `keep` sees 0.
///
/// [`keep`]: SelectPredicate::keep
pub trait SelectPredicate<T>: Copy {
    const READS_FLAGS: bool;
    /// Whether `x`, whose flag is `flag`, is kept.
    fn keep(&self, x: T, flag: u8) -> bool;
}

/// Keeps the elements whose flag is not 0 (CUB's `DeviceSelect::Flagged`), or with
/// `unflagged` those whose flag is 0 (the rest of a partition).
#[repr(C)]
#[derive(Clone, Copy, Debug, crate::KernelArgs)]
pub struct Flagged {
    /// 0: keep the flagged elements; 1: keep the others.
    pub unflagged: u32,
}

impl<T> SelectPredicate<T> for Flagged {
    const READS_FLAGS: bool = true;
    #[inline(always)]
    fn keep(&self, _: T, flag: u8) -> bool {
        (flag != 0) != (self.unflagged != 0)
    }
}

/// Keeps the elements `x` with `low <= x <= high` (CUB's `DeviceSelect::If` with a range test);
/// a NaN is never kept.
#[repr(C)]
#[derive(Clone, Copy, Debug, crate::KernelArgs)]
pub struct Within<T> {
    pub low: T,
    pub high: T,
}

impl<T: PartialOrd + Copy> SelectPredicate<T> for Within<T> {
    const READS_FLAGS: bool = false;
    #[inline(always)]
    fn keep(&self, x: T, _: u8) -> bool {
        self.low <= x && x <= self.high
    }
}

crate::shared_layout! {
    /// A selecting block's shared memory: the exchange (then the tile's kept elements, compacted),
    /// the block scan's scratch, the tile number and the tile's place in the output.
    struct SelectShared<T: Copy>() {
        exchange: Exchange<T>,
        scratch: Tile1d<u32>[BLOCK_SCAN_SCRATCH],
        tile_number: Tile1d<u32>[1],
        tile_start: Tile1d<u32>[1],
    }
}

/// Dynamic shared memory a selection of `T` needs, bytes.
pub fn select_shared_bytes<T: Copy>() -> usize {
    SelectShared::<T>::bytes()
}

/// The arguments of a selection: the elements of `input` that `predicate` keeps go to the start
/// of `output`, in order, and their count to `selected[0]`.
///
/// `flags`: one per element when the predicate reads them, else empty. `tile_status` and
/// `tile_counter` are as in a scan's [`ScanArgs`](super::ScanArgs) (the counts are 4-byte
/// descriptors, so there are no `tile_values`), `epoch` and `ticket_base` too.
#[repr(C)]
#[derive(Clone, Copy, Debug, crate::KernelArgs)]
pub struct SelectArgs<'a, T, P> {
    pub input: Slice<'a, T>,
    pub flags: Slice<'a, u8>,
    /// At least as long as `input`: all of it may be kept.
    pub output: SliceMut<'a, T>,
    pub selected: SliceMut<'a, u32>,
    pub tile_status: SliceMut<'a, u64>,
    pub tile_counter: SliceMut<'a, u32>,
    pub predicate: P,
    pub epoch: u32,
    pub ticket_base: u32,
}

/// Keeps the elements of `args.input` that `args.predicate` accepts, one tile of [`SCAN_TILE`]
/// elements per block: `output[..count]` receives them in order and `selected[0]` the count.
///
/// Call from: every thread of a kernel launched as a scan is ([`SCAN_THREADS`](super::SCAN_THREADS)
/// threads a block, a block per tile, one block for an empty input), with
/// [`select_shared_bytes`] of dynamic shared memory; fewer than 2^32 elements. Cost: each element read once and each kept one written once; per
/// tile two barriers and a look-back by one warp.
#[inline(always)]
pub fn select_tiles<T: TileDescriptor, P: SelectPredicate<T>>(args: SelectArgs<'_, T, P>) {
    let SelectShared {
        exchange,
        scratch,
        tile_number,
        tile_start,
    } = SelectShared::<T>::carve();
    let tile = take_tile(&args.tile_counter, args.ticket_base, &tile_number);
    let n = args.input.len();
    let start = tile * SCAN_TILE;
    if start >= n {
        if n == 0 && tile == 0 && thread_idx_x() == 0 {
            args.selected.set(0, 0);
        }
        return;
    }
    let full_tile = is_full(&args.input, start);
    // Past the end `fill` is never read: `kept` leaves those elements out.
    let items = load_items(&args.input, &exchange, start, full_tile, args.input.get(start));
    // Bit `4k + j` of `kept`: element `4k + j` of this thread is kept.
    let first = first_item(start);
    let mut kept = 0u32;
    for_each_chunk!(k => {
        crate::unroll!(j in [0, 1, 2, 3] => {
            let i = first + 4 * k + j;
            if i < n {
                let flag = if P::READS_FLAGS { args.flags.get(i) } else { 0 };
                if args.predicate.keep(items[k][j], flag) {
                    kept |= 1 << (4 * k + j);
                }
            }
        });
    });
    // The scan's barrier also ends every lane's reads of the exchange: it can take the tile's
    // kept elements.
    let (at, tile_count) = block_exclusive_scan::<u32, Sum>(kept.count_ones(), &scratch);
    if thread_idx_x() < 32 {
        let look = LookBack {
            status: &args.tile_status,
            // 4-byte counts live in their descriptors: the values are never read.
            values: &args.tile_counter,
            epoch: args.epoch,
            initial: 0,
        };
        let before = tile_prefix::<u32, Sum>(&look, tile, tile_count);
        if thread_idx_x() == 0 {
            tile_start.set(0, before);
        }
    }
    for_each_chunk!(k => {
        crate::unroll!(j in [0, 1, 2, 3] => {
            let bit = 4 * k + j;
            if kept & 1 << bit != 0 {
                // After the kept elements of the threads before and of this one's before it.
                let (row, column) = flat_slot((at + (kept & ((1 << bit) - 1)).count_ones()) as usize);
                exchange.set(row, column, items[k][j]);
            }
        });
    });
    // The compacted tile and its start are written.
    sync_threads();
    let output_start = tile_start.get(0) as usize;
    let mut i = thread_idx_x();
    while i < tile_count as usize {
        let (row, column) = flat_slot(i);
        args.output.set(output_start + i, exchange.get(row, column));
        i += super::SCAN_THREADS;
    }
    if thread_idx_x() == 0 && start + SCAN_TILE >= n {
        args.selected.set(0, output_start as u32 + tile_count);
    }
}
