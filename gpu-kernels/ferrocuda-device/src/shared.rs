//! Shared memory as typed tiles carved from the launch's dynamic shared memory.
//!
//! Rust has no `__shared__` statics on nvptx, so every tile lives in the `extern __shared__`
//! region sized at launch. Declare a kernel's tiles once with
//! [`shared_layout!`](crate::shared_layout): it computes the offsets and the launch's bytes from
//! that declaration and carves the tiles safely (the kernel checks the bytes the launch provides).
//! The tiles' own `unsafe` constructors ([`Tile1d::dynamic`], [`Tile2d::dynamic_at`]) remain,
//! for layouts the macro does not express; their caller states the offsets and the size.
use super::arch;
use core::marker::PhantomData;

mod layout;
pub use layout::{SharedTile, layout_failure};

/// A 1-D tile of `len` elements at the start of dynamic shared memory; `len` is chosen at launch
/// (typically the block size), and the launch provides [`Tile1d::bytes`]`(len)` bytes.
pub struct Tile1d<T> {
    base: *mut T,
    len: usize,
}

impl<T: Copy> Tile1d<T> {
    /// Shared-memory bytes a tile of `len` elements needs.
    pub const fn bytes(len: usize) -> usize {
        len * size_of::<T>()
    }

    /// The tile at the start of dynamic shared memory.
    ///
    /// # Safety
    /// The launch provides at least `Tile1d::<T>::bytes(len)` bytes of dynamic shared memory,
    /// and no other tile of this launch overlaps it.
    #[inline(always)]
    pub unsafe fn dynamic(len: usize) -> Self {
        Self {
            base: arch::dynamic_shared_base::<T>(),
            len,
        }
    }

    /// The tile `offset_bytes` into dynamic shared memory, after another tile of the launch.
    ///
    /// # Safety
    /// The launch provides at least `offset_bytes + Tile1d::<T>::bytes(len)` bytes of dynamic
    /// shared memory, `offset_bytes` is a multiple of `T`'s alignment, and no other tile of this
    /// launch overlaps this one.
    #[inline(always)]
    pub unsafe fn dynamic_at(offset_bytes: usize, len: usize) -> Self {
        // SAFETY: the offset stays inside the launch's shared memory (the caller's contract).
        let base = unsafe { arch::dynamic_shared_base::<u8>().add(offset_bytes) };
        Self { base: base.cast(), len }
    }

    /// Element count.
    pub const fn len(&self) -> usize {
        self.len
    }

    /// True for an empty tile.
    pub const fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Element `i`; traps when out of bounds.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get(&self, i: usize) -> T {
        if i >= self.len {
            crate::global::index_failure(self.base as usize, size_of::<T>(), i, self.len)
        }
        // SAFETY: in bounds of the shared region the launch provides (constructor contract).
        unsafe { arch::shared_load(self.base.add(i)) }
    }

    /// The address of element `i`, for atomics; traps when out of bounds.
    #[inline(always)]
    pub fn element_ptr(&self, i: usize) -> *mut T {
        if i >= self.len {
            crate::global::index_failure(self.base as usize, size_of::<T>(), i, self.len)
        }
        // SAFETY: `i < len`: the result stays inside the tile.
        unsafe { self.base.add(i) }
    }

    /// The address of element 0, for atomics that take a base and an index.
    #[inline(always)]
    pub(crate) fn base_ptr(&self) -> *mut T {
        self.base
    }

    /// The address of element `i` without the bound test, for the unchecked atomics.
    ///
    /// # Safety
    /// `i < len`.
    #[inline(always)]
    pub(crate) unsafe fn element_ptr_unchecked(&self, i: usize) -> *mut T {
        // SAFETY: `i < len` (the caller's contract): the result stays inside the tile.
        unsafe { self.base.add(i) }
    }

