//! The GPU side of ch6-laplace2d (book §6.2, Appendix D.5): the kernels' launch shapes, a field
//! on the device (`a_d`, `aNew_d` and one residual slot per sweep), and the book's loop with
//! each kernel.
use super::DEFAULT_SHARED_BYTES;
use crate::nvcc::LoadOr;
use crate::reference::ch6::laplace2d::{Elementary, Stop, check_mesh};
use book_kernels::ch6::laplace2d::{
    BLOCK_X, BLOCK_Y, JacobiArgs, JacobiGlobal, JacobiShared, JacobiStrip, JacobiTexture, JacobiTiled, JacobiTiledArgs,
    MaxResidual, MaxResidualArgs, RESIDUAL_THREADS, STRIP_BLOCK, STRIP_ROWS, TILED_BLOCK, TILED_H, TILED_SWEEPS,
    TILED_W, residual_shared_bytes, shared_bytes, tiled_shared_bytes,
};
use ferrocuda::Slice;
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result};
use std::fmt;
use std::time::Instant;

/// A sweep kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// The book's `jacobiGlobal`: one thread per point, global loads.
    Global,
    /// The book's `jacobiShared`: the block's points and halo staged in a shared tile.
    Shared,
    /// The book's `jacobiTexture`: global loads through the read-only (texture) path.
    Texture,
    /// Not in the book: 8 points per thread down a column, 30 read-only loads in flight.
    Strip,
    /// Not in the book: up to 4 sweeps per launch in shared memory (temporal blocking).
    Tiled,
}

impl Variant {
    /// Every kernel, the book's three first.
    pub const ALL: [Variant; 5] = [
        Variant::Global,
        Variant::Shared,
        Variant::Texture,
        Variant::Strip,
        Variant::Tiled,
    ];
    /// The book's three.
    pub const BOOK: [Variant; 3] = [Variant::Global, Variant::Shared, Variant::Texture];

    /// Its kernel's name (without the precision suffix of the PTX symbol).
    pub fn kernel(self) -> &'static str {
        match self {
            Variant::Global => "jacobi_global",
            Variant::Shared => "jacobi_shared",
            Variant::Texture => "jacobi_texture",
            Variant::Strip => "jacobi_strip",
            Variant::Tiled => "jacobi_tiled",
        }
    }

    /// What to say of it beside the book's name, if anything.
    pub fn note(self) -> Option<&'static str> {
        match self {
            Variant::Texture => Some(
                "the book's texture reference is gone since CUDA 12: read-only loads (ld.global.nc) through the same cache",
            ),
            Variant::Strip | Variant::Tiled => Some("not in the book"),
            Variant::Global | Variant::Shared => None,
        }
    }

    /// Sweeps one launch makes at most.
    pub fn sweeps_per_launch(self) -> usize {
        match self {
            Variant::Tiled => TILED_SWEEPS,
            _ => 1,
        }
    }

    /// Its launch over an `nx x ny` mesh with `T` elements: the book's `ceiling(nx/32) x
    /// ceiling(ny/16)` blocks of 32 x 16 for its three kernels, one block per 32 x 64 points for
    /// the strips, one per inner tile for the tiled kernel.
    pub fn shape<T: Copy>(self, nx: usize, ny: usize) -> Result<LaunchShape> {
        let block = |b: (usize, usize)| (b.0 as u32, b.1 as u32);
        match self {
            Variant::Global | Variant::Texture => LaunchShape::cover_2d(nx, ny, (BLOCK_X as u32, BLOCK_Y as u32)),
            Variant::Shared => Ok(LaunchShape::cover_2d(nx, ny, (BLOCK_X as u32, BLOCK_Y as u32))?
                .with_shared_bytes(shared_bytes::<T>() as u32)),
            Variant::Strip => LaunchShape::cover_2d(nx, ny.div_ceil(STRIP_ROWS), block(STRIP_BLOCK)),
            Variant::Tiled => {
                let tiles = LaunchShape::cover_2d(nx.div_ceil(TILED_W), ny.div_ceil(TILED_H), (1, 1))?;
                Ok(
                    LaunchShape::new(tiles.grid, (TILED_BLOCK.0 as u32, TILED_BLOCK.1 as u32, 1))
                        .with_shared_bytes(tiled_shared_bytes::<T>() as u32),
                )
            }
        }
    }
}

