//! One partition's grid on one GPU: the SOR variant, its storage in the layout its kernel needs
//! (the layouts and their rectangles are [`super::layout`]'s), half-sweeps of a region, the
//! residual.
pub use super::layout::{Layout, Rect};

use super::domain::{check_extents, check_grid_len, check_omega};
use crate::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, LoadedKernels, NcclElement, Result, Stream};
use ferrocuda_device::collective::Reducible;
use ferrocuda_device::collective::block::BLOCK_REDUCE_SCRATCH;
use ferrocuda_device::real::Real;
use gpu_kernels::sor::{
    BLACK, BsorGm, BsorLintex, LOCAL_W, RED, Region, ResidualArgs, RsorGm, RsorLintex, SPLIT_BLOCK, SorResidual,
    SorResidualSplit, SorSplit, SorTiled, SplitArgs, TILE_H, TILE_HALO, TILE_W, TILED_BLOCK, TiledArgs, WINDOW_STEP_X,
    WINDOW_STEP_Y, WindowArgs, split_span, tiled_bytes, window_bytes,
};
use std::fmt;
use std::str::FromStr;

/// The SOR variant: which kernels update the grid, and so how it is stored.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Variant {
    /// The thesis's 4 x 112 shared window, global loads (`rsor_gm`, `bsor_gm`).
    Gm,
    /// The same window through the read-only path, in place of the thesis's texture kernels
    /// (`rsor_lintex`, `bsor_lintex`).
    Lintex,
    /// Red and black stored apart, every access coalesced (`sor_split`).
    #[default]
    Split,
    /// Up to four half-sweeps per launch in shared-memory tiles (`sor_tiled`), out of place: one
    /// GPU only.
    Tiled,
}

impl Variant {
    /// All of them, in the order tables print them.
    pub const ALL: [Variant; 4] = [Variant::Gm, Variant::Lintex, Variant::Split, Variant::Tiled];

    /// True for the kernels that update a region in place, one half-sweep per launch, which the
    /// multi-GPU solver interleaves with its border exchange.
    pub fn runs_partitioned(self) -> bool {
        self != Variant::Tiled
    }

    /// How the kernel needs the grid stored.
    pub fn layout(self) -> Layout {
        match self {
            Variant::Gm | Variant::Lintex | Variant::Tiled => Layout::Natural,
            Variant::Split => Layout::Split,
        }
    }
}

impl FromStr for Variant {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "gm" => Ok(Self::Gm),
            "lintex" | "tex" => Ok(Self::Lintex),
            "split" => Ok(Self::Split),
            "tiled" => Ok(Self::Tiled),
            other => Err(Error::InvalidArgument(format!(
                "the kernel is gm, lintex, split or tiled, not `{other}`"
            ))),
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::Gm => "gm",
            Self::Lintex => "lintex",
            Self::Split => "split",
            Self::Tiled => "tiled",
        })
    }
}

