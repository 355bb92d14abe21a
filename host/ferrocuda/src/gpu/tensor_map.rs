//! Tensor maps for the bulk tensor copy engine (`ferrocuda_device::hopper::TensorMap`): the
//! host describes a row-major matrix in device memory and the box a copy moves, and places the
//! description where kernels read it. On a GPU it is `cuTensorMapEncodeTiled`'s 128 bytes; on
//! the simulator the same description in the words the simulator's copy reads
//! (`hopper::SimulatorMap`).
use super::{Element, Error, Gpu, Result};
use crate::gpu::memory::{DeviceBuffer, KernelView};
use cudarc::driver::sys;
use ferrocuda_device::global::Slice;
use ferrocuda_device::half::{Bf16, F16};
use ferrocuda_device::hopper::{self, SimulatorMap, Swizzle};

/// An element type the copy engine moves, with its `CUtensorMapDataType`.
pub trait TensorElement: Element {
    /// The map's data type.
    const DATA_TYPE: sys::CUtensorMapDataType;
}
impl TensorElement for Bf16 {
    const DATA_TYPE: sys::CUtensorMapDataType = sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}
impl TensorElement for F16 {
    const DATA_TYPE: sys::CUtensorMapDataType = sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}
impl TensorElement for f32 {
    const DATA_TYPE: sys::CUtensorMapDataType = sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
}

/// A tensor map of a row-major `rows x cols` matrix of `T` (rows `row_stride` elements apart)
/// held in a buffer borrowed for `'a`, for boxes of `ROWS x COLS` elements copied into a
/// `MatrixTile<T, _, COLS>` with the swizzle of its rows. Pass [`TensorMap::view`] to a kernel.
///
/// The map borrows the matrix's buffer, as a read-only view does: the buffer cannot be dropped
/// while the map lives,
///
/// ```compile_fail,E0505
/// # fn demo(gpu: &ferrocuda::Gpu) -> ferrocuda::Result<()> {
/// use ferrocuda::KernelView;
/// let matrix = gpu.zeros::<f32>(64 * 32)?;
/// let map = ferrocuda::TensorMap::<f32, 8, 32>::new(gpu, matrix.view(), 64, 32, 32)?;
/// drop(matrix); // error: `matrix` is borrowed by `map`
/// let _ = map.view();
/// # Ok(()) }
/// ```
///
/// nor written through a writable view while the map lives (a kernel could not take both):
///
/// ```compile_fail,E0502
/// # fn demo(gpu: &ferrocuda::Gpu) -> ferrocuda::Result<()> {
/// use ferrocuda::KernelView;
/// let mut matrix = gpu.zeros::<f32>(64 * 32)?;
/// let map = ferrocuda::TensorMap::<f32, 8, 32>::new(gpu, matrix.view(), 64, 32, 32)?;
/// let writable = matrix.view_mut(); // error: `matrix` is also borrowed by `map`
/// let _ = (map.view(), writable);
/// # Ok(()) }
/// ```
pub struct TensorMap<'a, T, const ROWS: usize, const COLS: usize> {
    words: DeviceBuffer<u64>,
    matrix: Slice<'a, T>,
}

impl<'a, T: TensorElement, const ROWS: usize, const COLS: usize> TensorMap<'a, T, ROWS, COLS> {
    /// The map of the `rows x cols` matrix whose row `r` starts at element `r * row_stride` of
    /// `matrix`. An error in a sentence when the matrix does not lie in the view, when the
    /// copy engine cannot address it (the view's address and `row_stride * size_of::<T>()` are
    /// multiples of 16 bytes, the sizes below 2^32), or when the box is not one it moves
    /// (`ROWS` 1 to 256, rows of `COLS` elements 32, 64 or 128 bytes).
    pub fn new(gpu: &Gpu, matrix: Slice<'a, T>, rows: usize, cols: usize, row_stride: usize) -> Result<Self> {
        let element = size_of::<T>();
        let invalid = |why: String| Err(Error::InvalidArgument(why));
        let Some(swizzle) = Swizzle::for_row_bytes(COLS * element) else {
            return invalid(format!(
                "a tensor map's box has rows of 32, 64 or 128 bytes, not {COLS} elements of {element} bytes"
            ));
        };
        if !(1..=256).contains(&ROWS) {
            return invalid(format!("a tensor map's box has 1 to 256 rows, not {ROWS}"));
        }
        if rows == 0 || cols == 0 || rows >= 1 << 32 || cols >= 1 << 32 {
            return invalid(format!(
                "a tensor map describes 1 to 2^32 - 1 rows and columns, not {rows} x {cols}"
            ));
        }
        if row_stride < cols
            || (rows - 1)
                .checked_mul(row_stride)
                .and_then(|e| e.checked_add(cols))
                .is_none_or(|end| end > matrix.len())
        {
            return invalid(format!(
                "a {rows} x {cols} matrix with rows {row_stride} elements apart does not lie in a view of {} elements",
                matrix.len()
            ));
        }
        if !(matrix.as_ptr() as usize).is_multiple_of(16) || !(row_stride * element).is_multiple_of(16) {
            return invalid(format!(
                "the copy engine reads matrices at 16-byte-aligned addresses with rows a multiple of 16 bytes apart, \
                 not rows of {row_stride} elements of {element} bytes"
            ));
        }
        let words = if gpu.is_simulator() {
            SimulatorMap {
                address: matrix.as_ptr() as u64,
                rows: rows as u64,
                cols: cols as u64,
                row_stride_bytes: (row_stride * element) as u64,
            }
            .words()
        } else {
            encode::<T>(
                matrix.as_ptr() as u64,
                [cols, rows],
                row_stride * element,
                [COLS, ROWS],
                swizzle,
            )?
        };
        Ok(Self {
            words: gpu.upload_queued(&words)?,
            matrix,
        })
    }

    /// The map as a kernel argument, borrowing it (and through it the matrix's buffer).
    pub fn view(&self) -> hopper::TensorMap<'_, T, ROWS, COLS> {
        // SAFETY: the words hold a map of a matrix lying in `matrix` (checked by `new`), for
        // boxes of `ROWS x COLS` elements of `T` and the swizzle of their rows, encoded for this
        // backend; the borrow of `self` keeps the words (and the matrix's buffer) alive while
        // launches using the view are queued, and buffers free after queued work.
        unsafe { hopper::TensorMap::from_raw_parts(self.words.view().as_ptr(), self.matrix) }
    }
}

/// `cuTensorMapEncodeTiled` for a 2-D row-major tensor: `dims` and `box_dims` innermost first.
fn encode<T: TensorElement>(
    address: u64,
    dims: [usize; 2],
    row_stride_bytes: usize,
    box_dims: [usize; 2],
    swizzle: Swizzle,
) -> Result<[u64; 16]> {
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    let global_dims = dims.map(|d| d as u64);
    let strides = [row_stride_bytes as u64];
    let box_dims = box_dims.map(|d| d as u32);
    let element_strides = [1u32; 2];
    let swizzle = match swizzle {
        Swizzle::Bytes32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_32B,
        Swizzle::Bytes64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        Swizzle::Bytes128 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
    };
    // SAFETY: every pointer addresses a local array of the length the rank (2) implies; the
    // driver only reads them and writes `map`.
    unsafe {
        sys::cuTensorMapEncodeTiled(
            &mut map,
            T::DATA_TYPE,
            2,
            address as *mut _,
            global_dims.as_ptr(),
            strides.as_ptr(),
            box_dims.as_ptr(),
            element_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    }
    .result()
    .map_err(Error::cuda("cuTensorMapEncodeTiled"))?;
    Ok(map.opaque)
}