impl fmt::Display for Variant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.kernel())
    }
}

/// How `a = aNew` is made after a sweep (`--update`).
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Update {
    /// The book's device-to-device copy `a_d = aNew_d`.
    Copy,
    /// Swapping the two buffers: no copy; the same field, since both hold the boundary values.
    Swap,
}

impl fmt::Display for Update {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Update::Copy => "a = aNew by device copy",
            Update::Swap => "a = aNew by pointer swap",
        })
    }
}

/// The element types, with the launches of their kernel instances.
pub trait LaplaceGpu: Elementary + Element + fmt::Display + fmt::UpperExp {
    /// Launches `variant`'s sweep (not [`Variant::Tiled`]) from `module` (a CUDA C twin) or the
    /// book's kernels.
    fn launch_sweep(
        gpu: &Gpu,
        module: Option<&LoadedKernels>,
        variant: Variant,
        shape: LaunchShape,
        args: JacobiArgs<'_, Self>,
    ) -> Result<()>;
    /// Launches the tiled sweeps.
    fn launch_tiled(gpu: &Gpu, shape: LaunchShape, args: JacobiTiledArgs<'_, Self>) -> Result<()>;
    /// Launches the residual fold.
    fn launch_residual(gpu: &Gpu, shape: LaunchShape, args: MaxResidualArgs<'_, Self>) -> Result<()>;
    /// Lets the tiled kernel launch with `bytes` of dynamic shared memory (f64 needs more than
    /// the default 48 KiB).
    fn allow_tiled_shared_bytes(gpu: &Gpu, bytes: u32) -> Result<()>;
}

macro_rules! laplace_gpu {
    ($($t:ty),*) => {$(
        impl LaplaceGpu for $t {
            fn launch_sweep(
                gpu: &Gpu,
                module: Option<&LoadedKernels>,
                variant: Variant,
                shape: LaunchShape,
                args: JacobiArgs<'_, Self>,
            ) -> Result<()> {
                let kernels = gpu.load_or(module, &crate::KERNELS)?;
                match variant {
                    Variant::Global => kernels.launch(JacobiGlobal, shape, args),
                    Variant::Shared => kernels.launch(JacobiShared, shape, args),
                    Variant::Texture => kernels.launch(JacobiTexture, shape, args),
                    Variant::Strip => kernels.launch(JacobiStrip, shape, args),
                    Variant::Tiled => Err(Error::InvalidArgument(
                        "jacobi_tiled makes several sweeps per launch: use DeviceField::tiled_sweeps".into(),
                    )),
                }
            }
            fn launch_tiled(gpu: &Gpu, shape: LaunchShape, args: JacobiTiledArgs<Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(JacobiTiled, shape, args)
            }
            fn launch_residual(gpu: &Gpu, shape: LaunchShape, args: MaxResidualArgs<Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(MaxResidual, shape, args)
            }
            fn allow_tiled_shared_bytes(gpu: &Gpu, bytes: u32) -> Result<()> {
                crate::kernels(gpu)?.allow_shared_bytes::<_, JacobiTiledArgs<Self>>(JacobiTiled, bytes)
            }
        }
    )*};
}
laplace_gpu!(f32, f64);

/// Blocks of the residual fold per SM: enough to keep every SM's loads in flight.
const RESIDUAL_BLOCKS_PER_SM: usize = 4;

/// The book's device arrays `a_d` and `aNew_d` of an `nx x ny` mesh, and one residual slot per
/// sweep (the bits of `max |aNew - a|`, zeroed at upload).
pub struct DeviceField<T> {
    pub a_d: DeviceBuffer<T>,
    pub a_new_d: DeviceBuffer<T>,
    residuals_d: DeviceBuffer<u64>,
    nx: usize,
    ny: usize,
}

impl<T: LaplaceGpu> DeviceField<T> {
    /// Uploads `initial` into both arrays (the book's `aNew = a`, so both hold the boundary
    /// values), with `slots` residual slots.
    pub fn upload(gpu: &Gpu, initial: &[T], nx: usize, ny: usize, slots: usize) -> Result<Self> {
        let n = check_mesh(nx, ny)?;
        if initial.len() != n {
            return Err(Error::InvalidArgument(format!(
                "a {nx} x {ny} mesh has {n} points, not {}",
                initial.len()
            )));
        }
        if u32::try_from(slots).is_err() {
            return Err(Error::InvalidArgument(format!("{slots} residual slots are too many")));
        }
        // The tiled kernel's f64 tiles take more than the 48 KiB a launch gets without opting in.
        let tiled_bytes = tiled_shared_bytes::<T>() as u32;
        if tiled_bytes > DEFAULT_SHARED_BYTES {
            T::allow_tiled_shared_bytes(gpu, tiled_bytes)?;
        }
        Ok(Self {
            a_d: gpu.upload(initial)?,
            a_new_d: gpu.upload(initial)?,
            residuals_d: gpu.zeros(slots.max(1))?,
            nx,
            ny,
        })
    }

    /// Bytes one sweep moves as the book counts it: each point read once and written once.
    pub fn bytes_per_sweep(&self) -> usize {
        2 * self.nx * self.ny * size_of::<T>()
    }

    /// One sweep of `variant` (not [`Variant::Tiled`]) from `a_d` into `aNew_d`, from `module`
    /// (a CUDA C twin) or the book's kernels.
    pub fn sweep_from(&mut self, gpu: &Gpu, module: Option<&LoadedKernels>, variant: Variant) -> Result<()> {
        let shape = variant.shape::<T>(self.nx, self.ny)?;
        let args = JacobiArgs {
            a: self.a_d.view(),
            a_new: self.a_new_d.view_mut(),
            nx: self.nx as u32,
            ny: self.ny as u32,
        };
        T::launch_sweep(gpu, module, variant, shape, args)
    }

    /// The book's max reduction: folds `max |aNew_d - a_d|` into residual slot `slot`.
    pub fn fold_residual(&mut self, gpu: &Gpu, slot: usize) -> Result<()> {
        self.slots(slot, 1)?;
        let n = self.nx * self.ny;
        let most = gpu.properties().multiprocessor_count as usize * RESIDUAL_BLOCKS_PER_SM;
        let blocks = n.div_ceil(RESIDUAL_THREADS).clamp(1, most.max(1));
        let shape = LaunchShape::new((blocks as u32, 1, 1), (RESIDUAL_THREADS as u32, 1, 1))
            .with_shared_bytes(residual_shared_bytes() as u32);
        let args = MaxResidualArgs {
            a: self.a_d.view(),
            a_new: self.a_new_d.view(),
            residuals: self.residuals_d.view_mut(),
            slot: slot as u32,
        };
        T::launch_residual(gpu, shape, args)
    }

    /// `sweeps` (1 to 4) sweeps in one launch of `jacobi_tiled` from `a_d` into `aNew_d`, their
    /// residuals folded into slots `first_slot..first_slot + sweeps`.
    pub fn tiled_sweeps(&mut self, gpu: &Gpu, first_slot: usize, sweeps: usize) -> Result<()> {
        if sweeps == 0 || sweeps > TILED_SWEEPS {
            return Err(Error::InvalidArgument(format!(
                "jacobi_tiled makes 1 to {TILED_SWEEPS} sweeps per launch, not {sweeps}"
            )));
        }
        self.slots(first_slot, sweeps)?;
        let shape = Variant::Tiled.shape::<T>(self.nx, self.ny)?;
        let args = JacobiTiledArgs {
            a: self.a_d.view(),
            a_new: self.a_new_d.view_mut(),
            nx: self.nx as u32,
            ny: self.ny as u32,
            residuals: self.residuals_d.view_mut(),
            first_slot: first_slot as u32,
            sweeps: sweeps as u32,
        };
        T::launch_tiled(gpu, shape, args)
    }

    /// `a = aNew`, by the book's device copy or a swap.
    pub fn update(&mut self, gpu: &Gpu, update: Update) -> Result<()> {
        match update {
            Update::Copy => gpu.copy_device_to_device(&self.a_new_d, &mut self.a_d),
            Update::Swap => {
                std::mem::swap(&mut self.a_d, &mut self.a_new_d);
                Ok(())
            }
        }
    }

    /// The residuals of slots `first..first + count` (one copy; it waits for the kernels).
    pub fn residuals(&self, gpu: &Gpu, first: usize, count: usize) -> Result<Vec<T>> {
        let bits = gpu.download_view(self.slots(first, count)?)?;
        Ok(bits.into_iter().map(T::from_abs_bits).collect())
    }

    /// Residual slots `first..first + count`, or an error when they lie beyond the field's.
    fn slots(&self, first: usize, count: usize) -> Result<Slice<'_, u64>> {
        let end = first.saturating_add(count);
        self.residuals_d.view().subview(first..end).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "residual slots {first}..{end} lie beyond the field's {}",
                self.residuals_d.len()
            ))
        })
    }
}

