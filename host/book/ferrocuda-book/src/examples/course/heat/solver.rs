//! course-heat's GPU solver: the two step kernels, their launch shapes, and fields on the device
//! that advance by any number of steps, on the default stream or a stream of their own.
use super::problem::Grid;
use crate::nvcc::LoadOr;
use book_kernels::course::heat::{
    HALO, HeatArgs, HeatStep, HeatStepTiled, STEP_BLOCK, TILE_H, TILE_W, TILED_BLOCK, TiledHeatArgs, tiled_shared_bytes,
};
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result, Stream};
use std::fmt;

/// A step kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// `heat_step`: one step per launch, global memory, one point per thread.
    Global,
    /// `heat_step_tiled`: up to [`HALO`] steps per launch in a shared-memory tile with a halo.
    Tiled,
}

impl Kernel {
    pub const ALL: [Kernel; 2] = [Kernel::Global, Kernel::Tiled];

    /// The kernel's name (its PTX symbol without the type suffix).
    pub fn name(self) -> &'static str {
        match self {
            Kernel::Global => "heat_step",
            Kernel::Tiled => "heat_step_tiled",
        }
    }

    /// The most steps one launch takes.
    pub fn most_steps(self) -> usize {
        match self {
            Kernel::Global => 1,
            Kernel::Tiled => HALO,
        }
    }
}

impl fmt::Display for Kernel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Kernel::Global => "global",
            Kernel::Tiled => "tiled",
        })
    }
}

/// A kernel and the steps it runs per launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solver {
    pub kernel: Kernel,
    /// 1 for [`Kernel::Global`]; 1 to [`HALO`] for [`Kernel::Tiled`].
    pub steps_per_launch: usize,
}

impl Solver {
    /// `kernel` with `steps_per_launch`, or a sentence saying why not.
    pub fn new(kernel: Kernel, steps_per_launch: usize) -> Result<Self> {
        let most = kernel.most_steps();
        if steps_per_launch == 0 || steps_per_launch > most {
            return Err(Error::InvalidArgument(format!(
                "{} runs 1 to {most} steps per launch, not {steps_per_launch}",
                kernel.name()
            )));
        }
        Ok(Self {
            kernel,
            steps_per_launch,
        })
    }

    /// The kernel with the most steps per launch it takes.
    pub fn fastest(kernel: Kernel) -> Self {
        Self {
            kernel,
            steps_per_launch: kernel.most_steps(),
        }
    }

    /// Its launch over `grid`.
    pub fn shape<T>(&self, grid: &Grid) -> Result<LaunchShape> {
        match self.kernel {
            Kernel::Global => LaunchShape::cover_2d(grid.cols, grid.rows, STEP_BLOCK),
            Kernel::Tiled => {
                let blocks = |n: usize, tile: usize| u32::try_from(n.div_ceil(tile));
                match (blocks(grid.cols, TILE_W), blocks(grid.rows, TILE_H)) {
                    (Ok(x), Ok(y)) => Ok(LaunchShape::new((x, y, 1), (TILED_BLOCK.0, TILED_BLOCK.1, 1))
                        .with_shared_bytes(tiled_shared_bytes(size_of::<T>()) as u32)),
                    _ => Err(Error::InvalidArgument(format!(
                        "a {} x {} grid needs more tiles than a launch holds",
                        grid.rows, grid.cols
                    ))),
                }
            }
        }
    }
}

impl fmt::Display for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (kernel, name, n) = (self.kernel, self.kernel.name(), self.steps_per_launch);
        let plural = if n == 1 { "" } else { "s" };
        write!(f, "{kernel} ({name}, {n} step{plural} per launch)")
    }
}

/// An element type of the heat kernels (`f32`, `f64`): it knows its kernels.
pub trait HeatReal: Real + Element + Into<f64> + Send + Sync {
    /// The precision's machine epsilon.
    const EPSILON: f64;
    /// Launches `heat_step` from `module` (the book's kernels, or a CUDA C twin's) on `stream`
    /// (the default stream for `None`).
    fn launch_step(
        module: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: HeatArgs<'_, Self>,
    ) -> Result<()>;
    /// Launches `heat_step_tiled` likewise.
    fn launch_tiled(
        module: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: TiledHeatArgs<'_, Self>,
    ) -> Result<()>;
}

macro_rules! heat_real {
    ($($t:ty),*) => {$(
        impl HeatReal for $t {
            const EPSILON: f64 = <$t>::EPSILON as f64;
            fn launch_step(module: &LoadedKernels, stream: Option<&Stream>, shape: LaunchShape, args: HeatArgs<'_, Self>) -> Result<()> {
                match stream {
                    Some(s) => module.launch_on(s, HeatStep, shape, args),
                    None => module.launch(HeatStep, shape, args),
                }
            }
            fn launch_tiled(module: &LoadedKernels, stream: Option<&Stream>, shape: LaunchShape, args: TiledHeatArgs<'_, Self>) -> Result<()> {
                match stream {
                    Some(s) => module.launch_on(s, HeatStepTiled, shape, args),
                    None => module.launch(HeatStepTiled, shape, args),
                }
            }
        }
    )*};
}
heat_real!(f32, f64);

