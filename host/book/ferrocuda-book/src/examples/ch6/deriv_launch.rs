//! ch6-deriv's kernels on the host (book §6.1, `setDerivativeParameters` of Appendix D.5): which
//! kernel, its launch shape generalised to any extents that are multiples of the pencils, the
//! coefficients it reads (the constant bank or a device buffer), and one launch.
use super::DEFAULT_SHARED_BYTES;
use crate::reference::ch6::deriv::{DerivFloat, Direction, Extents, Grid, HALO, coefficients};
use book_kernels::ch6::deriv::{
    DerivArgs, DerivMathArgs, DerivX, DerivX1sync, DerivXLPencils, DerivXMem, DerivY, DerivYLPencils, DerivYMarch,
    DerivZ, DerivZLPencils, DerivZMarch, DerivativeMath, L_PENCILS, MARCH_ROWS, MARCH_WIDTH, S_PENCILS, UNIFORM_WORD,
    tile_bytes,
};
use book_kernels::ch6::deriv_nonuniform::{
    DerivGlobalArgs, DerivXLPencilsNonuniformConstant, DerivXLPencilsNonuniformGlobal, DerivXNonuniformConstant,
    DerivXNonuniformGlobal, DerivYLPencilsNonuniformConstant, DerivYLPencilsNonuniformGlobal, DerivYNonuniformConstant,
    DerivYNonuniformGlobal, DerivZLPencilsNonuniformConstant, DerivZLPencilsNonuniformGlobal, DerivZNonuniformConstant,
    DerivZNonuniformGlobal, NONUNIFORM_WORD, max_constant_points,
};
use ferrocuda::Slice;
use ferrocuda::device::constant::ConstantValue;
use ferrocuda::device::launch::{Kernel, KernelArgs};
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result};
use std::sync::{Mutex, PoisonError};

/// Threads along x in the x kernels' blocks: the book's `mx` (one point per thread) up to 128;
/// a longer line takes several points per thread (at 512, four, loaded together).
pub const X_THREADS: usize = 128;
/// Threads along the line in the 4-wide y and z kernels' blocks: the book's `m` up to 128.
pub const SMALL_LINE_THREADS: usize = 128;
/// Threads along the line in the 32-wide y and z kernels' blocks: the book's `m / 8` (8 points
/// per thread), at most 32 (32 x 32 = 1024 threads; at 512, 16 points per thread).
pub const LARGE_LINE_THREADS: usize = 32;

/// Where a kernel's coefficients come from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Coefficients {
    /// The uniform grid: twelve scalars in the constant bank (the book's `ax_c .. dz_c`).
    Uniform,
    /// The stretched grid, four arrays per direction in the constant bank.
    Constant,
    /// The stretched grid, four arrays per direction in global memory.
    Global,
}

impl Coefficients {
    pub const ALL: [Coefficients; 3] = [Coefficients::Uniform, Coefficients::Constant, Coefficients::Global];

    /// The grid these coefficients describe.
    pub fn grid(self) -> Grid {
        match self {
            Coefficients::Uniform => Grid::Uniform,
            _ => Grid::Stretched,
        }
    }
}

/// Lines per shared tile.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Pencils {
    /// The book's `sPencils` = 4.
    Small,
    /// The book's `lPencils` = 32.
    Large,
    /// No tile (y and z only, not in the book): each thread marches along its line with the
    /// stencil's window in registers, blocks of `MARCH_WIDTH` x `MARCH_ROWS` lines.
    March,
}

impl Pencils {
    pub fn lines(self) -> usize {
        match self {
            Pencils::Small => S_PENCILS,
            Pencils::Large => L_PENCILS,
            Pencils::March => MARCH_WIDTH,
        }
    }
}

/// What an x kernel computes (the variants of book §6.1.2.1; the others compute the stencil).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// The stencil, two barriers.
    Stencil,
    /// The stencil, one barrier (`deriv_x_1sync`).
    OneSync,
    /// Loads and stores only: `df = f` (the memory-only variant).
    MemOnly,
    /// The stencil on an unloaded tile, stored nowhere (`derivative_math`).
    MathOnly,
}