    /// Stores `value` in element `i`; traps when out of bounds.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn set(&self, i: usize, value: T) {
        if i >= self.len {
            crate::global::index_failure(self.base as usize, size_of::<T>(), i, self.len)
        }
        // SAFETY: in bounds of the shared region the launch provides (constructor contract).
        unsafe { arch::shared_store(self.base.add(i), value) }
    }

    /// Element `i` without the bound test, for kernels whose launch shape fixes the indices
    /// (the simulator still checks the access against the launch's shared memory).
    ///
    /// # Safety
    /// `i < len`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn get_unchecked(&self, i: usize) -> T {
        // SAFETY: in bounds of the tile (the caller's contract), which the launch provides.
        unsafe { arch::shared_load(self.base.add(i)) }
    }

    /// Stores `value` in element `i` without the bound test, as [`Tile1d::get_unchecked`].
    ///
    /// # Safety
    /// `i < len`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn set_unchecked(&self, i: usize, value: T) {
        // SAFETY: in bounds of the tile (the caller's contract), which the launch provides.
        unsafe { arch::shared_store(self.base.add(i), value) }
    }
}

/// A `ROWS x COLS` tile, row-major, each row padded by `PAD` elements.
///
/// With 4-byte elements and `COLS = 32`, `PAD = 1` puts the elements of a column in 32 different
/// banks, so a warp reading a column is conflict-free (book §3.4.3: `tile(TILE_DIM+1, TILE_DIM)`).
pub struct Tile2d<T, const ROWS: usize, const COLS: usize, const PAD: usize> {
    base: *mut T,
    _marker: PhantomData<T>,
}

impl<T: Copy, const ROWS: usize, const COLS: usize, const PAD: usize> Tile2d<T, ROWS, COLS, PAD> {
    /// Elements between the starts of two rows.
    pub const PITCH: usize = COLS + PAD;
    /// Shared-memory bytes the tile needs.
    pub const BYTES: usize = ROWS * Self::PITCH * size_of::<T>();

    /// The tile at the start of dynamic shared memory.
    ///
    /// # Safety
    /// The launch provides at least `Self::BYTES` bytes of dynamic shared memory, and no other
    /// tile of this launch overlaps it.
    #[inline(always)]
    pub unsafe fn dynamic() -> Self {
        Self {
            base: arch::dynamic_shared_base::<T>(),
            _marker: PhantomData,
        }
    }

    /// The tile `byte_offset` bytes into dynamic shared memory: a second tile after a first (the
    /// A and B tiles of a matrix multiply), or the second buffer of a double-buffered pair.
    ///
    /// # Safety
    /// The launch provides at least `byte_offset + Self::BYTES` bytes of dynamic shared memory,
    /// `byte_offset` is a multiple of 16, and no other tile of this launch overlaps this one.
    #[inline(always)]
    pub unsafe fn dynamic_at(byte_offset: usize) -> Self {
        Self {
            // SAFETY: inside the launch's shared memory (caller's contract).
            base: unsafe { arch::dynamic_shared_base::<Quad<T>>().byte_add(byte_offset).cast() },
            _marker: PhantomData,
        }
    }

    /// Elements (`row`, `4*chunk .. 4*chunk + 4`) in one 16-byte access for 4-byte elements
    /// (`ld.shared.v4`, PTX ISA §9.7.9.8); traps when out of bounds.
    ///
    /// The 16-byte alignment it needs holds for every tile: the base of dynamic shared memory is
    /// 16-byte aligned, [`Tile2d::dynamic_at`] offsets are multiples of 16, and the pitch of a
    /// tile read this way must be a multiple of 4 elements (a compile-time check).
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get4(&self, row: usize, chunk: usize) -> [T; 4] {
        const {
            assert!(
                Self::PITCH.is_multiple_of(4),
                "get4 needs a pitch of a multiple of 4 elements"
            )
        };
        if row >= ROWS || 4 * chunk + 4 > COLS {
            crate::global::index_failure(self.base as usize, size_of::<T>(), row * COLS + 4 * chunk, ROWS * COLS)
        }
        // SAFETY: in bounds of the tile (checked), 16-byte aligned (see above).
        unsafe { arch::shared_load(self.base.add(row * Self::PITCH + 4 * chunk).cast::<Quad<T>>()).0 }
    }