/// One launch of `solver`: `steps` steps (1 for the global kernel, at most its steps per
/// launch for the tiled one) from `src` into `dst`, from `twin` (a CUDA C module) or the book's
/// kernels, on `stream` or the default stream.
#[allow(clippy::too_many_arguments)]
pub fn launch<T: HeatReal>(
    gpu: &Gpu,
    twin: Option<&LoadedKernels>,
    stream: Option<&Stream>,
    solver: Solver,
    grid: &Grid,
    src: &DeviceBuffer<T>,
    dst: &mut DeviceBuffer<T>,
    steps: usize,
) -> Result<()> {
    if src.len() != grid.points() || dst.len() != grid.points() {
        return Err(Error::InvalidArgument(format!(
            "a {} x {} heat step needs fields of {} points, not {} and {}",
            grid.rows,
            grid.cols,
            grid.points(),
            src.len(),
            dst.len()
        )));
    }
    if steps == 0 || steps > solver.steps_per_launch {
        return Err(Error::InvalidArgument(format!(
            "one launch of {solver} runs 1 to {} steps, not {steps}",
            solver.steps_per_launch
        )));
    }
    let module = gpu.load_or(twin, &crate::KERNELS)?;
    let shape = solver.shape::<T>(grid)?;
    let (rows, cols, edges, r) = (grid.rows as u32, grid.cols as u32, grid.edges.code(), grid.r::<T>());
    match solver.kernel {
        Kernel::Global => {
            let args = HeatArgs {
                src: src.view(),
                dst: dst.view_mut(),
                rows,
                cols,
                edges,
                r,
            };
            T::launch_step(&module, stream, shape, args)
        }
        Kernel::Tiled => {
            let args = TiledHeatArgs {
                src: src.view(),
                dst: dst.view_mut(),
                rows,
                cols,
                edges,
                steps: steps as u32,
                r,
            };
            T::launch_tiled(&module, stream, shape, args)
        }
    }
}

/// Three device copies of the field: the launches write from the current one into another, and
/// the one a snapshot is being copied from ("frozen") is never written until the copy is done.
/// So a snapshot needs no device-to-device copy, and the steps after it overlap its copy out.
pub struct Fields<T> {
    buffers: [DeviceBuffer<T>; 3],
    current: usize,
    grid: Grid,
    solver: Solver,
}

impl<T: HeatReal> Fields<T> {
    /// Three copies of `initial` on `grid` (each holds the Dirichlet edges, which no step
    /// changes), to advance with `solver`.
    pub fn upload(gpu: &Gpu, grid: &Grid, solver: Solver, initial: &[T]) -> Result<Self> {
        if initial.len() != grid.points() {
            return Err(Error::InvalidArgument(format!(
                "the initial field holds {} values, not the grid's {}",
                initial.len(),
                grid.points()
            )));
        }
        Ok(Self {
            buffers: [gpu.upload(initial)?, gpu.upload(initial)?, gpu.upload(initial)?],
            current: 0,
            grid: *grid,
            solver,
        })
    }

    /// The buffer holding the latest step.
    pub fn current(&self) -> &DeviceBuffer<T> {
        &self.buffers[self.current]
    }

    /// Index of [`Fields::current`], to name it as frozen.
    pub fn current_index(&self) -> usize {
        self.current
    }

    /// Runs one step from the current buffer into a spare one and keeps the current one: the
    /// first launch of each kernel loads its code (CUDA loads functions lazily), which a timed
    /// run should not include.
    pub fn warm_up(&mut self, gpu: &Gpu, stream: Option<&Stream>) -> Result<()> {
        let current = self.current;
        self.advance(gpu, None, stream, 1, None)?;
        self.current = current;
        Ok(())
    }

    /// Advances by `steps` steps on `stream` (the default stream for `None`) with the kernels of
    /// `twin` (a CUDA C module) or the book's, writing into neither the current buffer nor
    /// `frozen`.
    pub fn advance(
        &mut self,
        gpu: &Gpu,
        twin: Option<&LoadedKernels>,
        stream: Option<&Stream>,
        steps: usize,
        frozen: Option<usize>,
    ) -> Result<()> {
        let mut left = steps;
        while left > 0 {
            let now = left.min(self.solver.steps_per_launch);
            let next = (0..3)
                .find(|&b| b != self.current && Some(b) != frozen)
                .unwrap_or((self.current + 1) % 3);
            let [src, dst] = self
                .buffers
                .get_disjoint_mut([self.current, next])
                .map_err(|_| Error::InvalidArgument("a step would write the field it reads".into()))?;
            launch(gpu, twin, stream, self.solver, &self.grid, src, dst, now)?;
            self.current = next;
            left -= now;
        }
        Ok(())
    }
}

/// `steps` steps of `initial` with `solver` on the default stream: the final field.
pub fn solve<T: HeatReal>(gpu: &Gpu, solver: Solver, grid: &Grid, initial: &[T], steps: usize) -> Result<Vec<T>> {
    let mut fields = Fields::upload(gpu, grid, solver, initial)?;
    fields.advance(gpu, None, None, steps, None)?;
    gpu.download(fields.current())
}