/// One kernel of ch6-deriv.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Variant {
    pub direction: Direction,
    pub pencils: Pencils,
    pub coefficients: Coefficients,
    pub mode: Mode,
}

impl Variant {
    /// The stencil in `direction` with `pencils` and `coefficients`.
    pub const fn new(direction: Direction, pencils: Pencils, coefficients: Coefficients) -> Self {
        Self {
            direction,
            pencils,
            coefficients,
            mode: Mode::Stencil,
        }
    }

    /// An x variant of §6.1.2.1 (tile `mx x 4`, uniform grid).
    pub const fn x(mode: Mode) -> Self {
        Self {
            mode,
            ..Self::new(Direction::X, Pencils::Small, Coefficients::Uniform)
        }
    }

    /// The six derivatives of the book's tables with `coefficients`: x, y, z with small then
    /// large pencils.
    pub fn table(coefficients: Coefficients) -> [Variant; 6] {
        let v = |d, p| Variant::new(d, p, coefficients);
        [
            v(Direction::X, Pencils::Small),
            v(Direction::X, Pencils::Large),
            v(Direction::Y, Pencils::Small),
            v(Direction::Y, Pencils::Large),
            v(Direction::Z, Pencils::Small),
            v(Direction::Z, Pencils::Large),
        ]
    }

    /// Every kernel: the uniform table with the one-barrier, memory-only and math-only x
    /// variants, the two stretched-grid tables, then the marching y and z kernels of the
    /// performance pass (no tile; not in the book).
    pub fn every() -> Vec<Variant> {
        let x = [Mode::Stencil, Mode::OneSync, Mode::MemOnly, Mode::MathOnly].map(Variant::x);
        let march = [Direction::Y, Direction::Z].map(|d| Variant::new(d, Pencils::March, Coefficients::Uniform));
        let [_, uniform @ ..] = Variant::table(Coefficients::Uniform);
        [
            &x[..],
            &uniform,
            &Variant::table(Coefficients::Constant),
            &Variant::table(Coefficients::Global),
            &march,
        ]
        .concat()
    }

    /// The PTX symbol without its precision suffix.
    pub fn kernel(self) -> String {
        let base = match self.mode {
            Mode::OneSync => return "deriv_x_1sync".into(),
            Mode::MemOnly => return "deriv_x_mem".into(),
            Mode::MathOnly => return "derivative_math".into(),
            Mode::Stencil => format!(
                "deriv_{}{}",
                self.direction.name(),
                match self.pencils {
                    Pencils::Small => "",
                    Pencils::Large => "_l_pencils",
                    Pencils::March => "_march",
                }
            ),
        };
        match self.coefficients {
            Coefficients::Uniform => base,
            Coefficients::Constant => format!("{base}_nonuniform_constant"),
            Coefficients::Global => format!("{base}_nonuniform_global"),
        }
    }

