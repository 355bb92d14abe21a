//! The look-back that chains the tiles of one launch: each tile's descriptor (its total, then its
//! inclusive prefix, stamped with the launch's epoch), the wait for the descriptors of the tiles
//! before it, and the order in which blocks take tiles.
use crate::collective::ReduceOp;
use crate::collective::warp::warp_reduce_reversed_to_lane0;
use crate::global::{Element4, SliceMut};
use crate::shared::Tile1d;
use crate::sync::{nanosleep, thread_fence};
use crate::warp::{FULL_MASK, Shuffle, lane_id, vote_ballot_sync};

/// The largest epoch: two bits of a descriptor's stamp hold its flag.
pub const MAX_EPOCH: u32 = (1 << 30) - 1;

/// A descriptor's flag: it holds the tile's own total.
const AGGREGATE: u32 = 1;
/// A descriptor's flag: it holds the total of every element up to the tile's last, `initial`
/// included.
const PREFIX: u32 = 2;

/// An element type a device-wide scan publishes tile totals of: its descriptor is seen whole by
/// the blocks that look back at it.
pub trait TileDescriptor: Shuffle + Element4 {
    /// Publishes `value` as tile `tile`'s descriptor, stamped `stamp` (epoch and flag).
    fn publish(status: &SliceMut<'_, u64>, values: &SliceMut<'_, Self>, tile: usize, stamp: u32, value: Self);
    /// Waits until tile `tile` has published in `epoch`; its flag and value.
    fn wait(status: &SliceMut<'_, u64>, values: &SliceMut<'_, Self>, tile: usize, epoch: u32) -> (u32, Self);
}

/// A descriptor's stamp: the scan's epoch above its flag.
#[inline(always)]
fn stamp(epoch: u32, flag: u32) -> u32 {
    epoch << 2 | flag
}

/// Nanoseconds a lane sleeps between two polls of a descriptor: long enough that the polls of
/// the waiting warps do not crowd the loads and stores of the others, short beside a tile's scan.
const POLL_INTERVAL_NS: u32 = 500;

/// Nanoseconds a look-back waits after publishing the tile's total before its first poll: about
/// the L2 write latency, so that the tiles before it have had time to publish too (CUB's
/// `fixed_delay_constructor_t`, 1140 ns on sm_90).
const FIRST_POLL_DELAY_NS: u32 = 1000;

/// 4-byte values share one 8-byte word with their stamp: one store publishes both, one load reads
/// both, no fence between.
macro_rules! packed_descriptor {
    ($($t:ty),*) => {$(
        impl TileDescriptor for $t {
            #[inline(always)]
            fn publish(status: &SliceMut<'_, u64>, _: &SliceMut<'_, Self>, tile: usize, stamp: u32, value: Self) {
                status.set_volatile(tile, u64::from(stamp) << 32 | u64::from(value.to_bits_u32()));
            }
            #[inline(always)]
            fn wait(status: &SliceMut<'_, u64>, _: &SliceMut<'_, Self>, tile: usize, epoch: u32) -> (u32, Self) {
                loop {
                    let word = status.get_volatile(tile);
                    let stamp = (word >> 32) as u32;
                    if stamp >> 2 == epoch {
                        return (stamp & 3, <$t>::from_bits_u32(word as u32));
                    }
                    nanosleep(POLL_INTERVAL_NS);
                }
            }
        }
    )*};
}
packed_descriptor!(i32, u32, f32);

/// 8-byte values go to their own array before the stamp, a device fence between, and are read
/// after the stamp, a fence between (the message-passing pattern of the PTX memory model). A tile's
/// total and its inclusive prefix have a slot each (`tile` and `tiles + tile`), each written once
/// per launch: a reader that saw the total's stamp cannot read the prefix written after it.
macro_rules! fenced_descriptor {
    ($($t:ty),*) => {$(
        impl TileDescriptor for $t {
            #[inline(always)]
            fn publish(status: &SliceMut<'_, u64>, values: &SliceMut<'_, Self>, tile: usize, stamp: u32, value: Self) {
                values.set_volatile(value_slot(status, tile, stamp & 3), value);
                thread_fence();
                status.set_volatile(tile, u64::from(stamp));
            }
            #[inline(always)]
            fn wait(status: &SliceMut<'_, u64>, values: &SliceMut<'_, Self>, tile: usize, epoch: u32) -> (u32, Self) {
                loop {
                    let stamp = status.get_volatile(tile) as u32;
                    if stamp >> 2 == epoch {
                        thread_fence();
                        return (stamp & 3, values.get_volatile(value_slot(status, tile, stamp & 3)));
                    }
                    nanosleep(POLL_INTERVAL_NS);
                }
            }
        }
    )*};
}
fenced_descriptor!(u64, f64);

