//! The bulk tensor copy engine (TMA, `cp.async.bulk.tensor`, PTX ISA §9.7.9.25.5): one thread
//! starts the copy of a whole box of a 2-D tensor from global memory into a [`MatrixTile`], in
//! the tile's swizzled layout, and the bytes count on an [`MBarrier`] as they land. Elements of
//! the box outside the tensor land as zeros: a tile at a matrix's edge needs no other test.
//!
//! The tensor is described by a *tensor map* (128 bytes) the host encodes
//! (`ferrocuda::TensorMap`: `cuTensorMapEncodeTiled` on a GPU; on the simulator the same
//! description in this module's [`SimulatorMap`] words) and places in device memory. A kernel takes
//! it as a [`TensorMap`] argument, which also borrows the tensor's buffer as a read-only view:
//! the buffer outlives the launch, and no writable view of it can be passed beside it.
use super::{MBarrier, MatrixTile};
use crate::arch;
use crate::global::Slice;
use core::marker::PhantomData;

/// A tensor map for boxes of `ROWS x COLS` elements of `T` of a row-major matrix, copied into a
/// [`MatrixTile<T, _, COLS>`] (rows of `COLS * size_of::<T>()` bytes, swizzled as it reads them),
/// and the matrix it reads.
#[repr(C)]
pub struct TensorMap<'a, T, const ROWS: usize, const COLS: usize> {
    /// The 128-byte map in global memory (64-byte aligned).
    map: *const u64,
    /// The matrix the map describes.
    matrix: Slice<'a, T>,
    _rows: PhantomData<[(); ROWS]>,
}

impl<T, const ROWS: usize, const COLS: usize> Clone for TensorMap<'_, T, ROWS, COLS> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, const ROWS: usize, const COLS: usize> Copy for TensorMap<'_, T, ROWS, COLS> {}

// SAFETY: an address and a view, plain data of one layout on host and device.
unsafe impl<T, const ROWS: usize, const COLS: usize> crate::launch::DeviceCopy for TensorMap<'_, T, ROWS, COLS> {}

#[cfg(not(target_arch = "nvptx64"))]
impl<T, const ROWS: usize, const COLS: usize> crate::launch::HoldsViews for TensorMap<'_, T, ROWS, COLS> {
    fn visit_views(&self, field: &'static str, visit: &mut dyn FnMut(crate::launch::ViewSpan)) {
        self.matrix.visit_views(field, visit)
    }
}

impl<'a, T: Copy, const ROWS: usize, const COLS: usize> TensorMap<'a, T, ROWS, COLS> {
    /// Bytes one box copies: what [`MBarrier::arrive_expect_tx`] announces for it.
    pub const BOX_BYTES: u32 = (ROWS * COLS * size_of::<T>()) as u32;

    /// The map at device address `map`, describing `matrix`.
    ///
    /// # Safety
    /// `map` is a 64-byte-aligned device address of 128 bytes, valid while any launch using it
    /// runs, that hold a tensor map (on the simulator, a [`SimulatorMap`]) of a matrix lying
    /// inside `matrix`, with boxes of `ROWS x COLS` elements of `T` and the swizzle of rows of
    /// `COLS * size_of::<T>()` bytes.
    pub const unsafe fn from_raw_parts(map: *const u64, matrix: Slice<'a, T>) -> Self {
        Self {
            map,
            matrix,
            _rows: PhantomData,
        }
    }