/// The element types of the solver (which NCCL also transfers), with the launches of their
/// kernel instances from a loaded kernel set.
pub trait SorReal: Real + Reducible + NcclElement + Into<f64> + Default + Send + Sync {
    /// Launches `variant`'s half-sweep of `color` on the natural layout.
    fn launch_window(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        variant: Variant,
        color: u32,
        shape: LaunchShape,
        args: WindowArgs<'_, Self>,
    ) -> Result<()>;
    /// Launches the split layout's half-sweep.
    fn launch_split(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: SplitArgs<'_, Self>,
    ) -> Result<()>;
    /// Launches the temporally blocked kernel.
    fn launch_tiled(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: TiledArgs<'_, Self>,
    ) -> Result<()>;
    /// Launches the residual kernel of `layout`.
    fn launch_residual(gpu: &Gpu, layout: Layout, shape: LaunchShape, args: ResidualArgs<'_, Self>) -> Result<()>;
}

macro_rules! sor_real {
    ($($t:ty),*) => {$(
        impl SorReal for $t {
            fn launch_window(kernels: &LoadedKernels, stream: Option<&Stream>, variant: Variant, color: u32, shape: LaunchShape, args: WindowArgs<'_, Self>) -> Result<()> {
                match (variant, color) {
                    (Variant::Lintex, RED) => kernels.launch_maybe_on(stream, RsorLintex, shape, args),
                    (Variant::Lintex, _) => kernels.launch_maybe_on(stream, BsorLintex, shape, args),
                    (_, RED) => kernels.launch_maybe_on(stream, RsorGm, shape, args),
                    (_, _) => kernels.launch_maybe_on(stream, BsorGm, shape, args),
                }
            }
            fn launch_split(kernels: &LoadedKernels, stream: Option<&Stream>, shape: LaunchShape, args: SplitArgs<'_, Self>) -> Result<()> {
                kernels.launch_maybe_on(stream, SorSplit, shape, args)
            }
            fn launch_tiled(kernels: &LoadedKernels, stream: Option<&Stream>, shape: LaunchShape, args: TiledArgs<'_, Self>) -> Result<()> {
                kernels.launch_maybe_on(stream, SorTiled, shape, args)
            }
            fn launch_residual(gpu: &Gpu, layout: Layout, shape: LaunchShape, args: ResidualArgs<'_, Self>) -> Result<()> {
                match layout {
                    Layout::Natural => gpu.library()?.launch(SorResidual, shape, args),
                    Layout::Split => gpu.library()?.launch(SorResidualSplit, shape, args),
                }
            }
        }
    )*};
}
sor_real!(f32, f64);

/// Blocks of the residual kernels: enough to fill any GPU, few enough to fold on the host.
const RESIDUAL_GRID: (u32, u32) = (32, 64);

/// A `rows x cols` grid (a whole domain, or one partition with its ghost layers) on one GPU.
pub struct DeviceGrid<T> {
    variant: Variant,
    planes: Vec<DeviceBuffer<T>>,
    rows: usize,
    cols: usize,
    parity: u32,
    partials: DeviceBuffer<T>,
    /// The tiled kernel's second grid: each launch writes it from the first, then they swap.
    scratch: Option<DeviceBuffer<T>>,
}

impl<T: SorReal> DeviceGrid<T> {
    /// Uploads the natural `rows x cols` grid `grid`, whose local `(0, 0)` has absolute parity
    /// `parity`, stored as `variant` needs it.
    pub fn upload(gpu: &Gpu, variant: Variant, grid: &[T], rows: usize, cols: usize, parity: u32) -> Result<Self> {
        check_extents(rows, cols)?;
        check_grid_len(grid.len(), rows, cols)?;
        let planes = variant
            .layout()
            .store(grid, rows, cols, parity)
            .iter()
            .map(|p| gpu.upload(p))
            .collect::<Result<Vec<_>>>()?;
        let partials = gpu.zeros((RESIDUAL_GRID.0 * RESIDUAL_GRID.1) as usize)?;
        let scratch = match variant {
            Variant::Tiled => Some(gpu.zeros(rows * cols)?),
            _ => None,
        };
        Ok(Self {
            variant,
            planes,
            rows,
            cols,
            parity: parity & 1,
            partials,
            scratch,
        })
    }

    /// The natural grid.
    pub fn download(&self, gpu: &Gpu) -> Result<Vec<T>> {
        let planes = self
            .planes
            .iter()
            .map(|p| gpu.download(p))
            .collect::<Result<Vec<_>>>()?;
        Ok(self.layout().load(&planes, self.rows, self.cols, self.parity))
    }

    /// The variant whose kernels update it.
    pub fn variant(&self) -> Variant {
        self.variant
    }

    /// Its storage layout.
    pub fn layout(&self) -> Layout {
        self.variant.layout()
    }

    /// Rows and columns.
    pub fn extents(&self) -> (usize, usize) {
        (self.rows, self.cols)
    }

