//! `cargo xtask bench`: the memory-bound kernels at a working set far beyond L2, each reported
//! with its GB/s, its fraction of a device-to-device `cudaMemcpy`, and its ratio to the same
//! algorithm in CUDA C (`host/book/ferrocuda-book/nvcc/`, compiled by nvcc at bench time when nvcc is there,
//! loaded and launched through the same typed path, so only the kernel differs), all measured in
//! one run with the samples of each row interleaved; then the compute-bound SGEMM kernels in
//! GFLOP/s against cuBLAS.
pub mod ch1;
pub mod ch3;
pub mod ch3_access;
pub mod ch3_lessons;
pub mod ch3_transfers;
pub mod ch4;
pub mod ch6_deriv;
pub mod ch6_laplace;
pub mod ch7;
pub mod course;
pub mod course_heat;
pub mod course_images;
pub mod fft;
pub mod gemm;
pub mod nvcc;
pub mod primitives;
pub mod random;
pub mod reduce;
pub mod simulator;
pub mod stream;
pub mod thesis;

use crate::nvcc::LoadOr;
use ferrocuda::footprint::{Capacity, Footprint};
use ferrocuda::gpu::{Element, Error, Gpu, LaunchShape, LoadedKernels, Result};
use ferrocuda::measure::Stats;
use ferrocuda::measure::gb_per_s;
use ferrocuda::{Kernel, KernelArgs};
use indicatif::ProgressBar;
use std::io::IsTerminal;

/// Benchmark settings.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    /// Bytes of each array, MiB: 512 MiB arrays make every kernel move at least 1 GiB, 20 times
    /// the H100's 50 MB L2.
    pub working_set_mib: usize,
    /// Timed repetitions per row (the median is reported).
    pub reps: usize,
    /// The groups to run (`--only stream,ch3`), or every group when empty.
    pub only: Vec<String>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            working_set_mib: 512,
            reps: 20,
            only: Vec::new(),
        }
    }
}

impl Settings {
    /// True when the group `name` is to run.
    pub fn wants(&self, name: &str) -> bool {
        self.only.is_empty() || self.only.iter().any(|g| g == name)
    }

    /// Refuses an `--only` that names no group, listing the groups.
    pub fn check_groups(&self) -> Result<()> {
        match self.only.iter().find(|g| !GROUPS.contains(&g.as_str())) {
            Some(g) => Err(Error::InvalidArgument(format!(
                "--only takes bench groups ({}), not `{g}`",
                GROUPS.join(", ")
            ))),
            None => Ok(()),
        }
    }

    /// Elements of `T` per array.
    pub fn elements<T>(&self) -> Result<usize> {
        let bytes = self.working_set_mib.checked_mul(1 << 20).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "--size-mib {} is more bytes than this machine can address",
                self.working_set_mib
            ))
        })?;
        match bytes / size_of::<T>() {
            0 => Err(Error::InvalidArgument("--size-mib must be at least 1".into())),
            n => Ok(n),
        }
    }

    /// What the groups sized by `--size-mib` need at `mib` MiB per array, at their peak:
    /// [`WORKING_SET_ARRAYS`] arrays on the device and as many on the host; `None` when the
    /// bytes overflow. (The groups of fixed sizes, the source's, do not depend on it.)
    pub fn footprint(mib: usize) -> Option<Footprint> {
        let bytes = mib.checked_mul(1 << 20)?;
        Footprint::NONE.mirrored::<u8>(WORKING_SET_ARRAYS, bytes)
    }

    /// `Ok` when `--size-mib`'s arrays fit in `capacity`; else one sentence with both figures
    /// and the largest `--size-mib` that fits.
    pub fn check_memory(&self, capacity: &Capacity) -> Result<()> {
        let mib = self.working_set_mib;
        let needs = match Self::footprint(mib) {
            Some(plan) if capacity.fits(plan) => return Ok(()),
            Some(plan) => format!("needs {}", capacity.describe(plan)),
            None => "needs more bytes than 64-bit arithmetic can count".into(),
        };
        let largest = match capacity.largest_fitting(mib, Self::footprint) {
            Some(k) => format!("the largest --size-mib that fits is {k}"),
            None => "not even --size-mib 1 fits".into(),
        };
        Err(Error::OutOfMemory(format!(
            "--size-mib {mib} ({WORKING_SET_ARRAYS} arrays of it at once) {needs}: {largest}"
        )))
    }
}