    /// The matrix the map reads.
    pub const fn matrix(&self) -> Slice<'a, T> {
        self.matrix
    }

    /// Starts copying the box whose first element is (`row`, `col`) of the matrix into rows
    /// `tile_row ..` of `tile`, its bytes counted on `barrier` as they land (`complete_tx`):
    /// the box's elements outside the matrix land as zeros. Traps unless `tile_row` is a
    /// multiple of 8 and the box's rows lie in the tile, and unless `col * size_of::<T>()` is a
    /// multiple of 16 bytes (the copy engine faults on other boxes: measured on an H200).
    ///
    /// # Safety
    /// Until the phase of `barrier` that counts these bytes completes, nothing reads or writes
    /// the tile's rows this box fills; that phase expects them (an `arrive_expect_tx` of
    /// [`Self::BOX_BYTES`]), so it cannot complete before they land.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub unsafe fn load<const TILE_ROWS: usize>(
        &self,
        tile: &MatrixTile<T, TILE_ROWS, COLS>,
        tile_row: usize,
        (row, col): (i32, i32),
        barrier: &MBarrier,
    ) {
        let destination = tile.rows_ptr(tile_row, ROWS);
        // SAFETY: the destination is `ROWS` whole rows of a 1024-byte-aligned tile of this
        // launch's shared memory (checked above), swizzled as the map writes them (the tile's
        // row width is the map's, by the types); the map's contract is the constructor's; the
        // barrier is a word of shared memory; the rest is the caller's.
        unsafe {
            arch::bulk_tensor_load_2d(
                destination,
                self.map,
                col,
                row,
                barrier.word(),
                [ROWS, COLS, size_of::<T>()],
            )
        }
    }

    /// Brings the map into the copy engine's cache (`prefetch.tensormap`), ahead of the first
    /// [`load`](Self::load).
    #[inline(always)]
    pub fn prefetch(&self) {
        // SAFETY: the map is a device address of a tensor map (the constructor's contract); a
        // prefetch reads nothing back.
        unsafe { arch::prefetch_tensor_map(self.map) }
    }
}

/// The simulator's tensor map: the description `cuTensorMapEncodeTiled` takes, in the map's
/// first words (the rest zero), written by the host and read by the simulator's copy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SimulatorMap {
    /// The address of element (0, 0).
    pub address: u64,
    /// Rows of the matrix.
    pub rows: u64,
    /// Columns (elements of a row that the map reads).
    pub cols: u64,
    /// Bytes from one row to the next.
    pub row_stride_bytes: u64,
}

impl SimulatorMap {
    /// The first word of a simulator map: "FCTMAP" and a version.
    pub const MAGIC: u64 = 0x4643_544d_4150_0001;

    /// The map's 16 words.
    pub const fn words(&self) -> [u64; 16] {
        let mut words = [0; 16];
        words[0] = Self::MAGIC;
        words[1] = self.address;
        words[2] = self.rows;
        words[3] = self.cols;
        words[4] = self.row_stride_bytes;
        words
    }

    /// The description in `words`; `None` unless they start with [`Self::MAGIC`].
    pub const fn from_words(words: &[u64; 5]) -> Option<Self> {
        if words[0] != Self::MAGIC {
            return None;
        }
        Some(Self {
            address: words[1],
            rows: words[2],
            cols: words[3],
            row_stride_bytes: words[4],
        })
    }
}

/// Orders this thread's earlier writes of shared memory through ordinary stores before the
/// bulk copies and `wgmma` reads (the async proxy) that follow: `fence.proxy.async.shared::cta`.
/// Needed where a kernel writes a tile with stores that the tensor cores then read, or rewrites
/// a tile a bulk copy filled.
#[inline(always)]
pub fn fence_proxy_async() {
    arch::fence_proxy_async_shared()
}

/// Lowers the registers each thread of the calling warpgroup may hold to `REGISTERS` (24 to 256,
/// a multiple of 8): `setmaxnreg.dec`, how a producer warpgroup hands registers to its
/// consumers. The kernel declares `max_threads` (its `.maxntid`), as the instruction requires.
///
/// # Safety
/// Every thread of the warpgroup executes it, converged; the kernel was built for sm_90a (it
/// traps otherwise: declare `requires = "sm_90a"`).
#[inline(always)]
pub unsafe fn decrease_registers<const REGISTERS: u32>() {
    const { assert!(REGISTERS >= 24 && REGISTERS <= 256 && REGISTERS.is_multiple_of(8)) };
    // SAFETY: forwarded to the caller.
    unsafe { arch::setmaxnreg_dec::<REGISTERS>() }
}

/// Raises the registers each thread of the calling warpgroup may hold to `REGISTERS` (24 to 256,
/// a multiple of 8): `setmaxnreg.inc`, waiting until the block has freed that many.
///
/// # Safety
/// As [`decrease_registers`]; the block's warpgroups together ask for no more registers than the
/// SM gave the block, or the instruction waits for ever.
#[inline(always)]
pub unsafe fn increase_registers<const REGISTERS: u32>() {
    const { assert!(REGISTERS >= 24 && REGISTERS <= 256 && REGISTERS.is_multiple_of(8)) };
    // SAFETY: forwarded to the caller.
    unsafe { arch::setmaxnreg_inc::<REGISTERS>() }
}
