//! The multi-GPU matrix transpose's pieces (book §4.1.3 and §4.2.2, Appendices D.4.1-D.4.3):
//! the kernel `cudaTranspose(odata, ldo, idata, ldi)` on a section of one device buffer into a
//! section of another ([`cuda_transpose`]), the decomposition of an `nx x ny` matrix into
//! horizontal slabs, one per device or rank, cut into tiles ([`SlabLayout`]), its stage schedules
//! (peer to peer and MPI), and the CPU transpose the results are checked against ([`cpu`]).
//!
//! Layout, row-major (the book's Fortran `idata(nx, ny)`, x contiguous): the input is `ny` rows
//! of `nx`; the output `nx` rows of `ny`. With `p` parts, part `k` holds input rows
//! `k*ny/p..(k+1)*ny/p` (its input slab, `nx x ny/p`) and output rows `k*nx/p..(k+1)*nx/p` (its
//! output slab, `ny x nx/p`): both slabs are contiguous runs of the whole matrices
//! ([`SlabLayout::input_slab`], [`SlabLayout::output_slab`]). Tile `s` of a slab is its columns
//! `s*nx/p..` (input) or `s*ny/p..` (output); part `r`'s output tile `s` is the transpose of
//! part `s`'s input tile `r`.
//!
//! ```
//! use ferrocuda::transpose::{self, SlabLayout};
//! let gpu = ferrocuda::Gpu::from_env(0)?;
//! // One device holding the whole matrix: stage 0 only, the diagonal tile is everything.
//! let layout = SlabLayout::new(64, 96, 1)?;
//! let input: Vec<f32> = (0..64 * 96).map(|i| i as f32).collect();
//! let idata = gpu.upload(&input)?;
//! let mut odata = gpu.zeros::<f32>(layout.output_slab_len())?;
//! transpose::cuda_transpose(&gpu, None, &mut odata, &idata, layout.tile_transpose(0))?;
//! assert_eq!(gpu.download(&odata)?, transpose::cpu(&input, 64, 96)?);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use crate::gpu::{Copy2d, DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result, Stream};
use ferrocuda_device::launch::Kernel;
use gpu_kernels::transpose::{
    BLOCK_ROWS, CudaTranspose, CudaTransposeArgs, TILE_BYTES, TransposeWide, WIDE_BLOCK_ROWS, WIDE_TILE,
    WIDE_TILE_BYTES,
};
use rayon::prelude::*;
use std::ops::Range;

/// The book's `cudaTileDim`: the side of the tile one block transposes.
pub const TILE_DIM: usize = gpu_kernels::transpose::TILE_DIM;
/// The book's `blockRows`: blocks are `TILE_DIM x BLOCK_ROWS` threads.
pub const CUDA_BLOCK_ROWS: usize = BLOCK_ROWS;

/// One call of `cudaTranspose`: the input section `ny` rows of `nx` elements, `ldi` apart, from
/// element `idata_offset`, transposed into the output section `nx` rows of `ny`, `ldo` apart,
/// from element `odata_offset` (all in elements).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TransposeTile {
    pub odata_offset: usize,
    pub ldo: usize,
    pub idata_offset: usize,
    pub ldi: usize,
    /// Contiguous extent of the input section (the book's `p2pTileDimX`).
    pub nx: usize,
    /// Rows of the input section (the book's `p2pTileDimY`).
    pub ny: usize,
}

impl TransposeTile {
    /// The whole `ny x nx` row-major matrix into its `nx x ny` transpose.
    pub fn whole(nx: usize, ny: usize) -> Self {
        Self {
            odata_offset: 0,
            ldo: ny,
            idata_offset: 0,
            ldi: nx,
            nx,
            ny,
        }
    }

    /// The launch: `32 x 8` threads per `32 x 32` tile, `ceil(nx/32) x ceil(ny/32)` blocks
    /// (the book's `dimGrid`, `dimBlock`), the padded tile in dynamic shared memory.
    pub fn shape(&self) -> Result<LaunchShape> {
        LaunchShape::cover_2d(self.nx, self.ny, (TILE_DIM as u32, TILE_DIM as u32)).map(|s| {
            LaunchShape::new(s.grid, (TILE_DIM as u32, BLOCK_ROWS as u32, 1)).with_shared_bytes(TILE_BYTES as u32)
        })
    }