/// Arrays of `--size-mib` bytes the bench holds at once, at most: STREAM's `a`, `b`, `c` on the
/// device and their initial values on the host, the vector add's three, the FFT rows' input and
/// output with cuFFT's workspace (the sums' doubled input is two; the memcpy rate's source and
/// destination two).
pub const WORKING_SET_ARRAYS: usize = 3;

/// The progress line over the bench's groups (stderr, drawn only on a terminal, so output and
/// CI logs are unchanged): named after the group running, advanced as each finishes.
struct Progress {
    bar: ProgressBar,
    /// True when standard output is a terminal too: the groups that print as they go then run
    /// with the line hidden, so that their lines stay whole.
    shared_terminal: bool,
}

impl Progress {
    /// A line over the groups `settings` selects among `names`.
    fn new(settings: &Settings, names: &[&str]) -> Self {
        let total = names.iter().filter(|g| settings.wants(g)).count();
        Self {
            bar: crate::progress::bar("bench", total as u64),
            shared_terminal: std::io::stdout().is_terminal(),
        }
    }

    /// Runs the group `name` if selected (its rows are printed later, in the table).
    fn group<T: Default>(&self, settings: &Settings, name: &str, run: impl FnOnce() -> Result<T>) -> Result<T> {
        if !settings.wants(name) {
            return Ok(T::default());
        }
        self.bar.set_message(format!("bench: {name}"));
        let result = run()?;
        self.bar.inc(1);
        Ok(result)
    }

    /// Runs the group `name` if selected, one that prints its own lines as it goes.
    fn printing(&self, settings: &Settings, name: &str, run: impl FnOnce() -> Result<()>) -> Result<()> {
        self.group(settings, name, || self.quiet(run))
    }

