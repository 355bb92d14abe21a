//! The shared-memory layout `wgmma` reads (PTX ISA §9.7.15.5.1, "Shared Memory Matrix Layout"):
//! K-major rows, eight rows to an atom, each row's 16-byte chunks permuted by the row's place
//! in its atom (the swizzle), and the 64-bit descriptor that names such a matrix.
use crate::shared::{SharedTile, Tile1d};

/// How a K-major matrix's rows are swizzled: the row width in bytes the pattern repeats over,
/// as the descriptor encodes it (bits 62-63) and as the bulk tensor copy writes it
/// (`CU_TENSOR_MAP_SWIZZLE_32B/64B/128B`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Swizzle {
    /// Rows of 32 bytes: chunk `c` of row `r` at chunk `c ^ (r / 4 % 2)`.
    Bytes32,
    /// Rows of 64 bytes: chunk `c` of row `r` at chunk `c ^ (r / 2 % 4)`.
    Bytes64,
    /// Rows of 128 bytes: chunk `c` of row `r` at chunk `c ^ (r % 8)`.
    Bytes128,
}

impl Swizzle {
    /// The swizzle of rows `bytes` wide; `None` for a width no swizzle has.
    pub const fn for_row_bytes(bytes: usize) -> Option<Self> {
        match bytes {
            32 => Some(Self::Bytes32),
            64 => Some(Self::Bytes64),
            128 => Some(Self::Bytes128),
            _ => None,
        }
    }
    /// The row width, bytes.
    pub const fn row_bytes(self) -> usize {
        match self {
            Self::Bytes32 => 32,
            Self::Bytes64 => 64,
            Self::Bytes128 => 128,
        }
    }
    /// The descriptor's code (bits 62-63).
    const fn code(self) -> u64 {
        match self {
            Self::Bytes128 => 1,
            Self::Bytes64 => 2,
            Self::Bytes32 => 3,
        }
    }
    const fn of_code(code: u64) -> Option<Self> {
        match code {
            1 => Some(Self::Bytes128),
            2 => Some(Self::Bytes64),
            3 => Some(Self::Bytes32),
            _ => None,
        }
    }
}

/// A `wgmma` matrix descriptor: the shared-window address of a K-major matrix's first row, the
/// stride between atoms of eight rows (bytes), and the swizzle. What it names is not checked
/// here: the instructions that take one are `unsafe`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixDescriptor(pub u64);

impl MatrixDescriptor {
    /// The descriptor of the swizzled K-major matrix at shared-window address `start` (16-byte
    /// aligned), atoms of eight rows `atom_stride` bytes apart.
    pub const fn swizzled(start: u32, atom_stride: u32, swizzle: Swizzle) -> Self {
        // Bits 0-13: start >> 4; 16-29: the leading byte offset >> 4, unused by a swizzled
        // K-major matrix whose instruction K fits in a row (1, as CUTLASS sets it); 32-45: the
        // stride byte offset >> 4; 49-51: base offset 0 (atoms aligned to their pattern).
        Self((start as u64 >> 4 & 0x3fff) | 1 << 16 | (atom_stride as u64 >> 4 & 0x3fff) << 32 | swizzle.code() << 62)
    }
    /// The same matrix `bytes` further along K (16-byte multiples inside a row).
    pub const fn advanced(self, bytes: u32) -> Self {
        Self(self.0 + (bytes as u64 >> 4))
    }
}

/// The shared-window byte address of byte `k_byte` of row `row` of the matrix `descriptor`
/// names (`k_byte` below its row width): the address `wgmma` reads, and the one a bulk tensor
/// copy with the same swizzle writes. `None` for a descriptor without a swizzle.
pub fn descriptor_address(descriptor: MatrixDescriptor, row: usize, k_byte: usize) -> Option<usize> {
    let bits = descriptor.0;
    let swizzle = Swizzle::of_code(bits >> 62)?;
    let start = ((bits & 0x3fff) << 4) as usize;
    let atom_stride = ((bits >> 32 & 0x3fff) << 4) as usize;
    let logical = start + row / 8 * atom_stride + row % 8 * swizzle.row_bytes() + k_byte;
    Some(swizzled(logical, swizzle))
}

/// Where `swizzle` puts the byte at `logical`: it XORs address bits 4.. with bits 7.., the
/// 16-byte chunk by the row within its atom (atoms 1024-byte aligned).
pub(crate) const fn swizzled(logical: usize, swizzle: Swizzle) -> usize {
    let chunks = swizzle.row_bytes() / 16 - 1;
    logical ^ ((logical >> 7 & chunks) << 4)
}