    /// Stores `values` at (`row`, `4*chunk .. 4*chunk + 4`) in one 16-byte access; traps as
    /// [`Tile2d::get4`].
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn set4(&self, row: usize, chunk: usize, values: [T; 4]) {
        const {
            assert!(
                Self::PITCH.is_multiple_of(4),
                "set4 needs a pitch of a multiple of 4 elements"
            )
        };
        if row >= ROWS || 4 * chunk + 4 > COLS {
            crate::global::index_failure(self.base as usize, size_of::<T>(), row * COLS + 4 * chunk, ROWS * COLS)
        }
        // SAFETY: as in `get4`.
        unsafe {
            arch::shared_store(
                self.base.add(row * Self::PITCH + 4 * chunk).cast::<Quad<T>>(),
                Quad(values),
            )
        }
    }

    /// The address of elements (`row`, `4*chunk .. 4*chunk + 4`), 16 bytes for 4-byte elements
    /// and 16-byte aligned (as in [`Tile2d::get4`]), for the instructions that take a shared
    /// address (`cp.async`, `ldmatrix`); traps when out of bounds.
    #[inline(always)]
    pub(crate) fn chunk_ptr(&self, row: usize, chunk: usize) -> *mut T {
        const {
            assert!(
                Self::PITCH.is_multiple_of(4) && size_of::<T>() == 4,
                "16-byte chunks need 4-byte elements and a pitch of a multiple of 4"
            )
        };
        if row >= ROWS || 4 * chunk + 4 > COLS {
            crate::global::index_failure(self.base as usize, size_of::<T>(), row * COLS + 4 * chunk, ROWS * COLS)
        }
        // SAFETY: in bounds of the tile (checked).
        unsafe { self.chunk_ptr_unchecked(row, chunk) }
    }

    /// [`Tile2d::chunk_ptr`] without the bound test.
    ///
    /// # Safety
    /// `row < ROWS` and `4 * chunk + 4 <= COLS`.
    #[inline(always)]
    pub(crate) unsafe fn chunk_ptr_unchecked(&self, row: usize, chunk: usize) -> *mut T {
        // SAFETY: in bounds of the tile (the caller's contract), which the launch provides.
        unsafe { self.base.add(row * Self::PITCH + 4 * chunk) }
    }

    /// Element (`row`, `col`); traps when out of bounds.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get(&self, row: usize, col: usize) -> T {
        if row >= ROWS || col >= COLS {
            crate::global::index_failure(self.base as usize, size_of::<T>(), row * COLS + col, ROWS * COLS)
        }
        // SAFETY: in bounds of the tile, which the launch provides (constructor contract).
        unsafe { arch::shared_load(self.base.add(row * Self::PITCH + col)) }
    }

    /// Element (`row`, `col`) without the bound test, for kernels whose launch shape fixes the
    /// indices (the simulator still checks the access against the launch's shared memory).
    ///
    /// # Safety
    /// `row < ROWS` and `col < COLS`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn get_unchecked(&self, row: usize, col: usize) -> T {
        // SAFETY: in bounds of the tile (the caller's contract), which the launch provides.
        unsafe { arch::shared_load(self.base.add(row * Self::PITCH + col)) }
    }

    /// Stores `value` at (`row`, `col`) without the bound test, as [`Tile2d::get_unchecked`].
    ///
    /// # Safety
    /// `row < ROWS` and `col < COLS`.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn set_unchecked(&self, row: usize, col: usize, value: T) {
        // SAFETY: in bounds of the tile (the caller's contract), which the launch provides.
        unsafe { arch::shared_store(self.base.add(row * Self::PITCH + col), value) }
    }

    /// Stores `value` at (`row`, `col`); traps when out of bounds.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn set(&self, row: usize, col: usize, value: T) {
        if row >= ROWS || col >= COLS {
            crate::global::index_failure(self.base as usize, size_of::<T>(), row * COLS + col, ROWS * COLS)
        }
        // SAFETY: in bounds of the tile, which the launch provides (constructor contract).
        unsafe { arch::shared_store(self.base.add(row * Self::PITCH + col), value) }
    }
}

/// Four elements aligned to 16 bytes, so that LLVM emits one vector access for them.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Quad<T>([T; 4]);