/// What the book's loop made on the GPU.
#[derive(Clone, Debug)]
pub struct Solution<T> {
    /// The residual of each sweep, in order.
    pub residuals: Vec<T>,
    /// The field after the last sweep.
    pub field: Vec<T>,
    /// Wall-clock seconds from the upload to the download included, as the book's `cpu_time`.
    pub elapsed_s: f64,
}

/// The book's `laplaceSolution` on `gpu` with `variant`: upload, then while `stop` continues a
/// sweep, the max reduction (whose result the host reads, as the book's CUF reduction returns
/// it), `a = aNew` by `update`; then download. The tiled kernel makes up to 4 sweeps per launch
/// with their residuals; when the tolerance is met inside a launch, the launch is made again
/// from the same `a_d` with the sweeps up to that point, so the result is the book's loop's.
pub fn solve<T: LaplaceGpu>(
    gpu: &Gpu,
    variant: Variant,
    update: Update,
    initial: &[T],
    nx: usize,
    ny: usize,
    stop: Stop,
) -> Result<Solution<T>> {
    let started = Instant::now();
    let mut field = DeviceField::upload(gpu, initial, nx, ny, stop.max_sweeps())?;
    let mut residual = stop.initial_residual::<T>();
    let mut residuals: Vec<T> = Vec::new();
    let bar = crate::progress::bar(&format!("GPU {variant} sweeps"), stop.max_sweeps() as u64);
    while stop.continues(residual, residuals.len()) {
        let done = residuals.len();
        bar.set_position(done as u64);
        if variant == Variant::Tiled {
            let sweeps = TILED_SWEEPS.min(stop.max_sweeps() - done);
            field.tiled_sweeps(gpu, done, sweeps)?;
            let got = field.residuals(gpu, done, sweeps)?;
            let kept = match got.iter().position(|&r| !stop.continues(r, 0)) {
                Some(met) if met + 1 < sweeps => {
                    field.tiled_sweeps(gpu, done, met + 1)?;
                    met + 1
                }
                _ => sweeps,
            };
            residuals.extend_from_slice(&got[..kept]);
        } else {
            field.sweep_from(gpu, None, variant)?;
            field.fold_residual(gpu, done)?;
            residuals.extend(field.residuals(gpu, done, 1)?);
        }
        residual = residuals[residuals.len() - 1];
        field.update(gpu, update)?;
    }
    bar.finish_and_clear();
    Ok(Solution {
        residuals,
        field: gpu.download(&field.a_d)?,
        elapsed_s: started.elapsed().as_secs_f64(),
    })
}

/// Milliseconds per sweep of `variant` on `field` (median of `reps` timed launches after a
/// warm-up; the tiled kernel's launches make 4 sweeps each): the kernel alone, without the
/// reduction and the copy.
pub fn time_sweep<T: LaplaceGpu>(gpu: &Gpu, field: &mut DeviceField<T>, variant: Variant, reps: usize) -> Result<f64> {
    let sweeps = variant.sweeps_per_launch();
    let stats = ferrocuda::measure::time_reps(gpu, reps, || match variant {
        Variant::Tiled => field.tiled_sweeps(gpu, 0, sweeps),
        _ => field.sweep_from(gpu, None, variant),
    })?;
    Ok(stats.median_ms / sweeps as f64)
}