/// A shared tile of `ROWS x K` elements of `T` in `wgmma`'s K-major layout, one row of
/// `K * size_of::<T>()` bytes (32, 64 or 128: the swizzle's width) per matrix row, atoms of
/// eight rows 1024-byte aligned: declare it in a [`shared_layout!`](crate::shared_layout).
/// `ROWS` is a multiple of 8.
pub struct MatrixTile<T, const ROWS: usize, const K: usize> {
    elements: Tile1d<T>,
}

impl<T: Copy, const ROWS: usize, const K: usize> MatrixTile<T, ROWS, K> {
    /// The swizzle of a row of `K` elements.
    pub const SWIZZLE: Swizzle = match Swizzle::for_row_bytes(K * size_of::<T>()) {
        Some(swizzle) => swizzle,
        None => panic!("a MatrixTile row is 32, 64 or 128 bytes"),
    };
    const ROW_BYTES: usize = K * size_of::<T>();
    const ROWS_OK: () = assert!(
        ROWS.is_multiple_of(8) && ROWS > 0,
        "a MatrixTile has whole atoms of 8 rows"
    );

    /// The byte offset of element (`row`, `k`) from the tile's start.
    #[inline(always)]
    pub const fn offset_of(row: usize, k: usize) -> usize {
        swizzled(row * Self::ROW_BYTES + k * size_of::<T>(), Self::SWIZZLE)
    }

    /// Element (`row`, `k`); traps when out of the tile.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get(&self, row: usize, k: usize) -> T {
        self.check(row, k);
        self.elements.get(Self::offset_of(row, k) / size_of::<T>())
    }

    /// Sets element (`row`, `k`); traps when out of the tile.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn set(&self, row: usize, k: usize, value: T) {
        self.check(row, k);
        self.elements.set(Self::offset_of(row, k) / size_of::<T>(), value);
    }

    /// The descriptor of the tile's columns `k0 ..`, for an instruction whose K spans 32 bytes
    /// (16 BF16 or FP16, 8 TF32); `k0 * size_of::<T>()` a multiple of 16 inside the row.
    #[inline(always)]
    pub fn descriptor(&self, k0: usize) -> MatrixDescriptor {
        self.descriptor_at(0, k0)
    }

    /// The descriptor of the matrix of the tile's rows `row0 ..` (a multiple of 8: whole atoms)
    /// and columns `k0 ..`: one stage of a tile that holds several, or one warpgroup's rows.
    /// What it names is not checked here (the instructions that read it are `unsafe`).
    #[inline(always)]
    pub fn descriptor_at(&self, row0: usize, k0: usize) -> MatrixDescriptor {
        let start = crate::arch::shared_window_address(self.elements.base_ptr().cast());
        MatrixDescriptor::swizzled(start, 8 * Self::ROW_BYTES as u32, Self::SWIZZLE)
            .advanced((row0 * Self::ROW_BYTES + k0 * size_of::<T>()) as u32)
    }

    /// The generic address of row `row0`'s first byte, where a bulk copy of the rows `row0 ..
    /// row0 + rows` lands; traps unless `row0` is a multiple of 8 and the rows lie in the tile.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub(crate) fn rows_ptr(&self, row0: usize, rows: usize) -> *mut u8 {
        if !row0.is_multiple_of(8) || row0 + rows > ROWS {
            crate::global::index_failure(self.elements.base_ptr() as usize, Self::ROW_BYTES, row0 + rows, ROWS)
        }
        // SAFETY: `row0 < ROWS` (checked): inside the tile's `ROWS * ROW_BYTES` bytes.
        unsafe { self.elements.base_ptr().cast::<u8>().add(row0 * Self::ROW_BYTES) }
    }

    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    fn check(&self, row: usize, k: usize) {
        let () = Self::ROWS_OK;
        if row >= ROWS || k >= K {
            crate::global::index_failure(self.elements.base_ptr() as usize, size_of::<T>(), row * K + k, ROWS * K)
        }
    }
}

impl<T: Copy, const ROWS: usize, const K: usize> SharedTile for MatrixTile<T, ROWS, K> {
    /// An atom's swizzle pattern repeats every 1024 bytes of address: the tile starts on one.
    const ALIGN: usize = 1024;
    fn bytes_for(_: usize) -> usize {
        ROWS * K * size_of::<T>()
    }
    #[inline(always)]
    unsafe fn at(offset: usize, _: usize) -> Self {
        // SAFETY: forwarded to the caller.
        let elements = unsafe { Tile1d::<T>::dynamic_at(offset, ROWS * K) };
        // The pattern needs the window address 1024-aligned, not only the offset.
        if !crate::arch::shared_window_address(elements.base_ptr().cast()).is_multiple_of(1024) {
            crate::global::bounds_failure()
        }
        Self { elements }
    }
}