    /// The plane of the book's tile label: `x-y` (x and y derivatives) or `x-z` (z).
    pub fn tile_plane(self) -> &'static str {
        if self.direction == Direction::Z { "x-z" } else { "x-y" }
    }

    /// The book's tile extents: `64x4` (x), `4x64` (y, z), the first along x.
    pub fn tile_dims(self, extents: Extents) -> String {
        let (m, lines) = (extents.along(self.direction), self.pencils.lines());
        match self.direction {
            Direction::X => format!("{m}x{lines}"),
            Direction::Y | Direction::Z => format!("{lines}x{m}"),
        }
    }

    /// Dynamic shared memory of a block: `lines` lines of `m + 8` values (none when marching).
    pub fn shared_bytes<T>(self, extents: Extents) -> usize {
        if self.pencils == Pencils::March {
            return 0;
        }
        tile_bytes::<T>(extents.along(self.direction), self.pencils.lines())
    }

    /// The launch: the book's grid, and its blocks capped at [`X_THREADS`],
    /// [`SMALL_LINE_THREADS`] or [`LARGE_LINE_THREADS`] threads along the line, or
    /// `line_threads` there when given; an error when the extents are not multiples of the
    /// pencils (see [`check_extents`]), the line is too short for the stencil, the tile exceeds
    /// the shared memory a block may have, or a block would exceed 1024 threads.
    pub fn shape<T>(self, gpu: &Gpu, extents: Extents, line_threads: Option<usize>) -> Result<LaunchShape> {
        check_extents(extents)?;
        let (m, lines) = (extents.along(self.direction), self.pencils.lines());
        if m <= HALO {
            return Err(Error::InvalidArgument(format!(
                "the {} derivative needs more than {HALO} points along {} (its stencil reaches {HALO} points across the period m - 1), not {m}",
                self.direction.name(),
                self.direction.name()
            )));
        }
        let bytes = self.shared_bytes::<T>(extents);
        let limit = gpu.properties().shared_mem_per_block_optin_bytes;
        if bytes > limit as usize {
            return Err(Error::InvalidArgument(format!(
                "{} holds whole lines of {m} points: {bytes} bytes of shared memory per block, more than this device's {limit}",
                self.kernel()
            )));
        }
        let u = |v: usize| v as u32;
        let Extents { mx, my, mz } = extents;
        let across = if self.direction == Direction::Y { mz } else { my };
        if self.pencils == Pencils::March {
            // One thread per line: x across the block, the planes (y) or rows (z) down it.
            return match self.direction {
                Direction::X => Err(Error::InvalidArgument(
                    "the marching kernels take the y and z derivatives, not x".into(),
                )),
                Direction::Y | Direction::Z => Ok(LaunchShape::new(
                    (u(mx.div_ceil(MARCH_WIDTH)), u(across.div_ceil(MARCH_ROWS)), 1),
                    (u(MARCH_WIDTH), u(MARCH_ROWS), 1),
                )),
            };
        }
        let (grid, block) = match self.direction {
            Direction::X => ((my / lines, mz), (line_threads.unwrap_or(mx.min(X_THREADS)), S_PENCILS)),
            Direction::Y | Direction::Z => {
                let along = match self.pencils {
                    Pencils::Small => m.min(SMALL_LINE_THREADS),
                    Pencils::Large | Pencils::March => (m / 8).clamp(1, LARGE_LINE_THREADS),
                };
                ((mx / lines, across), (lines, line_threads.unwrap_or(along)))
            }
        };
        if block.0 * block.1 > 1024 || block.0 * block.1 == 0 {
            return Err(Error::InvalidArgument(format!(
                "{} threads along the line make blocks of {} x {} threads: at least 1, at most 1024",
                block.0.max(block.1),
                block.0,
                block.1
            )));
        }
        Ok(LaunchShape::new((u(grid.0), u(grid.1), 1), (u(block.0), u(block.1), 1)).with_shared_bytes(u(bytes)))
    }
}

/// Refuses extents the kernels cannot take, with one sentence: the book's
/// `setDerivativeParameters` requires `mx`, `my`, `mz` to be multiples of `sPencils` (4) and
/// `mx`, `my` of `lPencils` (32), and the extents must fit the kernels' 32-bit arguments.
pub fn check_extents(extents: Extents) -> Result<()> {
    let Extents { mx, my, mz } = extents;
    if [mx, my, mz].contains(&0)
        || !mx.is_multiple_of(L_PENCILS)
        || !my.is_multiple_of(L_PENCILS)
        || !mz.is_multiple_of(S_PENCILS)
    {
        return Err(Error::InvalidArgument(format!(
            "the derivative kernels need mx and my to be multiples of {L_PENCILS} (lPencils) and mz a multiple of {S_PENCILS} (sPencils), not {extents}"
        )));
    }
    if [mx, my, mz].iter().any(|&m| u32::try_from(m + 2 * HALO).is_err()) {
        return Err(Error::InvalidArgument(format!(
            "{extents} exceeds the kernels' 32-bit extents"
        )));
    }
    extents.points().map(|_| ())
}