    /// Runs `print` with the line hidden when it shares the terminal with standard output.
    fn quiet<T>(&self, print: impl FnOnce() -> T) -> T {
        if self.shared_terminal {
            self.bar.suspend(print)
        } else {
            print()
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

/// The bench groups `--only` selects from, in the order they run.
pub const GROUPS: &[&str] = &[
    "stream",
    "course",
    "ch1",
    "reduce",
    "ch3",
    "thesis",
    "heat",
    "ch6",
    "images",
    "ch3-lessons",
    "random",
    "fft",
    "ch7",
    "ch4",
    "matmul",
    "gemm",
    "transfers",
    "primitives",
    "simulator",
];

/// Launches a row's kernel from this library's kernels (`None`) or a twin's module.
pub type Launcher<'a> = Box<dyn FnMut(Option<&LoadedKernels>) -> Result<()> + 'a>;

/// One row: a Rust kernel, optionally its CUDA C twin, and the bytes each launch moves.
pub struct Row<'a> {
    pub name: String,
    pub shape: LaunchShape,
    pub bytes: usize,
    /// Launches the kernel from `module` (the embedded one, or the twin's).
    pub launch: Launcher<'a>,
}

impl<'a> Row<'a> {
    /// A row that launches `kernel` with `args` from the book's kernels, or from a twin's module.
    pub fn kernel<K, A>(gpu: &'a Gpu, name: String, shape: LaunchShape, bytes: usize, kernel: K, args: A) -> Self
    where
        K: Kernel<A> + Copy + 'a,
        A: KernelArgs + Copy + 'a,
    {
        let launch = move |m: Option<&LoadedKernels>| gpu.load_or(m, &crate::KERNELS)?.launch(kernel, shape, args);
        Self {
            name,
            shape,
            bytes,
            launch: Box::new(launch),
        }
    }
}

/// What one row measured.
#[derive(Clone, Debug)]
pub struct Measured {
    pub name: String,
    pub shape: LaunchShape,
    pub bytes: usize,
    pub rust: Stats,
    pub nvcc: Option<Stats>,
}

/// Times `row` (and its twin in `twin`, interleaved) `reps` times after a warm-up of each.
pub fn measure(gpu: &Gpu, mut row: Row<'_>, twin: Option<&LoadedKernels>, reps: usize) -> Result<Measured> {
    let (rust, nvcc) = interleaved(gpu, reps, twin.is_some(), |theirs| {
        (row.launch)(twin.filter(|_| theirs))
    })?;
    Ok(Measured {
        name: row.name,
        shape: row.shape,
        bytes: row.bytes,
        rust,
        nvcc,
    })
}

/// The medians of `launch(false)` (ours) and, when `both`, `launch(true)` (theirs), `reps`
/// samples each, interleaved after a warm-up of each, so that clock and thermal drift hit both
/// alike.
pub fn interleaved(
    gpu: &Gpu,
    reps: usize,
    both: bool,
    mut launch: impl FnMut(bool) -> Result<()>,
) -> Result<(Stats, Option<Stats>)> {
    let sides = if both { &[false, true][..] } else { &[false] };
    sides.iter().try_for_each(|&theirs| launch(theirs))?;
    let mut samples = [Vec::new(), Vec::new()];
    for _ in 0..reps.max(1) {
        for &theirs in sides {
            samples[usize::from(theirs)].push(gpu.time_ms(|| launch(theirs))?);
        }
    }
    let [ours, theirs] = &mut samples;
    Ok((Stats::of(ours), both.then(|| Stats::of(theirs))))
}

/// Runs every benchmark: on a CUDA device the kernels against memcpy and their CUDA C twins, then
/// the CPU simulator's throughput.
pub fn run(gpu: &Gpu, settings: &Settings) -> Result<()> {
    settings.check_groups()?;
    if gpu.is_simulator() {
        // Groups asked for by name that need a GPU would measure nothing: refused, not skipped.
        let gpu_only: Vec<&str> = settings
            .only
            .iter()
            .map(String::as_str)
            .filter(|g| *g != "simulator")
            .collect();
        if !gpu_only.is_empty() {
            return Err(Error::InvalidArgument(format!(
                "--only {} needs a CUDA device, and this run is on the CPU simulator, whose only group is `simulator`",
                gpu_only.join(",")
            )));
        }
        // The simulator's group allocates nothing of --size-mib: no memory to check.
        println!("no CUDA device: only the simulator's throughput is measured");
    } else {
        settings.check_memory(&Capacity::of(gpu)?)?;
        run_cuda(gpu, settings)?;
    }
    let progress = Progress::new(settings, &["simulator"]);
    progress.printing(settings, "simulator", || simulator::run(settings.reps.min(5)))
}

/// The memory-bound kernels against memcpy and their CUDA C twins, in one table.
fn run_cuda(gpu: &Gpu, settings: &Settings) -> Result<()> {
    let p = gpu.properties();
    let array_bytes = settings.working_set_mib << 20;
    println!(
        "bench on device {}: {} (sm_{}), {} SMs, ECC {}",
        p.ordinal,
        p.name,
        p.compute_capability_number(),
        p.multiprocessor_count,
        if p.ecc_enabled { "on" } else { "off" }
    );
    let memcpy = ferrocuda::measure::memcpy_gb_per_s(gpu, array_bytes, settings.reps)?;
    println!(
        "memcpy device-to-device, {} MiB: {memcpy:.0} GB/s (read + write), {:.0}% of the {:.0} GB/s theoretical peak",
        settings.working_set_mib,
        100.0 * memcpy / p.peak_bandwidth_gb_per_s(),
        p.peak_bandwidth_gb_per_s()
    );
    let twins = nvcc::Twins::compile(gpu);
    match &twins {
        Ok(twins) => println!("CUDA C twins: {}", twins.compiler),
        Err(e) => println!("CUDA C twins: not measured ({e})"),
    }
    let twins = twins.ok();
    let twins = twins.as_ref();
    // Every group but the last, `simulator`, which runs after this table.
    let progress = Progress::new(settings, &GROUPS[..GROUPS.len() - 1]);
    let mut rows = Vec::new();
    rows.extend(progress.group(settings, "stream", || {
        stream::run(gpu, settings, twins.map(|t| &t.stream))
    })?);
    rows.extend(progress.group(settings, "course", || {
        let mut rows = course::run(gpu, settings, twins.map(|t| &t.vector_add))?;
        rows.extend(course::reduction(gpu, settings)?);
        rows.extend(course::histogram(gpu, settings)?);
        Ok(rows)
    })?);
    rows.extend(progress.group(settings, "ch1", || {
        ch1::run(gpu, settings, twins.map(|t| &t.increment_multiblock))
    })?);
    rows.extend(progress.group(settings, "reduce", || {
        reduce::run(gpu, settings, twins.map(|t| &t.reduce))
    })?);
    rows.extend(progress.group(settings, "ch3", || {
        let mut rows = ch3::run(gpu, settings, twins.map(|t| &t.transpose))?;
        rows.extend(ch3_access::run(gpu, settings, twins.map(|t| &t.ilp_copy))?);
        Ok(rows)
    })?);
    rows.extend(progress.group(settings, "thesis", || thesis::run(gpu, settings, twins.map(|t| &t.sor)))?);
    rows.extend(progress.group(settings, "heat", || {
        course_heat::run(gpu, settings, twins.map(|t| &t.heat))
    })?);
    rows.extend(progress.group(settings, "ch6", || {
        let mut rows = ch6_deriv::run(gpu, settings, twins.map(|t| &t.ch6_deriv))?;
        rows.extend(ch6_laplace::run(gpu, settings, twins.map(|t| &t.laplace2d))?);
        Ok(rows)
    })?);
    rows.extend(progress.group(settings, "images", || course_images::run(gpu, settings, twins))?);
    progress.quiet(|| print_table(&rows, memcpy, settings.reps));
    progress.printing(settings, "ch3-lessons", || ch3_lessons::run(gpu, settings))?;
    progress.printing(settings, "random", || random::run(gpu, settings))?;
    progress.printing(settings, "fft", || fft::run(gpu, settings, memcpy))?;
    progress.printing(settings, "ch7", || ch7::run(gpu, settings))?;
    progress.printing(settings, "ch4", || ch4::run(gpu, settings))?;
    progress.printing(settings, "matmul", || course::matmul(gpu, settings))?;
    progress.printing(settings, "gemm", || gemm::run(gpu, settings))?;
    progress.printing(settings, "transfers", || ch3_transfers::run(gpu, settings))?;
    progress.printing(settings, "primitives", || primitives::run(gpu, settings, memcpy))?;
    Ok(())
}

/// The table of the memory-bound rows: GB/s, fraction of memcpy, ratio to the CUDA C twin.
fn print_table(rows: &[Measured], memcpy: f64, reps: usize) {
    println!();
    println!(
        "{:<30} {:<46} {:>9} {:>10} {:>9} {:>10} {:>10}",
        "kernel", "launch shape", "GB moved", "Rust GB/s", "/memcpy", "nvcc GB/s", "Rust/nvcc"
    );
    for m in rows {
        let rust = gb_per_s(m.bytes, m.rust.median_ms);
        let (nvcc, ratio) = match m.nvcc {
            Some(s) => {
                let nvcc = gb_per_s(m.bytes, s.median_ms);
                (format!("{nvcc:.0}"), format!("{:.3}", rust / nvcc))
            }
            None => ("-".into(), "-".into()),
        };
        println!(
            "{:<30} {:<46} {:>9.2} {:>10.0} {:>9.3} {:>10} {:>10}",
            m.name,
            m.shape.to_string(),
            m.bytes as f64 * 1e-9,
            rust,
            rust / memcpy,
            nvcc,
            ratio
        );
    }
    println!(
        "(median of {reps} interleaved runs each; GB = 1e9 bytes read + written; the sums and histograms only read)"
    );
}

/// Runs `row` from the embedded module and from `twin`, downloading `output` (a view of what
/// the row's launch writes, which its launcher borrows) after each: true when the two kernels
/// wrote the same bytes (a twin whose argument layout drifted would not).
pub fn twin_agrees<T: Element + PartialEq>(
    gpu: &Gpu,
    row: &mut Row<'_>,
    twin: &LoadedKernels,
    output: ferrocuda::Slice<'_, T>,
) -> Result<bool> {
    (row.launch)(None)?;
    let rust = gpu.download_view(output)?;
    (row.launch)(Some(twin))?;
    Ok(gpu.download_view(output)? == rust)
}

/// `Ok` when the CUDA C twin of `kernel` wrote what the Rust kernel wrote (`same`), else the error.
pub fn twin_same(same: bool, kernel: &str) -> Result<()> {
    let differ = || Error::Io(format!("the CUDA C twin of {kernel} wrote different results"));
    same.then_some(()).ok_or_else(differ)
}

/// Measures `row` after checking, when there is a twin, that it writes what the Rust kernel
/// writes to `output`.
pub fn measure_twin<T: Element + PartialEq>(
    gpu: &Gpu,
    mut row: Row<'_>,
    twin: Option<&LoadedKernels>,
    output: ferrocuda::Slice<'_, T>,
    reps: usize,
) -> Result<Measured> {
    if let Some(twin) = twin {
        twin_same(twin_agrees(gpu, &mut row, twin, output)?, &row.name)?;
    }
    measure(gpu, row, twin, reps)
}
