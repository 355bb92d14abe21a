//! ch3-stride-texture: strided reads, `b[i] = a[i * s] + 1` for strides 1..=32, through plain
//! global loads and through the read-only path (book §3.2.3, program `strideTexture`, Figure
//! 3.18). The book binds a texture to `a`; since Maxwell the texture cache and L1 are one unit
//! and `ld.global.nc` reads through it, so the read-only load is today's form of that texture
//! fetch (see `book_kernels::ch3::stride_texture`).
use crate::example::{LegacyExample, Options, Outcome, Precision};
use crate::examples::ch3::sweep::{BLOCK_SIZE, MAX_S, SweepCheck, book_elements};
use crate::examples::plot_option;
use crate::plot::{Chart, Series};
use crate::reference::ch3::stride_texture as reference;
use book_kernels::ch3::stride_texture::{StrideGlobal, StrideReadArgs, StrideTex};
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch3-stride-texture",
    description: "strided reads through global loads vs the read-only (texture) path, strides 1..32 (book 3.2.3)",
    size: Some(crate::examples::ch3::sweep::size(memory)),
    f64: true,
    reps: true,
    flags: &[plot_option::FLAG],
    run,
};

/// How the kernel reads `a`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// `ld.global`: the book's `stride`.
    Global,
    /// `ld.global.nc`: the book's `strideTex`.
    ReadOnly,
}

impl Load {
    /// Both, the book's first.
    pub const ALL: [Load; 2] = [Load::Global, Load::ReadOnly];

    /// The column header.
    pub fn label(self) -> &'static str {
        match self {
            Load::Global => "global",
            Load::ReadOnly => "read-only (ld.global.nc)",
        }
    }
}

/// An element type of the strided-read kernels.
pub trait StrideReal: Real + Into<f64> + Element + Send + Sync {
    /// Launches `stride_global` or `stride_tex`.
    fn launch(gpu: &Gpu, load: Load, shape: LaunchShape, args: StrideReadArgs<'_, Self>) -> Result<()>;
}

macro_rules! stride_real {
    ($($t:ty),*) => {$(
        impl StrideReal for $t {
            fn launch(gpu: &Gpu, load: Load, shape: LaunchShape, args: StrideReadArgs<'_, Self>) -> Result<()> {
                match load {
                    Load::Global => crate::kernels(gpu)?.launch(StrideGlobal, shape, args),
                    Load::ReadOnly => crate::kernels(gpu)?.launch(StrideTex, shape, args),
                }
            }
        }
    )*};
}
stride_real!(f32, f64);

/// `b[i] = a[i * s] + 1` for every element of `b`, blocks of `threads`.
pub fn stride_read<T: StrideReal>(
    gpu: &Gpu,
    load: Load,
    a: &DeviceBuffer<T>,
    b: &mut DeviceBuffer<T>,
    s: usize,
    threads: u32,
) -> Result<()> {
    let n = b.len();
    let span = if n == 0 { 0 } else { (n - 1) * s + 1 };
    if span > a.len() {
        return Err(Error::InvalidArgument(format!(
            "stride {s} over {n} outputs reads {span} elements, and the input holds {}",
            a.len()
        )));
    }
    let args = StrideReadArgs {
        a: a.view(),
        b: b.view_mut(),
        s,
    };
    T::launch(gpu, load, LaunchShape::cover_1d(n, threads)?, args)
}

/// Per stride, `(stride, global GB/s, read-only GB/s)`.
pub type Rows = Vec<(usize, f64, f64)>;

/// The run's peak: the input of `33 n` elements and the output of `n` on the device; on the
/// host the input, the CPU's result and a download (or the -1 preset); `None` on overflow.
pub fn memory(options: &Options, _gpu: &Gpu, n: usize) -> Option<ferrocuda::footprint::Footprint> {
    crate::examples::ch3::sweep::plan(options, n, [1, 1, 1, 2])
}

/// Per stride 1..=32, the bandwidth of each load, GB/s (`2 n size / time`, as the book counts),
/// and one exact check per load over all strides.
pub fn sweep<T: StrideReal>(gpu: &Gpu, n: usize, reps: usize) -> Result<(Rows, Vec<Check>)> {
    // Halves below 1024: `x + 1` is exact in both precisions.
    let span = crate::examples::ch3::sweep::span_elements(n)?;
    let a = ferrocuda::footprint::try_from_fn(span, |i| T::from_f64((i % 2048) as f64 * 0.5))?;
    let a_d = gpu.upload(&a)?;
    let mut b_d = gpu.zeros::<T>(n)?;
    let mut rows = Vec::new();
    let mut merged = [SweepCheck::default(), SweepCheck::default()];
    for s in 1..=MAX_S {
        let mut gb = [0.0; 2];
        for (k, load) in Load::ALL.into_iter().enumerate() {
            // Poisoned first, so an element the kernel skips fails the check.
            gpu.upload_into(&ferrocuda::footprint::try_vec(n, T::from_f64(-1.0))?, &mut b_d)?;
            let stats = time_reps(gpu, reps, || stride_read(gpu, load, &a_d, &mut b_d, s, BLOCK_SIZE))?;
            gb[k] = gb_per_s(2 * n * size_of::<T>(), stats.median_ms);
            let expected = reference::stride_read(&a, n, s)?;
            merged[k].add(
                format!("stride {s}"),
                Check::compare("", &gpu.download(&b_d)?, &expected, Tolerance::EXACT),
            );
        }
        rows.push((s, gb[0], gb[1]));
    }
    let checks = Load::ALL
        .into_iter()
        .zip(merged)
        .map(|(load, m)| m.into_check(&format!("b, {} loads, strides 1..{MAX_S}", load.label())))
        .collect();
    Ok((rows, checks))
}

/// The sweep in precision `T`, in the book's shape, with `--plot`.
pub fn run_typed<T: StrideReal>(gpu: &Gpu, options: &Options, n: usize) -> Result<Outcome> {
    let p = gpu.properties();
    println!(" Device: {}", p.name);
    println!(
        " {} Precision, {n} outputs ({:.3} MB), blocks of {BLOCK_SIZE}, median of {} launches ({})",
        if size_of::<T>() == 4 { "Single" } else { "Double" },
        (n * size_of::<T>()) as f64 / (1 << 20) as f64,
        options.reps,
        gpu.timing_label()
    );
    let (rows, checks) = sweep::<T>(gpu, n, options.reps)?;
    println!(" Stride, Bandwidth (GB/s):");
    println!(" {:>6} {:>12} {:>26}", "", Load::Global.label(), Load::ReadOnly.label());
    for (s, global, read_only) in &rows {
        println!(" {s:>6} {global:>12.2} {read_only:>26.2}");
    }
    let series: Vec<Series> = Load::ALL
        .into_iter()
        .enumerate()
        .map(|(k, load)| {
            let points = rows
                .iter()
                .map(|&(s, g, r)| (s as f64, if k == 0 { g } else { r }))
                .collect();
            Series::new(load.label(), points)
        })
        .collect();
    let chart = Chart::new(
        format!("Strided reads, global vs read-only path ({}, {})", T::NAME, p.name),
        "stride (elements)",
        "effective bandwidth (GB/s)",
    );
    plot_option::write_if_asked(options, &chart, &series)?;
    Ok(Outcome { checks })
}

/// `ch3-stride-texture` with `--precision` (the book's is single), `--size` (outputs; the book's
/// 4 MB by default) and `--plot`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, options, book_elements::<f32>(gpu, options)?),
        Precision::F64 => run_typed::<f64>(gpu, options, book_elements::<f64>(gpu, options)?),
    }
}