    /// Elements a stored row.
    pub fn pitch(&self) -> usize {
        self.layout().pitch(self.cols)
    }

    /// The stored planes (one, or red and black).
    pub fn planes(&self) -> &[DeviceBuffer<T>] {
        &self.planes
    }

    /// The stored planes, writable (the border exchange writes ghost layers).
    pub fn planes_mut(&mut self) -> &mut [DeviceBuffer<T>] {
        &mut self.planes
    }

    /// Every point but the outermost rows and columns.
    pub fn interior(&self) -> Region {
        super::cpu::interior(self.rows, self.cols)
    }

    /// The launch shape of a half-sweep of `region`: the thesis's 112-thread blocks, one per
    /// 110 x 2 window, or 32 x 8 threads per block over one colour's points.
    pub fn shape(&self, region: Region) -> Result<LaunchShape> {
        match self.variant {
            Variant::Gm | Variant::Lintex => Ok(LaunchShape::new(
                (
                    region.cols().div_ceil(WINDOW_STEP_X) as u32,
                    region.rows().div_ceil(WINDOW_STEP_Y) as u32,
                    1,
                ),
                (LOCAL_W as u32, 1, 1),
            )
            .with_shared_bytes(window_bytes(size_of::<T>()) as u32)),
            Variant::Split => LaunchShape::cover_2d(split_span(&region), region.rows(), SPLIT_BLOCK),
            // Tiles cover the whole array: every point of the output grid is written.
            Variant::Tiled => Ok(LaunchShape::new(
                (self.cols.div_ceil(TILE_W) as u32, self.rows.div_ceil(TILE_H) as u32, 1),
                (TILED_BLOCK.0, TILED_BLOCK.1, 1),
            )
            .with_shared_bytes(tiled_bytes(size_of::<T>()) as u32)),
        }
    }

    /// Updates the points of `color` in `region`, on `stream` (or the GPU's own stream); refuses
    /// omega outside (0, 2) and a region that reaches the grid's edge.
    pub fn half_sweep(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        region: Region,
        color: u32,
        omega: T,
    ) -> Result<()> {
        self.half_sweep_with(&gpu.library()?, stream, region, color, omega)
    }

    /// [`DeviceGrid::half_sweep`] with the kernels of `kernels`: a set whose PTX defines this
    /// variant's entry points under the library's names and argument layouts (PTX built from
    /// other sources and loaded with [`Gpu::load_ptx`], say). An entry point the set lacks is an
    /// error naming it.
    pub fn half_sweep_with(
        &mut self,
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        region: Region,
        color: u32,
        omega: T,
    ) -> Result<()> {
        check_omega(omega.to_f64())?;
        if !region.fits(self.rows, self.cols) {
            return Err(Error::InvalidArgument(format!(
                "the region {region:?} reaches the edge of a {} x {} grid",
                self.rows, self.cols
            )));
        }
        if region.is_empty() {
            return Ok(());
        }
        let (rows, cols, pitch) = (self.rows as u32, self.cols as u32, self.pitch() as u32);
        match self.variant {
            Variant::Gm | Variant::Lintex => {
                let shape = self.shape(region)?;
                let args = WindowArgs {
                    grid: self.planes[0].view_mut(),
                    pitch,
                    rows,
                    cols,
                    region,
                    parity: self.parity,
                    omega,
                };
                T::launch_window(kernels, stream, self.variant, color, shape, args)
            }
            Variant::Split => {
                let shape = self.shape(region)?;
                let (red, black) = self.planes.split_at_mut(1);
                let (own, other) = if color == RED {
                    (&mut red[0], &black[0])
                } else {
                    (&mut black[0], &red[0])
                };
                let args = SplitArgs {
                    own: own.view_mut(),
                    other: other.view(),
                    pitch,
                    rows,
                    cols,
                    region,
                    parity: self.parity,
                    color,
                    omega,
                };
                T::launch_split(kernels, stream, shape, args)
            }
            Variant::Tiled => self.tiled(kernels, stream, region, color, 1, omega),
        }
    }

