//! Loops launched as kernels with the launch shape chosen for you: CUDA Fortran's kernel loop
//! directives (`!$cuf kernel do`, book §3.7) for Rust kernels.
//!
//! A CUF directive names the loop's range and, in chevrons, the grid and block, either of which
//! may be `*` ("choose for me"); the compiler turns the loop body into a kernel. Here the body is
//! a kernel of yours that walks its share of the range with the device library's grid-stride
//! iterators (`grid_stride_range(n)` in 1-D, `grid_stride_range_2d(nx, ny)` in 2-D), and a
//! [`KernelLoop`] picks the shape as CUF does:
//!
//! | CUF | here | shape |
//! | --- | --- | --- |
//! | `!$cuf kernel do <<<*, tPB>>>` | `KernelLoop::new_1d(n, Auto, Fixed(tpb))` | `ceil(n / tPB)` blocks of `tPB`: one element per thread |
//! | `!$cuf kernel do <<<1024, tPB>>>` | `KernelLoop::new_1d(n, Fixed(1024), Fixed(tpb))` | 1024 blocks; each thread strides over `ceil(n / (1024 tPB))` elements |
//! | `!$cuf kernel do <<<*, *>>>` | `KernelLoop::new_1d(n, Auto, Auto)` | blocks of [`AUTO_THREADS_PER_BLOCK`] covering `n` |
//! | `!$cuf kernel do (2) <<<(*,*), (32,8)>>>` | `KernelLoop::new_2d(nx, ny, (Auto, Auto), (Fixed(32), Fixed(8)))` | `ceil(nx/32) x ceil(ny/8)` blocks of 32 x 8 |
//! | `<<<*, *, 0, stream>>>` | [`KernelLoop::launch_on`] | the same shape, on `stream` |
//!
//! An automatic grid larger than CUDA allows (2^31 - 1 blocks in x, 65535 in y) is capped there,
//! and the grid-stride loop hands each thread the rest: an automatic shape never fails. Bad
//! chevrons (an empty or oversized block, a fixed grid of 0 or past CUDA's limit) are an error in
//! one sentence.
//!
//! Reductions (`aSum = aSum + a_d(i)` in a CUF loop, which the compiler turns into a reduction)
//! are [`crate::reduce`]'s: `reduce::sum(&gpu, &a_d)`.
//!
//! ```
//! use ferrocuda::cuf::{Dim, KernelLoop};
//! use ferrocuda::device::prelude::*;
//! use ferrocuda::{Gpu, KernelSet, KernelView};
//!
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! pub struct AddArgs<'a> { pub a: SliceMut<'a, i32>, pub b: i32 }
//!
//! /// The loop body: `a(i) = a(i) + b` over this thread's share of the range.
//! #[kernel]
//! pub fn add(args: AddArgs<'_>) {
//!     for i in grid_stride_range(args.a.len()) {
//!         args.a.update(i, |x| x + args.b);
//!     }
//! }
//! // In a project: `ferrocuda::include_kernels!("my_kernels")`; the simulator needs no PTX.
//! static KERNELS: KernelSet = KernelSet::new(env!("CARGO_CRATE_NAME"), &[]);
//!
//! let gpu = Gpu::simulator(); // or Gpu::from_env(0)?
//! let n = 1000;
//! let mut a_d = gpu.upload(&vec![1; n])?;
//! // !$cuf kernel do <<<*, 256>>>
//! let cuf_loop = KernelLoop::new_1d(n, Dim::Auto, Dim::Fixed(256))?;
//! assert_eq!(cuf_loop.shape().grid, (4, 1, 1));
//! cuf_loop.launch(&gpu.load(&KERNELS)?, Add, AddArgs { a: a_d.view_mut(), b: 3 })?;
//! assert!(gpu.download(&a_d)?.iter().all(|&a| a == 4));
//! // !$cuf kernel do <<<2, 64>>>: each of the 128 threads takes 8 elements (the last takes 7).
//! let cuf_loop = KernelLoop::new_1d(n, Dim::Fixed(2), Dim::Fixed(64))?;
//! assert_eq!(cuf_loop.elements_per_thread(), 8);
//! cuf_loop.launch(&gpu.load(&KERNELS)?, Add, AddArgs { a: a_d.view_mut(), b: 3 })?;
//! assert!(gpu.download(&a_d)?.iter().all(|&a| a == 7));
//! // A sum is `ferrocuda::reduce`'s.
//! assert_eq!(ferrocuda::reduce::sum(&gpu, &a_d)?, 7000);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use crate::gpu::{Error, LaunchShape, LoadedKernels, Result, Stream};
use ferrocuda_device::launch::{Kernel, KernelArgs};
use std::fmt;