    /// The launch of [`transpose`]: `32 x 8` threads per `64 x 64` tile, `ceil(nx/64) x
    /// ceil(ny/64)` blocks, the padded tile in dynamic shared memory.
    pub fn wide_shape(&self) -> Result<LaunchShape> {
        LaunchShape::cover_2d(self.nx, self.ny, (WIDE_TILE as u32, WIDE_TILE as u32)).map(|s| {
            LaunchShape::new(s.grid, (32, WIDE_BLOCK_ROWS as u32, 1)).with_shared_bytes(WIDE_TILE_BYTES as u32)
        })
    }

    /// Checks both sections lie inside buffers of `odata_len` and `idata_len` elements and fit
    /// the kernel's 32-bit extents.
    pub fn check(&self, odata_len: usize, idata_len: usize) -> Result<()> {
        let end = |offset: usize, pitch: usize, rows: usize, width: usize| {
            (rows.max(1) - 1)
                .checked_mul(pitch)
                .and_then(|r| r.checked_add(offset))
                .and_then(|r| r.checked_add(width))
        };
        if self.nx == 0 || self.ny == 0 {
            return Err(Error::InvalidArgument(
                "cudaTranspose needs a tile of at least 1 x 1 elements".into(),
            ));
        }
        let fits_u32 = [self.nx, self.ny, self.ldi, self.ldo]
            .iter()
            .all(|&v| u32::try_from(v).is_ok());
        let input_fits =
            self.nx <= self.ldi && end(self.idata_offset, self.ldi, self.ny, self.nx).is_some_and(|e| e <= idata_len);
        let output_fits =
            self.ny <= self.ldo && end(self.odata_offset, self.ldo, self.nx, self.ny).is_some_and(|e| e <= odata_len);
        if !fits_u32 || !input_fits || !output_fits {
            return Err(Error::InvalidArgument(format!(
                "cudaTranspose's sections {self:?} do not fit an output of {odata_len} and an input of {idata_len} elements (or a width exceeds its leading dimension)"
            )));
        }
        Ok(())
    }
}

/// Launches `cudaTranspose` on `stream` (this GPU's own stream for `None`): the section `tile`
/// of `idata` transposed into the section of `odata`; returns once it is queued.
pub fn cuda_transpose(
    gpu: &Gpu,
    stream: Option<&Stream>,
    odata: &mut DeviceBuffer<f32>,
    idata: &DeviceBuffer<f32>,
    tile: TransposeTile,
) -> Result<()> {
    launch(
        gpu,
        stream,
        CudaTranspose,
        tile.shape()?,
        kernel_args(odata, idata, tile)?,
    )
}

/// The library's fastest transpose (`transpose_wide`: 64 x 64 tiles, 8-byte accesses where the
/// sections' rows start at even elements): as [`cuda_transpose`], for callers who want speed,
/// not the book's kernel. 16384^2 f32 on an H100: about 0.975 of memcpy, against 0.945 for
/// the book's 32 x 32 tile (`cargo xtask bench --only ch3`).
///
/// ```
/// use ferrocuda::transpose::{self, TransposeTile};
/// let gpu = ferrocuda::Gpu::from_env(0)?;
/// let (nx, ny) = (100, 70);
/// let input: Vec<f32> = (0..nx * ny).map(|i| i as f32).collect();
/// let idata = gpu.upload(&input)?;
/// let mut odata = gpu.zeros::<f32>(nx * ny)?;
/// transpose::transpose(&gpu, None, &mut odata, &idata, TransposeTile::whole(nx, ny))?;
/// assert_eq!(gpu.download(&odata)?, transpose::cpu(&input, nx, ny)?);
/// # Ok::<(), ferrocuda::Error>(())
/// ```
pub fn transpose(
    gpu: &Gpu,
    stream: Option<&Stream>,
    odata: &mut DeviceBuffer<f32>,
    idata: &DeviceBuffer<f32>,
    tile: TransposeTile,
) -> Result<()> {
    launch(
        gpu,
        stream,
        TransposeWide,
        tile.wide_shape()?,
        kernel_args(odata, idata, tile)?,
    )
}

/// Launches either transpose kernel from the library on `stream` (the GPU's own for `None`).
fn launch<'a, K: Kernel<CudaTransposeArgs<'a>>>(
    gpu: &Gpu,
    stream: Option<&Stream>,
    kernel: K,
    shape: LaunchShape,
    args: CudaTransposeArgs<'a>,
) -> Result<()> {
    let kernels = gpu.library()?;
    match stream {
        Some(s) => kernels.launch_on(s, kernel, shape, args),
        None => kernels.launch(kernel, shape, args),
    }
}

