//! ch5-bs-european-mc: a European put and call priced by Monte Carlo against the Black-Scholes
//! closed form (book §5.5, module `blackscholes_m` and program `mc`).
//!
//! `N` standard normals from cuRAND (the book's XORWOW, seed 1234) or this library's Philox
//! (`--generator`), then the book's two CUF kernels (`kernels::ch5::bs_european_mc`): the
//! discounted payoffs and their sums, then the sums of squared deviations from the means; the
//! partial sums per block are folded by `ferrocuda::reduce::sum`. Printed as the book prints it:
//! the Monte Carlo values, the closed form with Hastings' normal CDF, the 95% confidence
//! intervals, and the time of the whole sequence (generator, kernels, reductions) by CUDA events.
//!
//! Checks: the GPU's payoffs bit for bit, and its means, deviations and intervals within bounds
//! derived from the two summation orders ([`Bounds`]), against the CPU's Monte Carlo over the
//! same normals (downloaded); the
//! Monte Carlo within two interval half-widths of the closed form; Hastings' CDF against the
//! exact one. `--book` runs the book's four runs (SP and DP, 10^6 and 10^8 samples, cuRAND seed
//! 1234) and checks the intervals the book prints.
//!
//! Here: the launches, the program and the run; the checks in `bs_european_mc/checks.rs`, the
//! book's printed runs in `bs_european_mc/book.rs`.
mod book;
mod checks;

use book::book_run;
pub use book::{BOOK_RUNS, BookRun, book_tolerances};
pub use checks::{Bounds, GPU_TREE_DEPTH, agreement_checks, check_within, statistics};
use checks::{closed_form_check, hastings_check};

use crate::example::{Example, Outcome, Precision, Run, SIMULATOR_SIZE, Size};
use crate::examples::ch5::generator::GeneratorOption;
use crate::reference::ch5::bs_european_mc::{self as reference, BOOK_OPTION, EuropeanOption, McFloat, McStats};
use book_kernels::ch5::bs_european_mc::{
    McModel, McPayoffs, McPayoffsArgs, McSquaredDeviations, McSquaredDeviationsArgs, shared_bytes,
};
use ferrocuda::device::collective::Reducible;
use ferrocuda::device::math::Rounded;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::random::{Generator, RandomFloat};
use ferrocuda::reduce::{self, Reduce};
use ferrocuda::verify::{Check, Tolerance};
use std::marker::PhantomData;

/// ch5-bs-european-mc, in precision `T`.
pub struct Ch5BsEuropeanMc<T>(PhantomData<T>);

/// The options of ch5-bs-european-mc.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Ch5BsEuropeanMcOptions {
    #[command(flatten)]
    pub generator: GeneratorOption,
    /// the generator's seed [default: 1234, the book's]
    #[arg(long, value_name = "N", default_value_t = BOOK_SEED, hide_default_value = true)]
    pub seed: u64,
    /// the book's four runs (SP and DP, 10^6 and 10^8 samples, cuRAND seed 1234) against its printed intervals
    #[arg(long)]
    pub book: bool,
}

impl<T: McReal> Example for Ch5BsEuropeanMc<T> {
    const ID: &'static str = "ch5-bs-european-mc";
    const DESCRIPTION: &'static str = "European put and call by Monte Carlo on cuRAND normals vs the Black-Scholes closed form, 95% confidence intervals (book 5.5)";
    const SIZE: Option<Size> = Some(Size::new(
        "Monte Carlo samples (one normal each)",
        BOOK_SAMPLES,
        SIMULATOR_SIZE,
    ));
    type Args = Ch5BsEuropeanMcOptions;

    /// The peak bytes of a run at `n` samples: one program run; with `--book`, the largest of the
    /// book's runs (the last: DP, 10^8 samples), whatever `n`.
    fn memory(run: &Run<Ch5BsEuropeanMcOptions>, _gpu: &Gpu) -> Option<Footprint> {
        match run.args.book {
            true => program_memory::<f64>(BOOK_RUNS[3].n),
            false => program_memory::<T>(run.size),
        }
    }