/// Threads per block of a 1-D loop whose block is `*`: eight warps, enough for latency hiding
/// with room for eight blocks on an SM.
pub const AUTO_THREADS_PER_BLOCK: u32 = 256;
/// The block of a 2-D loop whose block is `(*, *)`: the book's `(32, 8)`, a warp along the
/// contiguous `i`, so each warp's accesses are one coalesced row segment.
pub const AUTO_BLOCK_2D: (u32, u32) = (32, 8);
/// CUDA's most threads per block (every compute capability since 2.0).
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;
/// CUDA's largest grid, blocks in x and in y (compute capability 3.0 and later).
pub const MAX_GRID: (u32, u32) = (i32::MAX as u32, 65535);

/// One extent of a CUF chevron: `*` (chosen for the range) or a number.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dim {
    /// `*`: a grid covering the range (capped at [`MAX_GRID`]), or the default block.
    Auto,
    /// A number of blocks (grid) or threads (block).
    Fixed(u32),
}

impl fmt::Display for Dim {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Dim::Auto => f.write_str("*"),
            Dim::Fixed(n) => write!(f, "{n}"),
        }
    }
}

/// A loop over a 1-D or 2-D index range, launched as a kernel with the shape CUF would choose:
/// its range, and the [`LaunchShape`] its chevrons make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KernelLoop {
    nx: usize,
    ny: usize,
    shape: LaunchShape,
}

impl KernelLoop {
    /// `!$cuf kernel do <<<grid, block>>>` over `0..n`: an automatic grid has `ceil(n / block)`
    /// blocks (at least one, at most `MAX_GRID.0`).
    pub fn new_1d(n: usize, grid: Dim, block: Dim) -> Result<Self> {
        let threads = threads("x", block, AUTO_THREADS_PER_BLOCK)?;
        let blocks = blocks("x", grid, n, threads, MAX_GRID.0)?;
        Ok(Self {
            nx: n,
            ny: 1,
            shape: LaunchShape::new((blocks, 1, 1), (threads, 1, 1)),
        })
    }

    /// `!$cuf kernel do (2) <<<(gx, gy), (bx, by)>>>` over `0..nx` (inner, `threadIdx%x`) and
    /// `0..ny` (outer, `threadIdx%y`): an automatic grid covers each extent (capped at
    /// [`MAX_GRID`]); a `(*, *)` block is [`AUTO_BLOCK_2D`].
    pub fn new_2d(nx: usize, ny: usize, grid: (Dim, Dim), block: (Dim, Dim)) -> Result<Self> {
        let (bx, by) = match block {
            (Dim::Auto, Dim::Auto) => AUTO_BLOCK_2D,
            (x, y) => (threads("x", x, AUTO_BLOCK_2D.0)?, threads("y", y, AUTO_BLOCK_2D.1)?),
        };
        let per_block = u64::from(bx) * u64::from(by);
        if per_block > u64::from(MAX_THREADS_PER_BLOCK) {
            return Err(Error::InvalidArgument(format!(
                "a block of {bx} x {by} = {per_block} threads is more than CUDA's {MAX_THREADS_PER_BLOCK} per block"
            )));
        }
        let gx = blocks("x", grid.0, nx, bx, MAX_GRID.0)?;
        let gy = blocks("y", grid.1, ny, by, MAX_GRID.1)?;
        Ok(Self {
            nx,
            ny,
            shape: LaunchShape::new((gx, gy, 1), (bx, by, 1)),
        })
    }