    /// `half_sweeps` (at most `TILE_HALO`) half-sweeps of the tiled kernel in one launch, the
    /// first of `first_color`, from the grid into the scratch grid, which then becomes the grid.
    fn tiled(
        &mut self,
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        region: Region,
        first_color: u32,
        half_sweeps: usize,
        omega: T,
    ) -> Result<()> {
        let shape = self.shape(region)?;
        let scratch = self
            .scratch
            .as_mut()
            .ok_or_else(|| Error::InvalidArgument("a tiled grid without its scratch grid".into()))?;
        let args = TiledArgs {
            src: self.planes[0].view(),
            dst: scratch.view_mut(),
            pitch: self.cols as u32,
            rows: self.rows as u32,
            cols: self.cols as u32,
            region,
            parity: self.parity,
            first_color,
            half_sweeps: half_sweeps as u32,
            omega,
        };
        T::launch_tiled(kernels, stream, shape, args)?;
        std::mem::swap(scratch, &mut self.planes[0]);
        Ok(())
    }

    /// One red-black iteration of `region`: red, then black.
    pub fn iterate(&mut self, gpu: &Gpu, stream: Option<&Stream>, region: Region, omega: T) -> Result<()> {
        self.iterations(gpu, stream, region, omega, 1)
    }

    /// `count` red-black iterations of `region`: the tiled kernel runs two per launch. Refuses
    /// omega outside (0, 2).
    pub fn iterations(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        region: Region,
        omega: T,
        count: usize,
    ) -> Result<()> {
        check_omega(omega.to_f64())?;
        let kernels = gpu.library()?;
        if self.variant == Variant::Tiled && region.fits(self.rows, self.cols) && !region.is_empty() {
            let mut left = 2 * count;
            while left > 0 {
                // Chunks of an even count of half-sweeps, so each starts with red.
                let chunk = left.min(TILE_HALO & !1);
                self.tiled(&kernels, stream, region, RED, chunk, omega)?;
                left -= chunk;
            }
            return Ok(());
        }
        for _ in 0..count {
            self.half_sweep_with(&kernels, stream, region, RED, omega)?;
            self.half_sweep_with(&kernels, stream, region, BLACK, omega)?;
        }
        Ok(())
    }

    /// The largest `|(W + E + N + S) / 4 - u|` over `region` (waits for the GPU).
    pub fn max_residual(&mut self, gpu: &Gpu, region: Region) -> Result<f64> {
        if !region.fits(self.rows, self.cols) {
            return Err(Error::InvalidArgument(format!(
                "the region {region:?} does not fit the grid"
            )));
        }
        if region.is_empty() {
            return Ok(0.0);
        }
        let threads = SPLIT_BLOCK;
        let shape = LaunchShape::new((RESIDUAL_GRID.0, RESIDUAL_GRID.1, 1), (threads.0, threads.1, 1))
            .with_shared_bytes((BLOCK_REDUCE_SCRATCH * size_of::<T>()) as u32);
        let empty = &self.planes[0];
        let layout = self.layout();
        let args = ResidualArgs {
            a: self.planes[0].view(),
            b: self.planes.get(1).unwrap_or(empty).view(),
            pitch: self.pitch() as u32,
            rows: self.rows as u32,
            cols: self.cols as u32,
            region,
            parity: self.parity,
            partials: self.partials.view_mut(),
        };
        T::launch_residual(gpu, layout, shape, args)?;
        let partials = gpu.download(&self.partials)?;
        Ok(partials.iter().map(|v| v.to_f64()).fold(0.0, f64::max))
    }
}

/// The storage bytes one red-black iteration must move at least, for `points` updated points
/// of `element_bytes` each: each half-sweep reads its colour and the other and writes its own,
/// so 3 reads-or-writes of every point per iteration (the count the benchmarks use).
pub fn bytes_per_iteration(points: usize, element_bytes: usize) -> usize {
    3 * points * element_bytes
}
