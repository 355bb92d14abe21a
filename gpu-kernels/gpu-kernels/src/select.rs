//! Stream compaction (CUB's `DeviceSelect`): one pass with decoupled look-back over the tiles'
//! counts ([`select_tiles`]). The host API is `ferrocuda::select`; a kernel of a user's crate
//! calls [`select_tiles`] with its own [`SelectPredicate`] and the host plans it the same way.
use ferrocuda_device::collective::grid::{Flagged, SelectArgs, SelectPredicate, TileDescriptor, Within, select_tiles};
use ferrocuda_device::prelude::*;

/// Keeps the elements whose flag is not 0.
#[kernel(i32, u32, f32, u64, f64, max_threads = 128)]
pub fn select_flagged<T: TileDescriptor>(args: SelectArgs<'_, T, Flagged>)
where
    Flagged: SelectPredicate<T>,
{
    select_tiles::<T, Flagged>(args)
}

/// Keeps the elements in `low..=high`.
#[kernel(i32, u32, f32, u64, f64, max_threads = 128)]
pub fn select_within<T: TileDescriptor + PartialOrd>(args: SelectArgs<'_, T, Within<T>>) {
    select_tiles::<T, Within<T>>(args)
}