    /// The launch shape chosen.
    pub fn shape(&self) -> LaunchShape {
        self.shape
    }

    /// The range: `(n, 1)` for a 1-D loop, `(nx, ny)` for a 2-D one.
    pub fn extent(&self) -> (usize, usize) {
        (self.nx, self.ny)
    }

    /// The most elements one thread handles: `ceil(nx / threads in x) * ceil(ny / threads in
    /// y)`; 1 when the grid covers the range, 0 for an empty range.
    pub fn elements_per_thread(&self) -> usize {
        let (g, b) = (self.shape.grid, self.shape.block);
        // Threads along an axis: at most (2^31 - 1) x 1024 < 2^41, no overflow in u64.
        let along = |n: usize, blocks: u32, threads: u32| (n as u64).div_ceil(u64::from(blocks) * u64::from(threads));
        // Each factor is at most its extent, and the product at most `nx * ny` elements.
        (along(self.nx, g.0, b.0) * along(self.ny, g.1, b.1)) as usize
    }

    /// Launches `kernel`, the loop body, with `args` on the `Gpu`'s stream (`<<<grid, block>>>`).
    ///
    /// The body must walk its share with `grid_stride_range` (1-D) or `grid_stride_range_2d`
    /// (2-D) over this loop's [`extent`](Self::extent): a fixed or capped grid has fewer threads
    /// than elements.
    pub fn launch<K: Kernel<A>, A: KernelArgs>(&self, kernels: &LoadedKernels, kernel: K, args: A) -> Result<()> {
        kernels.launch(kernel, self.shape, args)
    }

    /// As [`launch`](Self::launch), on `stream` (`<<<grid, block, 0, stream>>>`).
    pub fn launch_on<K: Kernel<A>, A: KernelArgs>(
        &self,
        stream: &Stream,
        kernels: &LoadedKernels,
        kernel: K,
        args: A,
    ) -> Result<()> {
        kernels.launch_on(stream, kernel, self.shape, args)
    }
}

impl fmt::Display for KernelLoop {
    /// As the book's profiler shows a launch: `gridsize [4096, 1], threadblocksize [256, 1, 1]`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (g, b) = (self.shape.grid, self.shape.block);
        write!(
            f,
            "gridsize [{}, {}], threadblocksize [{}, {}, {}]",
            g.0, g.1, b.0, b.1, b.2
        )
    }
}

/// The threads of a block along `axis`: `auto` for `*`, else the number, refused when 0 or past
/// CUDA's per-block limit.
fn threads(axis: &str, block: Dim, auto: u32) -> Result<u32> {
    match block {
        Dim::Auto => Ok(auto),
        Dim::Fixed(0) => Err(Error::InvalidArgument(format!(
            "a CUF loop's block needs at least one thread in {axis}, not 0"
        ))),
        Dim::Fixed(t) if t > MAX_THREADS_PER_BLOCK => Err(Error::InvalidArgument(format!(
            "a block of {t} threads in {axis} is more than CUDA's {MAX_THREADS_PER_BLOCK} per block"
        ))),
        Dim::Fixed(t) => Ok(t),
    }
}

/// The blocks of the grid along `axis` for `n` elements and blocks of `threads`: for `*`,
/// `ceil(n / threads)` (at least 1, at most `max`: the grid-stride loop covers the rest), else
/// the number, refused when 0 or past `max`.
fn blocks(axis: &str, grid: Dim, n: usize, threads: u32, max: u32) -> Result<u32> {
    match grid {
        Dim::Auto => Ok(u32::try_from(n.div_ceil(threads as usize)).unwrap_or(max).clamp(1, max)),
        Dim::Fixed(0) => Err(Error::InvalidArgument(format!(
            "a CUF loop's grid needs at least one block in {axis}, not 0"
        ))),
        Dim::Fixed(g) if g > max => Err(Error::InvalidArgument(format!(
            "a grid of {g} blocks in {axis} is more than CUDA's {max}"
        ))),
        Dim::Fixed(g) => Ok(g),
    }
}
