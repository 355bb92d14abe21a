//! Device-wide collectives: one launch whose blocks cooperate through global memory (CUB's agents,
//! `AgentScan` with its `ScanTileState`, `AgentSelectIf`, `AgentRadixSortOnesweep`). A kernel
//! hands its arguments to [`scan_tiles`], [`select_tiles`] or the radix sort's
//! [`radix_histogram_tiles`] and [`radix_pass_tiles`]; the host plans the launches and the
//! temporary buffers (`ferrocuda::scan`, `select`, `sort`), or a user's own kernel does the same
//! with its own associative operation or predicate.
//!
//! Each is single-pass with decoupled look-back (Merrill and Garland, "Single-pass Parallel
//! Prefix Scan with Decoupled Look-back", NVIDIA 2016): each block takes the next tile in the
//! order blocks start, reduces it, publishes the tile's total at once, then looks back over the
//! tiles before it, adding their totals until it meets one that has published its inclusive
//! prefix. Every element is read once and written once.
mod look_back;
mod radix;
mod scan;
mod select;
mod tile;

pub use look_back::{MAX_EPOCH, TileDescriptor};
pub use radix::{
    MAX_SORT_LEN, RADIX_BITS, RADIX_DIGITS, RadixHistogramArgs, RadixKey, RadixPassArgs, SORT_ITEMS, SORT_THREADS,
    SORT_TILE, radix_histogram_shared_bytes, radix_histogram_tiles, radix_pass_shared_bytes, radix_pass_tiles,
};
pub use scan::{ScanArgs, scan_shared_bytes, scan_tiles};
pub use select::{Flagged, SelectArgs, SelectPredicate, Within, select_shared_bytes, select_tiles};
pub use tile::{SCAN_ITEMS, SCAN_THREADS, SCAN_TILE};