    /// The book's program at `--size` samples (10^6; [`SIMULATOR_SIZE`] on the simulator) in
    /// `--precision`, or its four printed runs with `--book`.
    fn run(gpu: &Gpu, run: &Run<Ch5BsEuropeanMcOptions>) -> Result<Outcome> {
        let Ch5BsEuropeanMcOptions { generator, seed, book } = run.args;
        if book && run.size_given {
            return Err(Error::InvalidArgument(
                "--book runs the book's sizes, 10^6 and 10^8 samples: it takes no --size".into(),
            ));
        }
        let other_generator = generator.generator.is_some_and(|g| g != Generator::Curand);
        if book && (gpu.is_simulator() || other_generator || seed != BOOK_SEED) {
            return Err(Error::InvalidArgument(
                "--book reproduces the book's numbers, which come from cuRAND's XORWOW normals in its default ordering with seed 1234: it needs a CUDA device and takes neither another --generator nor another --seed".into(),
            ));
        }
        let mut checks = vec![hastings_check(&BOOK_OPTION)];
        println!();
        if book {
            for printed in &BOOK_RUNS {
                checks.extend(match printed.precision {
                    Precision::F32 => book_run::<f32>(gpu, printed)?,
                    Precision::F64 => book_run::<f64>(gpu, printed)?,
                });
            }
        } else {
            checks.extend(program::<T>(gpu, &BOOK_OPTION, run.size, generator.on(gpu), seed)?.1);
        }
        Ok(Outcome { checks })
    }
}

/// Samples by default. The book's listing defaults to `N = 100000`, but its text says a run
/// without arguments "will use 1 million samples" and its output shows 1000000: the output's.
pub const BOOK_SAMPLES: usize = 1_000_000;
/// The book's seed.
pub const BOOK_SEED: u64 = 1234;
/// Threads per block: the book's compiler chose `<<<(*),(128)>>>` for both CUF kernels.
pub const THREADS_PER_BLOCK: u32 = 128;
/// Blocks per SM at most: 16 x 128 = 2048 threads, an H100 SM's maximum; the grid-stride loops
/// cover any `N` with this one wave.
pub const BLOCKS_PER_SM: u32 = 16;
/// Samples below which the closed-form check is left out: a confidence interval from the sample
/// deviation needs enough samples for the central limit theorem (at 2 samples, both put payoffs
/// are 0, and so is the interval's width, 60% of the time).
pub const MIN_SAMPLES_FOR_CLOSED_FORM: usize = 1000;
/// The closed-form check allows this many confidence-interval half-widths (3.92 standard errors):
/// a correct generator misses it with probability 9e-5 per value, and for one seed and `N` the
/// outcome is fixed.
pub const HALF_WIDTHS: f64 = 2.0;
/// The spec: the option values with Hastings' CDF and with the exact one differ by 4.1e-7.
pub const HASTINGS_VS_EXACT: Tolerance = Tolerance { abs: 1e-6, rel: 0.0 };

/// The launch of both kernels over `n` samples: blocks of [`THREADS_PER_BLOCK`], one per 128
/// samples up to [`BLOCKS_PER_SM`] per SM.
pub fn shape<T: Copy>(gpu: &Gpu, n: usize) -> LaunchShape {
    let fill = (gpu.properties().multiprocessor_count * BLOCKS_PER_SM).max(1);
    let blocks = n.div_ceil(THREADS_PER_BLOCK as usize).clamp(1, fill as usize) as u32;
    LaunchShape::new((blocks, 1, 1), (THREADS_PER_BLOCK, 1, 1)).with_shared_bytes(shared_bytes::<T>() as u32)
}