/// Both kernels' arguments for `tile`, after [`TransposeTile::check`].
fn kernel_args<'a>(
    odata: &'a mut DeviceBuffer<f32>,
    idata: &'a DeviceBuffer<f32>,
    tile: TransposeTile,
) -> Result<CudaTransposeArgs<'a>> {
    tile.check(odata.len(), idata.len())?;
    let narrow = |v: usize| v as u32; // `check` held each to 32 bits.
    Ok(CudaTransposeArgs {
        odata: odata.view_mut(),
        idata: idata.view(),
        odata_offset: tile.odata_offset as u64,
        idata_offset: tile.idata_offset as u64,
        ldo: narrow(tile.ldo),
        ldi: narrow(tile.ldi),
        nx: narrow(tile.nx),
        ny: narrow(tile.ny),
    })
}

/// An `nx x ny` matrix cut into `parts` horizontal slabs (one per device or rank), each cut into
/// `parts` tiles of `nx/parts x ny/parts`: the book's `p2pTileDimX x p2pTileDimY` (or
/// `mpiTileDim*`). Built only when the book's conditions hold.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlabLayout {
    nx: usize,
    ny: usize,
    parts: usize,
}

impl SlabLayout {
    /// Checks the book's conditions: `nx` and `ny` multiples of `parts`, and the tile extents
    /// multiples of `cudaTileDim` (32); an `Error::InvalidArgument` with the book's message
    /// otherwise.
    pub fn new(nx: usize, ny: usize, parts: usize) -> Result<Self> {
        if parts == 0 {
            return Err(Error::InvalidArgument(
                "the matrix needs at least one device (nDevices = 0)".into(),
            ));
        }
        if nx == 0 || ny == 0 {
            return Err(Error::InvalidArgument(format!(
                "the matrix needs at least one element each way, not {nx} x {ny}"
            )));
        }
        if !nx.is_multiple_of(parts) || !ny.is_multiple_of(parts) {
            return Err(Error::InvalidArgument(format!(
                "nx, ny must be multiples of nDevices (nx = {nx}, ny = {ny}, nDevices = {parts})"
            )));
        }
        let (tile_nx, tile_ny) = (nx / parts, ny / parts);
        if !tile_nx.is_multiple_of(TILE_DIM) || !tile_ny.is_multiple_of(TILE_DIM) {
            return Err(Error::InvalidArgument(format!(
                "p2pTileDim* must be multiples of cudaTileDim (p2pTileDim = {tile_nx} x {tile_ny}, cudaTileDim = {TILE_DIM})"
            )));
        }
        if nx
            .checked_mul(ny)
            .is_none_or(|n| n.checked_mul(size_of::<f32>()).is_none())
        {
            return Err(Error::InvalidArgument(format!(
                "a {nx} x {ny} matrix does not fit this machine's address space"
            )));
        }
        Ok(Self { nx, ny, parts })
    }

    /// Columns of the whole input (its contiguous extent).
    pub fn nx(&self) -> usize {
        self.nx
    }

    /// Rows of the whole input.
    pub fn ny(&self) -> usize {
        self.ny
    }

    /// Slabs (devices or ranks).
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The tile extents `(nx/parts, ny/parts)`: the book's `p2pTileDimX, p2pTileDimY`.
    pub fn tile_extents(&self) -> (usize, usize) {
        (self.nx / self.parts, self.ny / self.parts)
    }

    /// Elements of an input slab (`nx x ny/parts`; also the receive buffer's).
    pub fn input_slab_len(&self) -> usize {
        self.nx * (self.ny / self.parts)
    }

    /// Elements of an output slab (`ny x nx/parts`).
    pub fn output_slab_len(&self) -> usize {
        self.ny * (self.nx / self.parts)
    }

    /// Elements of one tile (`nx/parts x ny/parts`): the bytes one stage moves, over 4.
    pub fn tile_len(&self) -> usize {
        let (tx, ty) = self.tile_extents();
        tx * ty
    }

    /// Part `part`'s input slab within the whole row-major input.
    pub fn input_slab(&self, part: usize) -> Range<usize> {
        let len = self.input_slab_len();
        part * len..(part + 1) * len
    }

    /// Part `part`'s output slab within the whole row-major output.
    pub fn output_slab(&self, part: usize) -> Range<usize> {
        let len = self.output_slab_len();
        part * len..(part + 1) * len
    }

    /// Offset of tile `tile` within an input slab (or receive buffer): `tile * nx/parts`, the
    /// book's `d_idata(p)%v(tile*p2pTileDimX+1, 1)`; rows are `nx` apart.
    pub fn input_tile_offset(&self, tile: usize) -> usize {
        tile * (self.nx / self.parts)
    }