/// A kernel's arguments.
#[derive(Clone, Copy, Debug)]
pub enum Args<'a, T> {
    /// The uniform grid and the stretched grid with constant-memory coefficients.
    Plain(DerivArgs<'a, T>),
    /// The stretched grid with coefficients in global memory.
    Global(DerivGlobalArgs<'a, T>),
    /// `derivative_math`.
    Math(DerivMathArgs<'a, T>),
}

impl<'a, T> Args<'a, T> {
    /// The view the kernel writes, read-only.
    pub fn output(&self) -> Slice<'a, T> {
        match self {
            Self::Plain(args) => args.df.as_slice(),
            Self::Global(args) => args.df.as_slice(),
            Self::Math(args) => args.df.as_slice(),
        }
    }
}

/// `f32` or `f64`: launches each kernel instantiated with it.
pub trait DerivReal: DerivFloat + ConstantValue + Element {
    /// Launches `variant` from `kernels` (the book's, or a CUDA C twin's with the same symbols).
    fn launch(kernels: &LoadedKernels, variant: Variant, shape: LaunchShape, args: Args<Self>) -> Result<()>;
}

/// Launches kernel `K`, first letting it have more than [`DEFAULT_SHARED_BYTES`] of shared
/// memory where its tile needs that.
fn launch_with<K: Kernel<A> + Copy, A: KernelArgs>(
    kernels: &LoadedKernels,
    kernel: K,
    shape: LaunchShape,
    args: A,
) -> Result<()> {
    if shape.shared_bytes > DEFAULT_SHARED_BYTES {
        kernels.allow_shared_bytes::<K, A>(kernel, shape.shared_bytes)?;
    }
    kernels.launch(kernel, shape, args)
}

macro_rules! deriv_real {
    ($($t:ty),*) => {$(
        impl DerivReal for $t {
            fn launch(kernels: &LoadedKernels, variant: Variant, shape: LaunchShape, args: Args<Self>) -> Result<()> {
                use {Coefficients as C, Direction as D, Mode as M, Pencils as P};
                let k = kernels;
                match (variant.direction, variant.pencils, variant.coefficients, variant.mode, args) {
                    (D::X, P::Small, C::Uniform, M::Stencil, Args::Plain(a)) => launch_with(k, DerivX, shape, a),
                    (D::X, P::Small, C::Uniform, M::OneSync, Args::Plain(a)) => launch_with(k, DerivX1sync, shape, a),
                    (D::X, P::Small, C::Uniform, M::MemOnly, Args::Plain(a)) => launch_with(k, DerivXMem, shape, a),
                    (D::X, P::Small, C::Uniform, M::MathOnly, Args::Math(a)) => launch_with(k, DerivativeMath, shape, a),
                    (D::X, P::Large, C::Uniform, M::Stencil, Args::Plain(a)) => launch_with(k, DerivXLPencils, shape, a),
                    (D::Y, P::Small, C::Uniform, M::Stencil, Args::Plain(a)) => launch_with(k, DerivY, shape, a),
                    (D::Y, P::Large, C::Uniform, M::Stencil, Args::Plain(a)) => launch_with(k, DerivYLPencils, shape, a),
                    (D::Z, P::Small, C::Uniform, M::Stencil, Args::Plain(a)) => launch_with(k, DerivZ, shape, a),
                    (D::Z, P::Large, C::Uniform, M::Stencil, Args::Plain(a)) => launch_with(k, DerivZLPencils, shape, a),
                    (D::Y, P::March, C::Uniform, M::Stencil, Args::Plain(a)) => launch_with(k, DerivYMarch, shape, a),
                    (D::Z, P::March, C::Uniform, M::Stencil, Args::Plain(a)) => launch_with(k, DerivZMarch, shape, a),
                    (D::X, P::Small, C::Constant, M::Stencil, Args::Plain(a)) => launch_with(k, DerivXNonuniformConstant, shape, a),
                    (D::X, P::Large, C::Constant, M::Stencil, Args::Plain(a)) => launch_with(k, DerivXLPencilsNonuniformConstant, shape, a),
                    (D::Y, P::Small, C::Constant, M::Stencil, Args::Plain(a)) => launch_with(k, DerivYNonuniformConstant, shape, a),
                    (D::Y, P::Large, C::Constant, M::Stencil, Args::Plain(a)) => launch_with(k, DerivYLPencilsNonuniformConstant, shape, a),
                    (D::Z, P::Small, C::Constant, M::Stencil, Args::Plain(a)) => launch_with(k, DerivZNonuniformConstant, shape, a),
                    (D::Z, P::Large, C::Constant, M::Stencil, Args::Plain(a)) => launch_with(k, DerivZLPencilsNonuniformConstant, shape, a),
                    (D::X, P::Small, C::Global, M::Stencil, Args::Global(a)) => launch_with(k, DerivXNonuniformGlobal, shape, a),
                    (D::X, P::Large, C::Global, M::Stencil, Args::Global(a)) => launch_with(k, DerivXLPencilsNonuniformGlobal, shape, a),
                    (D::Y, P::Small, C::Global, M::Stencil, Args::Global(a)) => launch_with(k, DerivYNonuniformGlobal, shape, a),
                    (D::Y, P::Large, C::Global, M::Stencil, Args::Global(a)) => launch_with(k, DerivYLPencilsNonuniformGlobal, shape, a),
                    (D::Z, P::Small, C::Global, M::Stencil, Args::Global(a)) => launch_with(k, DerivZNonuniformGlobal, shape, a),
                    (D::Z, P::Large, C::Global, M::Stencil, Args::Global(a)) => launch_with(k, DerivZLPencilsNonuniformGlobal, shape, a),
                    _ => Err(Error::InvalidArgument(format!(
                        "no kernel {} takes these arguments (the variants of x are the uniform grid's, with 4 pencils)",
                        variant.kernel()
                    ))),
                }
            }
        }
    )*};
}
deriv_real!(f32, f64);

/// The constant bank is one per module (one per process on the simulator): whoever writes
/// coefficients holds this until their launches are queued, so concurrent callers (the tests
/// run in parallel) never launch with another's coefficients.
static CONSTANT_BANK: Mutex<()> = Mutex::new(());

/// The coefficients of one problem: per direction, the four arrays of its grid on the host and,
/// for the stretched grid, in a device buffer.
pub struct Problem<T: DerivReal> {
    pub extents: Extents,
    pub grid: Grid,
    /// `[a, b, c, d]` arrays of each direction, `m` values each.
    pub coeffs: [[Vec<T>; 4]; 3],
    /// Each direction's four arrays in one device buffer (`a` then `b`, `c`, `d`), for the
    /// global-memory kernels.
    pub coeffs_d: Vec<DeviceBuffer<T>>,
    /// Threads along the line in each block, in place of the default (`--line-threads`).
    pub line_threads: Option<usize>,
}

impl<T: DerivReal> Problem<T> {
    /// The coefficients of `grid` for `extents` (uploaded for the stretched grid).
    pub fn new(gpu: &Gpu, grid: Grid, extents: Extents) -> Result<Self> {
        check_extents(extents)?;
        let coeffs: [[Vec<T>; 4]; 3] = Direction::ALL.map(|d| coefficients(grid, extents.along(d)));
        let coeffs_d = match grid {
            Grid::Uniform => Vec::new(),
            Grid::Stretched => coeffs
                .iter()
                .map(|c| gpu.upload(&c.concat()))
                .collect::<Result<Vec<_>>>()?,
        };
        Ok(Self {
            extents,
            grid,
            coeffs,
            coeffs_d,
            line_threads: None,
        })
    }

    /// Writes what `variant` reads from the constant bank of `kernels` (the uniform scalars, or
    /// the stretched grid's arrays of its direction), then runs `launches` before another
    /// writer may touch the bank; an error when the arrays do not fit in the bank.
    pub fn with_constants<R>(
        &self,
        kernels: &LoadedKernels,
        variant: Variant,
        launches: impl FnOnce() -> Result<R>,
    ) -> Result<R> {
        let _bank = CONSTANT_BANK.lock().unwrap_or_else(PoisonError::into_inner);
        match variant.coefficients {
            Coefficients::Uniform => {
                let m = |d: Direction| (self.extents.along(d) - 1) as f64;
                let scalars: Vec<T> = Direction::ALL
                    .iter()
                    .flat_map(|&d| crate::reference::ch6::deriv::STENCIL.map(|c| T::from_f64(c * m(d))))
                    .collect();
                kernels.write_constant(UNIFORM_WORD, &scalars)?;
            }
            Coefficients::Constant => {
                let m = self.extents.along(variant.direction);
                let most = max_constant_points(T::WORDS);
                if m > most {
                    return Err(Error::InvalidArgument(format!(
                        "the stretched grid's coefficients of {m} points per line do not fit in the 64 KiB constant bank ({most} points at most in {})",
                        T::NAME
                    )));
                }
                kernels.write_constant(NONUNIFORM_WORD, &self.coeffs[variant.direction.index()].concat())?;
            }
            Coefficients::Global => {}
        }
        launches()
    }

    /// The arguments of `variant` with input `f_d` and output `df_d` (math-only: the tile holds
    /// 1, `df_d` stays untouched); an error when `variant` reads another grid's coefficients.
    pub fn args<'a>(
        &'a self,
        variant: Variant,
        f_d: &'a DeviceBuffer<T>,
        df_d: &'a mut DeviceBuffer<T>,
    ) -> Result<Args<'a, T>> {
        if variant.coefficients.grid() != self.grid {
            return Err(Error::InvalidArgument(format!(
                "{} reads the {:?} grid's coefficients, not the {:?} grid's",
                variant.kernel(),
                variant.coefficients.grid(),
                self.grid
            )));
        }
        let Extents { mx, my, mz } = self.extents;
        let (mx, my, mz) = (mx as u32, my as u32, mz as u32);
        Ok(match (variant.mode, variant.coefficients) {
            (Mode::MathOnly, _) => Args::Math(DerivMathArgs {
                df: df_d.view_mut(),
                mx,
                my,
                mz,
                val: T::from_f64(1.0),
            }),
            (_, Coefficients::Global) => Args::Global(DerivGlobalArgs {
                f: f_d.view(),
                df: df_d.view_mut(),
                coeffs: self.coeffs_d[variant.direction.index()].view(),
                mx,
                my,
                mz,
            }),
            _ => Args::Plain(DerivArgs {
                f: f_d.view(),
                df: df_d.view_mut(),
                mx,
                my,
                mz,
            }),
        })
    }

    /// Launches `variant` with `args` (see [`Problem::args`]) from `kernels`, in its launch
    /// shape. Call inside [`Problem::with_constants`], or after it for `kernels`' bank.
    pub fn launch_args(&self, gpu: &Gpu, kernels: &LoadedKernels, variant: Variant, args: Args<T>) -> Result<()> {
        let shape = variant.shape::<T>(gpu, self.extents, self.line_threads)?;
        T::launch(kernels, variant, shape, args)
    }

    /// Launches `variant`: `df_d` = the derivative of `f_d` (math-only: `df_d` untouched), from
    /// `kernels`. Call inside [`Problem::with_constants`].
    pub fn launch(
        &self,
        gpu: &Gpu,
        kernels: &LoadedKernels,
        variant: Variant,
        f_d: &DeviceBuffer<T>,
        df_d: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let args = self.args(variant, f_d, df_d)?;
        self.launch_args(gpu, kernels, variant, args)
    }

    /// `df_d` = the derivative of `f_d` with `variant` from the book's kernels, constants
    /// written first: one call, for tests and the agreement.
    pub fn run(&self, gpu: &Gpu, variant: Variant, f_d: &DeviceBuffer<T>, df_d: &mut DeviceBuffer<T>) -> Result<()> {
        let kernels = crate::kernels(gpu)?;
        self.with_constants(&kernels, variant, || self.launch(gpu, &kernels, variant, f_d, df_d))
    }
}
