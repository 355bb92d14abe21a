//! Shared memory declared once: [`shared_layout!`](crate::shared_layout) names a kernel's tiles
//! (fixed sizes, and sizes chosen at launch), computes their offsets and the launch's byte count
//! from that one declaration, and carves them safely: the kernel checks the bytes the launch
//! provides (`%dynamic_smem_size`) against the declaration before it hands out a tile, so a
//! launch with too few bytes stops with a fault that names the layout, never an access outside
//! shared memory.
use super::{Tile1d, Tile2d};

/// A tile a [`shared_layout!`](crate::shared_layout) may hold: its alignment, its bytes, and
/// how to place it.
pub trait SharedTile: Sized {
    /// The alignment of its start, bytes.
    const ALIGN: usize;
    /// Its bytes with `len` elements (a tile of fixed size ignores `len`).
    fn bytes_for(len: usize) -> usize;
    /// The tile `offset` bytes into dynamic shared memory, of `len` elements.
    ///
    /// # Safety
    /// The launch provides `offset + Self::bytes_for(len)` bytes, `offset` is a multiple of
    /// `Self::ALIGN`, and no other tile of the launch overlaps it.
    unsafe fn at(offset: usize, len: usize) -> Self;
}

impl<T: Copy> SharedTile for Tile1d<T> {
    const ALIGN: usize = align_of::<T>();
    fn bytes_for(len: usize) -> usize {
        Tile1d::<T>::bytes(len)
    }
    #[inline(always)]
    unsafe fn at(offset: usize, len: usize) -> Self {
        // SAFETY: forwarded to the caller.
        unsafe { Tile1d::dynamic_at(offset, len) }
    }
}

impl<T: Copy, const ROWS: usize, const COLS: usize, const PAD: usize> SharedTile for Tile2d<T, ROWS, COLS, PAD> {
    /// 16 bytes: [`Tile2d::dynamic_at`] asks it, for its 16-byte accesses.
    const ALIGN: usize = 16;
    fn bytes_for(_: usize) -> usize {
        Self::BYTES
    }
    #[inline(always)]
    unsafe fn at(offset: usize, _: usize) -> Self {
        // SAFETY: forwarded to the caller (a multiple of 16, as `dynamic_at` asks).
        unsafe { Tile2d::dynamic_at(offset) }
    }
}

/// Stops the kernel whose launch provides `provided` bytes of dynamic shared memory where the
/// layout `name` needs `needed`: `trap` on the GPU, a fault saying so on the simulator.
#[cold]
#[inline(never)]
#[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
pub fn layout_failure(name: &'static str, needed: usize, provided: usize) -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = (name, needed, provided);
        crate::arch::trap()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    ferrocuda_sim_abi::fault(format_args!(
        "the launch provides {provided} bytes of dynamic shared memory, and the shared layout `{name}` needs {needed} \
         (launch with `{name}::bytes(..)`), at {}",
        core::panic::Location::caller()
    ))
}

/// Declares a kernel's shared memory as one struct of tiles (see [`shared`](crate::shared)):
/// `Tile1d<T>[len]` for a 1-D tile of `len` elements (an expression of the layout's parameters),
/// `Tile2d<T, ROWS, COLS, PAD>` for a fixed 2-D tile. Generates `bytes(params) -> usize`, the
/// dynamic shared memory a launch provides, and `carve(params) -> Self`, the tiles, each aligned
/// after the one before; `carve` traps (a fault naming the layout on the simulator) when the
/// launch provides fewer bytes than `bytes`.
///
/// ```
/// use ferrocuda_device::prelude::*;
/// use ferrocuda_device::shared::{Tile1d, Tile2d};
///
/// ferrocuda_device::shared_layout! {
///     /// A transpose tile, and a row of partial sums as long as the block.
///     pub struct TransposeShared<T: Copy>(threads: usize) {
///         pub tile: Tile2d<T, 32, 32, 1>,
///         pub partials: Tile1d<T>[threads],
///     }
/// }
///
/// // Kernel: `let shared = TransposeShared::<f32>::carve(block_dim().x);`
/// // Host:   `shape.with_shared_bytes(TransposeShared::<f32>::bytes(256) as u32)`
/// assert_eq!(TransposeShared::<f32>::bytes(256), 32 * 33 * 4 + 256 * 4);
/// ```
#[macro_export]
macro_rules! shared_layout {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(<$($g:ident : $gb:path),* $(,)?>)? ($($param:ident : usize),* $(,)?) {
            $( $(#[$fmeta:meta])* $fvis:vis $field:ident : $ty:ty $([$len:expr])? ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        $vis struct $name $(<$($g),*>)? {
            $( $(#[$fmeta])* $fvis $field: $ty, )*
        }

        impl $(<$($g: $gb),*>)? $name $(<$($g),*>)? {
            /// Bytes of dynamic shared memory a launch provides for these tiles.
            #[allow(unused_variables)]
            pub fn bytes($($param: usize),*) -> usize {
                let mut end = 0usize;
                $(
                    end = end.next_multiple_of(<$ty as $crate::shared::SharedTile>::ALIGN)
                        + <$ty as $crate::shared::SharedTile>::bytes_for($crate::__shared_len!($($len)?));
                )*
                end
            }

            /// The tiles, carved from the launch's dynamic shared memory; traps (a fault naming
            /// this layout on the simulator) when the launch provides fewer than `bytes(..)`.
            #[inline(always)]
            #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
            #[allow(unused_assignments)]
            pub fn carve($($param: usize),*) -> Self {
                let needed = Self::bytes($($param),*);
                let provided = $crate::arch::dynamic_shared_bytes();
                if provided < needed {
                    $crate::shared::layout_failure(::core::stringify!($name), needed, provided)
                }
                let mut offset = 0usize;
                $(
                    let $field = {
                        offset = offset.next_multiple_of(<$ty as $crate::shared::SharedTile>::ALIGN);
                        let len = $crate::__shared_len!($($len)?);
                        // SAFETY: the launch provides `needed` bytes (checked above); the offsets
                        // are `bytes`' own, each aligned and past the tile before.
                        let tile = unsafe { <$ty as $crate::shared::SharedTile>::at(offset, len) };
                        offset += <$ty as $crate::shared::SharedTile>::bytes_for(len);
                        tile
                    };
                )*
                Self { $($field),* }
            }
        }
    };
}

/// The length of a `shared_layout!` member: its `[len]`, or 0 for a tile of fixed size.
#[doc(hidden)]
#[macro_export]
macro_rules! __shared_len {
    () => {
        0
    };
    ($len:expr) => {
        $len
    };
}