    /// Offset of tile `tile` within an output slab: `tile * ny/parts`, the book's
    /// `d_tdata(p)%v(tile*p2pTileDimY+1, 1)`; rows are `ny` apart.
    pub fn output_tile_offset(&self, tile: usize) -> usize {
        tile * (self.ny / self.parts)
    }

    /// The transpose of input tile `from` (of a slab or a receive buffer laid out as one) into
    /// output tile `from` of an output slab: stage 0's diagonal tile (`from` = the part itself),
    /// or the tile received from part `from`.
    pub fn tile_transpose(&self, from: usize) -> TransposeTile {
        let (nx, ny) = self.tile_extents();
        TransposeTile {
            odata_offset: self.output_tile_offset(from),
            ldo: self.ny,
            idata_offset: self.input_tile_offset(from),
            ldi: self.nx,
            nx,
            ny,
        }
    }

    /// The peer-to-peer stage copy for `receiver` from `sender`: tile `receiver` of the sender's
    /// input slab into tile `sender` of the receiver's receive buffer (the book's
    /// `cudaMemcpy2DAsync(d_rdata(rDev)%v(sDev*p2pTileDimX+1,1), nx, d_idata(sDev)%v(rDev*p2pTileDimX+1,1), nx, ...)`).
    pub fn peer_copy(&self, receiver: usize, sender: usize) -> Copy2d {
        let (nx, ny) = self.tile_extents();
        Copy2d {
            src_offset: self.input_tile_offset(receiver),
            src_pitch: self.nx,
            dst_offset: self.input_tile_offset(sender),
            dst_pitch: self.nx,
            width: nx,
            height: ny,
        }
    }

    /// The MPI pack: tile `to` of an input slab into a dense `nx/parts x ny/parts` buffer (rows
    /// `nx/parts` apart), the book's `cudaMemcpy2D(sTile, mpiTileDimX, d_idata(sRank*mpiTileDimX+1,1), nx, ...)`.
    pub fn pack_copy(&self, to: usize) -> Copy2d {
        let (nx, ny) = self.tile_extents();
        Copy2d {
            src_offset: self.input_tile_offset(to),
            src_pitch: self.nx,
            dst_offset: 0,
            dst_pitch: nx,
            width: nx,
            height: ny,
        }
    }

    /// The transpose of a dense received tile (rows `nx/parts` apart, from part `from`) into
    /// output tile `from`: the book's `cudaTranspose(d_tdata(rRank*mpiTileDimY+1,1), ny, d_rTile, mpiTileDimX)`.
    pub fn packed_transpose(&self, from: usize) -> TransposeTile {
        let (nx, ny) = self.tile_extents();
        TransposeTile {
            odata_offset: self.output_tile_offset(from),
            ldo: self.ny,
            idata_offset: 0,
            ldi: nx,
            nx,
            ny,
        }
    }

    /// Peer to peer, stage `stage` (0..parts): the part `receiver` gets its tile from, `(stage +
    /// receiver) mod parts` (the book's `sDev`; stage 0 is the part itself, the diagonal).
    pub fn p2p_sender(&self, stage: usize, receiver: usize) -> usize {
        (stage + receiver) % self.parts
    }

    /// MPI, stage `stage`: the rank `me` sends its tile to, `(me - stage) mod parts` (`sRank`).
    pub fn mpi_send_to(&self, stage: usize, me: usize) -> usize {
        (me + self.parts - stage % self.parts) % self.parts
    }

    /// MPI, stage `stage`: the rank `me` receives from, `(me + stage) mod parts` (`rRank`).
    pub fn mpi_receive_from(&self, stage: usize, me: usize) -> usize {
        (me + stage) % self.parts
    }
}

/// The CPU transpose (rayon): `input` is `ny` rows of `nx`, the result `nx` rows of `ny`.
pub fn cpu(input: &[f32], nx: usize, ny: usize) -> Result<Vec<f32>> {
    if nx.checked_mul(ny) != Some(input.len()) {
        return Err(Error::InvalidArgument(format!(
            "a {nx} x {ny} transpose needs {nx} x {ny} input elements, not {}",
            input.len()
        )));
    }
    let mut output = vec![0.0f32; input.len()];
    if !output.is_empty() {
        output.par_chunks_mut(ny).enumerate().for_each(|(x, row)| {
            for (y, value) in row.iter_mut().enumerate() {
                *value = input[y * nx + x];
            }
        });
    }
    Ok(output)
}