/// `f32` or `f64`: the precisions of the example, with their kernels.
pub trait McReal: McFloat + Rounded + Reducible + Reduce + RandomFloat + Into<f64> {
    /// The book's label: `SP` or `DP`.
    const LABEL: &'static str;
    /// Significant digits Fortran prints (list-directed): 7 for `real(4)`, 16 for `real(8)`.
    const DIGITS: usize;
    /// `T::EPSILON`, as f64.
    const EPSILON: f64;
    /// Launches `mc_payoffs` for this type.
    fn launch_payoffs(gpu: &Gpu, shape: LaunchShape, args: McPayoffsArgs<'_, Self>) -> Result<()>;
    /// Launches `mc_squared_deviations` for this type.
    fn launch_squared_deviations(gpu: &Gpu, shape: LaunchShape, args: McSquaredDeviationsArgs<'_, Self>) -> Result<()>;
}

macro_rules! mc_real {
    ($($t:ty: $label:literal, $digits:literal;)*) => {$(
        impl McReal for $t {
            const LABEL: &'static str = $label;
            const DIGITS: usize = $digits;
            const EPSILON: f64 = <$t>::EPSILON as f64;
            fn launch_payoffs(gpu: &Gpu, shape: LaunchShape, args: McPayoffsArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(McPayoffs, shape, args)
            }
            fn launch_squared_deviations(gpu: &Gpu, shape: LaunchShape, args: McSquaredDeviationsArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(McSquaredDeviations, shape, args)
            }
        }
    )*};
}
mc_real! {
    f32: "SP", 7;
    f64: "DP", 16;
}

/// `v` widened to f64.
pub fn wide<T: McReal>(v: T) -> f64 {
    v.into()
}

/// The device arrays of one Monte Carlo run: the discounted payoffs of each sample (the book's
/// `putValue`, `callValue`) and one partial sum per block of each option.
pub struct McBuffers<T> {
    pub put_d: DeviceBuffer<T>,
    pub call_d: DeviceBuffer<T>,
    pub put_partials_d: DeviceBuffer<T>,
    pub call_partials_d: DeviceBuffer<T>,
}

impl<T: McReal> McBuffers<T> {
    /// The arrays for `n` samples and a launch of `shape`.
    pub fn new(gpu: &Gpu, n: usize, shape: LaunchShape) -> Result<Self> {
        let blocks = shape.grid.0 as usize;
        Ok(Self {
            put_d: gpu.zeros(n)?,
            call_d: gpu.zeros(n)?,
            put_partials_d: gpu.zeros(blocks)?,
            call_partials_d: gpu.zeros(blocks)?,
        })
    }

    /// Queues `mc_payoffs` over the first `n` normals of `normals_d`: the payoffs, and the
    /// partials of their sums.
    pub fn launch_payoffs(
        &mut self,
        gpu: &Gpu,
        shape: LaunchShape,
        normals_d: &DeviceBuffer<T>,
        model: McModel<T>,
    ) -> Result<()> {
        let args = McPayoffsArgs {
            normals: normals_d.view(),
            put: self.put_d.view_mut(),
            call: self.call_d.view_mut(),
            put_partials: self.put_partials_d.view_mut(),
            call_partials: self.call_partials_d.view_mut(),
            model,
        };
        T::launch_payoffs(gpu, shape, args)
    }

    /// Queues `mc_squared_deviations`: the partials of the sums of the payoffs' squared
    /// deviations from the means.
    pub fn launch_squared_deviations(
        &mut self,
        gpu: &Gpu,
        shape: LaunchShape,
        mean_put: T,
        mean_call: T,
    ) -> Result<()> {
        let args = McSquaredDeviationsArgs {
            put: self.put_d.view(),
            call: self.call_d.view(),
            put_partials: self.put_partials_d.view_mut(),
            call_partials: self.call_partials_d.view_mut(),
            mean_put,
            mean_call,
        };
        T::launch_squared_deviations(gpu, shape, args)
    }

    /// The partials of the last launch, summed (`reduce::sum`): `(put, call)`.
    pub fn sums(&self, gpu: &Gpu) -> Result<(T, T)> {
        Ok((
            reduce::sum(gpu, &self.put_partials_d)?,
            reduce::sum(gpu, &self.call_partials_d)?,
        ))
    }
}

/// What the GPU computed from `N` samples.
pub struct GpuMc<T> {
    pub stats: McStats<T>,
    pub buffers: McBuffers<T>,
    /// The launch of both kernels.
    pub shape: LaunchShape,
}

/// The book's GPU part after the generator: the payoffs of the first `n` normals of `normals_d`
/// and their means (`mc_payoffs`, then the partials summed), then the sample deviations
/// (`mc_squared_deviations` around those means, the partials summed).
pub fn monte_carlo<T: McReal>(gpu: &Gpu, normals_d: &DeviceBuffer<T>, n: usize, model: McModel<T>) -> Result<GpuMc<T>> {
    if n == 0 || n > normals_d.len() {
        return Err(Error::InvalidArgument(format!(
            "the Monte Carlo needs 1 to {} samples (the normals given), not {n}",
            normals_d.len()
        )));
    }
    let shape = shape::<T>(gpu, n);
    let mut buffers = McBuffers::new(gpu, n, shape)?;
    buffers.launch_payoffs(gpu, shape, normals_d, model)?;
    let (put_sum, call_sum) = buffers.sums(gpu)?;
    let (mean_put, mean_call) = (reference::mean(put_sum, n), reference::mean(call_sum, n));
    buffers.launch_squared_deviations(gpu, shape, mean_put, mean_call)?;
    let (put_squares, call_squares) = buffers.sums(gpu)?;
    let stats = McStats {
        mean_put,
        mean_call,
        sd_put: reference::std_dev(put_squares, n),
        sd_call: reference::std_dev(call_squares, n),
    };
    Ok(GpuMc { stats, buffers, shape })
}

/// Normals for `n` samples from `generator`: a buffer of `n` rounded up to even, since cuRAND
/// makes normals in Box-Muller pairs (the Monte Carlo reads the first `n`).
pub fn normals<T: McReal>(gpu: &Gpu, generator: Generator, seed: u64, n: usize) -> Result<DeviceBuffer<T>> {
    let even = n
        .checked_add(n % 2)
        .ok_or_else(|| Error::InvalidArgument(format!("{n} samples are too many")))?;
    let mut normals_d = gpu.zeros::<T>(even)?;
    generator.fill_normal(gpu, seed, &mut normals_d)?;
    Ok(normals_d)
}

/// `v` with `digits` significant digits, as Fortran's list-directed output prints a real.
pub fn significant(v: f64, digits: usize) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = digits as i32 - 1 - v.abs().log10().floor() as i32;
    format!("{v:.*}", decimals.max(0) as usize)
}

/// The book's program: normals, both kernels and their sums timed together with events (the
/// book's events also cover the allocations and the generator's creation), printed in the book's
/// shape, then checked against the CPU and the closed form.
pub fn program<T: McReal>(
    gpu: &Gpu,
    option: &EuropeanOption,
    n: usize,
    generator: Generator,
    seed: u64,
) -> Result<(McStats<T>, Vec<Check>)> {
    let model = option.model::<T>();
    let timer = gpu.timer()?;
    let normals_d = normals::<T>(gpu, generator, seed, n)?;
    let mc = monte_carlo(gpu, &normals_d, n, model)?;
    let elapsed_ms = timer.stop_ms()?;
    gpu.synchronize()?;

    let closed_form = reference::black_scholes(option, reference::cnd_hastings);
    let stats = mc.stats;
    let print_value = |v: T| significant(wide(v), T::DIGITS);
    let print_interval = |[low, high]: [T; 2]| format!("[{}, {}]", print_value(low), print_value(high));
    println!("{}, {n} samples ({}, seed {seed}):", T::LABEL, generator.name());
    for (option, mean, closed_form, interval) in [
        ("put", stats.mean_put, closed_form.put, stats.ci_put(n)),
        ("call", stats.mean_call, closed_form.call, stats.ci_call(n)),
    ] {
        println!("Montecarlo value of {option} option = {}", print_value(mean));
        println!(
            "BlackScholes value of {option} option = {}",
            print_value(T::from_f64(closed_form))
        );
        println!("Confidence interval of {option} option = {}", print_interval(interval));
    }
    println!("Elapsed time (ms) : {elapsed_ms:.5} ({})", gpu.timing_label());

    let normals = gpu.download(&normals_d)?;
    let cpu = reference::monte_carlo(model, &normals[..n])?;
    let mut checks = agreement_checks(gpu, &mc, &cpu)?;
    if n >= MIN_SAMPLES_FOR_CLOSED_FORM {
        checks.push(closed_form_check(option, &stats, n));
    } else {
        println!("(the closed-form check needs at least {MIN_SAMPLES_FOR_CLOSED_FORM} samples: left out at {n})");
    }
    Ok((stats, checks))
}

/// The peak bytes of the program at `n` samples in `T`: on the device the normals (`n` rounded
/// up to even) and both payoff arrays; on the host the downloaded normals, the CPU's payoffs
/// (with its `S_T` while they are made) and the GPU's payoffs downloaded beside them; `None` when
/// the count overflows.
pub fn program_memory<T>(n: usize) -> Option<Footprint> {
    let normals = n.checked_add(n % 2)?;
    Footprint::NONE
        .device::<T>(1, normals)?
        .device::<T>(2, n)?
        .host::<T>(5, n)
}