/// Where tile `tile`'s value with `flag` lives in `tile_values`.
#[inline(always)]
fn value_slot(status: &SliceMut<'_, u64>, tile: usize, flag: u32) -> usize {
    if flag == PREFIX { status.len() + tile } else { tile }
}

/// The bits of a 4-byte value, for packing beside a flag.
trait Bits32: Copy {
    fn to_bits_u32(self) -> u32;
    fn from_bits_u32(bits: u32) -> Self;
}
macro_rules! bits32 {
    ($($t:ty),*) => {$(
        impl Bits32 for $t {
            #[inline(always)]
            fn to_bits_u32(self) -> u32 {
                u32::from_ne_bytes(self.to_ne_bytes())
            }
            #[inline(always)]
            fn from_bits_u32(bits: u32) -> Self {
                <$t>::from_ne_bytes(bits.to_ne_bytes())
            }
        }
    )*};
}
bits32!(i32, u32, f32);

/// The descriptors a launch's tiles publish and read: `status` one per tile, `values` two per
/// tile for the types whose descriptor cannot hold them (see [`TileDescriptor`]), `epoch` the
/// launch's stamp, `initial` what comes before the first tile.
pub(super) struct LookBack<'s, 'a, T> {
    pub status: &'s SliceMut<'a, u64>,
    pub values: &'s SliceMut<'a, T>,
    pub epoch: u32,
    pub initial: T,
}

/// The tile the calling block takes. A block looks back only at tiles of blocks that started
/// before it, so the scan progresses as long as a block that started runs on.
///
/// On the GPU, tile `blockIdx.x`: blocks of a one-dimensional grid start in index order (CUB's
/// `DeviceScan` relies on it too), and the block's loads need not wait for a ticket.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(super) fn take_tile(_: &SliceMut<'_, u32>, _: u32, _: &Tile1d<u32>) -> usize {
    crate::index::block_idx().x
}

/// The tile the calling block takes: in the simulator, which runs blocks in any order, the next
/// ticket (`tile_counter`'s value less the launch's `ticket_base`), in the order blocks start (thread 0 takes it, the block reads it from `tile_number`).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub(super) fn take_tile(tile_counter: &SliceMut<'_, u32>, ticket_base: u32, tile_number: &Tile1d<u32>) -> usize {
    if crate::index::thread_idx_x() == 0 {
        tile_number.set(0, tile_counter.atomic_add(0, 1).wrapping_sub(ticket_base));
    }
    crate::sync::sync_threads();
    tile_number.get(0) as usize
}

/// The total of every element before tile `tile` (with `initial`), found by looking back over
/// the tiles' descriptors; publishes this tile's total first and its inclusive prefix last.
///
/// Call from: the 32 lanes of warp 0, converged. Result: in lane 0.
#[inline(always)]
pub(super) fn tile_prefix<T: TileDescriptor, O: ReduceOp<T>>(
    look: &LookBack<'_, '_, T>,
    tile: usize,
    tile_total: T,
) -> T {
    let lane = lane_id();
    let (status, values) = (look.status, look.values);
    if tile == 0 {
        if lane == 0 {
            T::publish(
                status,
                values,
                0,
                stamp(look.epoch, PREFIX),
                O::combine(look.initial, tile_total),
            );
        }
        return look.initial;
    }
    if lane == 0 {
        T::publish(status, values, tile, stamp(look.epoch, AGGREGATE), tile_total);
    }
    nanosleep(FIRST_POLL_DELAY_NS);
    // Lane `l` reads the tile `l + 1` places before `window_end`; a window with a PREFIX ends
    // the look-back at the nearest one (tile 0 always publishes one).
    let mut before = O::identity();
    let mut window_end = tile;
    loop {
        let (flag, value) = match window_end.checked_sub(lane + 1) {
            Some(earlier) => T::wait(status, values, earlier, look.epoch),
            None => (PREFIX, O::identity()),
        };
        let prefixes = vote_ballot_sync(FULL_MASK, flag == PREFIX);
        let nearest_prefix = if prefixes == 0 {
            32
        } else {
            prefixes.trailing_zeros() as usize
        };
        let counted = if lane <= nearest_prefix { value } else { O::identity() };
        before = O::combine(warp_reduce_reversed_to_lane0::<T, O>(counted), before);
        if prefixes != 0 {
            break;
        }
        window_end -= 32;
    }
    if lane == 0 {
        T::publish(
            status,
            values,
            tile,
            stamp(look.epoch, PREFIX),
            O::combine(before, tile_total),
        );
    }
    before
}
