//! `cargo xtask bench`: the memory-bound kernels at a working set far beyond L2, each reported
//! with its GB/s, its fraction of a device-to-device `cudaMemcpy`, and its ratio to the same
//! algorithm in CUDA C (`host/book/nvcc/`, compiled by nvcc at bench time when nvcc is there,
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
pub mod nvcc;
pub mod random;
pub mod reduce;
pub mod simulator;
pub mod stream;
pub mod thesis;

use ferrocuda::gpu::{Error, Gpu, Kernels, LaunchShape, Result};
use ferrocuda::measure::{Stats, gb_per_s};

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
        match self.working_set_mib * (1 << 20) / size_of::<T>() {
            0 => Err(Error::InvalidArgument("--size-mib must be at least 1".into())),
            n => Ok(n),
        }
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
    "transfers",
    "simulator",
];

/// Launches a row's kernel from this library's kernels (`None`) or a twin's module.
pub type Launcher<'a> = Box<dyn FnMut(Option<&Kernels>) -> Result<()> + 'a>;

/// One row: a Rust kernel, optionally its CUDA C twin, and the bytes each launch moves.
pub struct Row<'a> {
    pub name: String,
    pub shape: LaunchShape,
    pub bytes: usize,
    /// Launches the kernel from `module` (the embedded one, or the twin's).
    pub launch: Launcher<'a>,
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
pub fn measure(gpu: &Gpu, mut row: Row<'_>, twin: Option<&Kernels>, reps: usize) -> Result<Measured> {
    (row.launch)(None)?;
    if let Some(twin) = twin {
        (row.launch)(Some(twin))?;
    }
    let (mut rust, mut nvcc) = (Vec::new(), Vec::new());
    for _ in 0..reps.max(1) {
        rust.push(gpu.time_ms(|| (row.launch)(None))?);
        if let Some(twin) = twin {
            nvcc.push(gpu.time_ms(|| (row.launch)(Some(twin)))?);
        }
    }
    Ok(Measured {
        name: row.name,
        shape: row.shape,
        bytes: row.bytes,
        rust: Stats::of(&mut rust),
        nvcc: twin.map(|_| Stats::of(&mut nvcc)),
    })
}

/// Runs every benchmark: on a CUDA device the kernels against memcpy and their CUDA C twins, then
/// the CPU simulator's throughput.
pub fn run(gpu: &Gpu, settings: &Settings) -> Result<()> {
    settings.check_groups()?;
    if gpu.is_simulator() {
        println!("no CUDA device: only the simulator's throughput is measured");
    } else {
        run_cuda(gpu, settings)?;
    }
    if settings.wants("simulator") {
        simulator::run(settings.reps.min(5))?;
    }
    Ok(())
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
    let mut rows = Vec::new();
    if settings.wants("stream") {
        rows.extend(stream::run(gpu, settings, twins.as_ref().map(|t| &t.stream))?);
    }
    if settings.wants("course") {
        rows.extend(course::run(gpu, settings, twins.as_ref().map(|t| &t.vector_add))?);
        rows.extend(course::reduction(gpu, settings)?);
        rows.extend(course::histogram(gpu, settings)?);
    }
    if settings.wants("ch1") {
        rows.extend(ch1::run(
            gpu,
            settings,
            twins.as_ref().map(|t| &t.increment_multiblock),
        )?);
    }
    if settings.wants("reduce") {
        rows.extend(reduce::run(gpu, settings, twins.as_ref().map(|t| &t.reduce))?);
    }
    if settings.wants("ch3") {
        rows.extend(ch3::run(gpu, settings, twins.as_ref().map(|t| &t.transpose))?);
        rows.extend(ch3_access::run(gpu, settings, twins.as_ref().map(|t| &t.ilp_copy))?);
    }
    if settings.wants("thesis") {
        rows.extend(thesis::run(gpu, settings, twins.as_ref().map(|t| &t.sor))?);
    }
    if settings.wants("heat") {
        rows.extend(course_heat::run(gpu, settings, twins.as_ref().map(|t| &t.heat))?);
    }
    if settings.wants("ch6") {
        rows.extend(ch6_deriv::run(gpu, settings, twins.as_ref().map(|t| &t.ch6_deriv))?);
        rows.extend(ch6_laplace::run(gpu, settings, twins.as_ref().map(|t| &t.laplace2d))?);
    }
    if settings.wants("images") {
        rows.extend(course_images::run(
            gpu,
            settings,
            twins.as_ref().map(|t| course_images::ImageTwins {
                image_blur: &t.image_blur,
                convolution: &t.convolution,
            }),
        )?);
    }

    println!();
    println!(
        "{:<30} {:<46} {:>9} {:>10} {:>9} {:>10} {:>10}",
        "kernel", "launch shape", "GB moved", "Rust GB/s", "/memcpy", "nvcc GB/s", "Rust/nvcc"
    );
    for m in &rows {
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
        "(median of {} interleaved runs each; GB = 1e9 bytes read + written; the sums and histograms only read)",
        settings.reps
    );
    if settings.wants("ch3-lessons") {
        ch3_lessons::run(gpu, settings)?;
    }
    if settings.wants("random") {
        random::run(gpu, settings)?;
    }
    if settings.wants("fft") {
        fft::run(gpu, settings, memcpy)?;
    }
    if settings.wants("ch7") {
        ch7::run(gpu, settings)?;
    }
    if settings.wants("ch4") {
        ch4::run(gpu, settings)?;
    }
    if settings.wants("matmul") {
        course::matmul(gpu, settings)?;
    }
    if settings.wants("transfers") {
        ch3_transfers::run(gpu, settings)?;
    }
    Ok(())
}

/// Runs `row` from the embedded module and from `twin`, downloading `output` after each: true
/// when the two kernels wrote the same bytes (a twin whose argument layout drifted would not).
pub fn twin_agrees<T: ferrocuda::gpu::Element + PartialEq>(
    gpu: &Gpu,
    row: &mut Row<'_>,
    twin: &Kernels,
    output: &ferrocuda::gpu::DeviceBuffer<T>,
) -> Result<bool> {
    (row.launch)(None)?;
    let rust = gpu.download(output)?;
    (row.launch)(Some(twin))?;
    Ok(gpu.download(output)? == rust)
}
