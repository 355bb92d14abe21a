//! ch3-offset-stride: the array increment at offsets 0..=32 and strides 1..=32, in place (the
//! book's `offset` and `stride` kernels, §3.2.2, program `offsetNStride`) and out of place
//! (`b = a + 1`, the variant of Figures 3.12 and 3.13), in f32 or f64, with the book's 4 MB of
//! data per launch; `--plot` draws Figures 3.6/3.10 (bandwidth vs offset) and 3.14 (vs stride).
//! `--cache cg|both` times the stride kernels with their load cached in L2 only (`ld.global.cg`,
//! the book's `-Mcuda=noL1`, Figures 3.15-3.17) instead of or beside the L1 path; the header
//! shows the device's ECC state, which the book's figures compare.
use crate::example::{Flag, LegacyExample, Options, Outcome, Precision};
use crate::examples::ch3::sweep::{BLOCK_SIZE, MAX_S, SPAN_FACTOR, SweepCheck, book_elements};
use crate::examples::plot_option;
use crate::plot::{Chart, Series};
use crate::reference::ch3::offset_stride as reference;
pub use crate::reference::ch3::offset_stride::Pattern;
use book_kernels::ch3::offset_stride::{
    InPlaceArgs, Offset, OffsetOutOfPlace, OutOfPlaceArgs, Stride, StrideCg, StrideOutOfPlace, StrideOutOfPlaceCg,
};
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};
use std::path::Path;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch3-offset-stride",
    description: "array increment at offsets 0..32 and strides 1..32, in place and out of place, f32 or f64 (book 3.2.2)",
    size: Some(crate::examples::ch3::sweep::size(memory)),
    f64: true,
    reps: true,
    flags: &[
        plot_option::FLAG,
        Flag::value(
            "--cache",
            "l1|cg|both",
            "the stride sweep's loads: through L1 (l1, ld.global), cached in L2 only (cg, ld.global.cg: the book's -Mcuda=noL1), or both side by side [default: l1]",
        ),
    ],
    run,
};

/// The run's peak: the input and the output of `33 n` elements on the device; on the host the
/// zeros, the input, a download and the CPU's result; `None` on overflow.
pub fn memory(options: &Options, _gpu: &Gpu, n: usize) -> Option<ferrocuda::footprint::Footprint> {
    crate::examples::ch3::sweep::plan(options, n, [2, 0, 4, 0])
}

/// Whether the kernel writes the array it reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Placement {
    /// `a = a + 1`: the book's kernels.
    InPlace,
    /// `b = a + 1`.
    OutOfPlace,
}

impl Placement {
    /// Both, the book's first.
    pub const ALL: [Placement; 2] = [Placement::InPlace, Placement::OutOfPlace];

    /// The column header.
    pub fn label(self) -> &'static str {
        match self {
            Placement::InPlace => "in-place",
            Placement::OutOfPlace => "out-of-place",
        }
    }
}

/// Where the increment's load is cached.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cache {
    /// `ld.global`: L1 and L2 (the default).
    L1,
    /// `ld.global.cg`: L2 only, the book's `-Mcuda=noL1` (stride kernels only).
    Cg,
}

impl Cache {
    /// A column header's suffix.
    pub fn suffix(self) -> &'static str {
        match self {
            Cache::L1 => "",
            Cache::Cg => " cg",
        }
    }

    /// `--cache l1|cg|both`: the caches the stride sweep times, L1 alone by default.
    pub fn from_options(options: &Options) -> Result<Vec<Cache>> {
        match options.value("--cache") {
            None | Some("l1") => Ok(vec![Cache::L1]),
            Some("cg") => Ok(vec![Cache::Cg]),
            Some("both") => Ok(vec![Cache::L1, Cache::Cg]),
            Some(other) => Err(Error::InvalidArgument(format!(
                "--cache takes l1, cg or both, not `{other}`"
            ))),
        }
    }
}

/// The refusal of an offset kernel with the L2-only load, which only the stride kernels have.
fn no_offset_cg() -> Error {
    Error::InvalidArgument("the L2-only (ld.global.cg) kernels are the stride ones; offsets load through L1".into())
}

/// An element type of the increment kernels (`f32`, `f64`).
pub trait OffsetStrideReal: Real + Into<f64> + Element + Send + Sync {
    /// Launches `offset` or `stride`.
    fn launch_in_place(gpu: &Gpu, pattern: Pattern, shape: LaunchShape, args: InPlaceArgs<'_, Self>) -> Result<()>;
    /// Launches `offset_out_of_place` or `stride_out_of_place`.
    fn launch_out_of_place(
        gpu: &Gpu,
        pattern: Pattern,
        shape: LaunchShape,
        args: OutOfPlaceArgs<'_, Self>,
    ) -> Result<()>;
    /// Launches `stride_cg`.
    fn launch_stride_cg(gpu: &Gpu, shape: LaunchShape, args: InPlaceArgs<'_, Self>) -> Result<()>;
    /// Launches `stride_out_of_place_cg`.
    fn launch_stride_out_of_place_cg(gpu: &Gpu, shape: LaunchShape, args: OutOfPlaceArgs<'_, Self>) -> Result<()>;
}

macro_rules! offset_stride_real {
    ($($t:ty),*) => {$(
        impl OffsetStrideReal for $t {
            fn launch_in_place(gpu: &Gpu, pattern: Pattern, shape: LaunchShape, args: InPlaceArgs<'_, Self>) -> Result<()> {
                match pattern {
                    Pattern::Offset => crate::kernels(gpu)?.launch(Offset, shape, args),
                    Pattern::Stride => crate::kernels(gpu)?.launch(Stride, shape, args),
                }
            }
            fn launch_out_of_place(
                gpu: &Gpu,
                pattern: Pattern,
                shape: LaunchShape,
                args: OutOfPlaceArgs<'_, Self>,
            ) -> Result<()> {
                match pattern {
                    Pattern::Offset => crate::kernels(gpu)?.launch(OffsetOutOfPlace, shape, args),
                    Pattern::Stride => crate::kernels(gpu)?.launch(StrideOutOfPlace, shape, args),
                }
            }
            fn launch_stride_cg(gpu: &Gpu, shape: LaunchShape, args: InPlaceArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(StrideCg, shape, args)
            }
            fn launch_stride_out_of_place_cg(gpu: &Gpu, shape: LaunchShape, args: OutOfPlaceArgs<'_, Self>) -> Result<()> {
                crate::kernels(gpu)?.launch(StrideOutOfPlaceCg, shape, args)
            }
        }
    )*};
}
offset_stride_real!(f32, f64);

/// Fails unless `len` elements hold `n` threads' accesses at `s`.
fn check_span(pattern: Pattern, n: usize, s: usize, len: usize) -> Result<()> {
    let span = pattern.span(n, s);
    if span > len {
        return Err(Error::InvalidArgument(format!(
            "{} {s} with {n} threads touches {span} elements, and the array holds {len}",
            pattern.label().to_lowercase()
        )));
    }
    Ok(())
}

/// `a[k] += 1` at `k = i + s` or `k = i * s` for `i < n`, blocks of `threads`.
pub fn in_place<T: OffsetStrideReal>(
    gpu: &Gpu,
    pattern: Pattern,
    a: &mut DeviceBuffer<T>,
    n: usize,
    s: usize,
    threads: u32,
) -> Result<()> {
    in_place_cached(gpu, pattern, Cache::L1, a, n, s, threads)
}

/// [`in_place`] with the load cached as `cache` says ([`Cache::Cg`]: stride only).
pub fn in_place_cached<T: OffsetStrideReal>(
    gpu: &Gpu,
    pattern: Pattern,
    cache: Cache,
    a: &mut DeviceBuffer<T>,
    n: usize,
    s: usize,
    threads: u32,
) -> Result<()> {
    check_span(pattern, n, s, a.len())?;
    let args = InPlaceArgs { a: a.view_mut(), n, s };
    let shape = LaunchShape::cover_1d(n, threads)?;
    match (pattern, cache) {
        (_, Cache::L1) => T::launch_in_place(gpu, pattern, shape, args),
        (Pattern::Stride, Cache::Cg) => T::launch_stride_cg(gpu, shape, args),
        (Pattern::Offset, Cache::Cg) => Err(no_offset_cg()),
    }
}

/// `b[k] = a[k] + 1` at `k = i + s` or `k = i * s` for `i < n`, blocks of `threads`.
pub fn out_of_place<T: OffsetStrideReal>(
    gpu: &Gpu,
    pattern: Pattern,
    a: &DeviceBuffer<T>,
    b: &mut DeviceBuffer<T>,
    n: usize,
    s: usize,
    threads: u32,
) -> Result<()> {
    out_of_place_cached(gpu, pattern, Cache::L1, a, b, n, s, threads)
}

/// [`out_of_place`] with the load cached as `cache` says ([`Cache::Cg`]: stride only).
#[allow(clippy::too_many_arguments)] // the launch's own parameters, as `out_of_place`'s
pub fn out_of_place_cached<T: OffsetStrideReal>(
    gpu: &Gpu,
    pattern: Pattern,
    cache: Cache,
    a: &DeviceBuffer<T>,
    b: &mut DeviceBuffer<T>,
    n: usize,
    s: usize,
    threads: u32,
) -> Result<()> {
    if a.len() != b.len() {
        return Err(Error::InvalidArgument(format!(
            "out of place needs arrays of one length, not {} and {}",
            a.len(),
            b.len()
        )));
    }
    check_span(pattern, n, s, a.len())?;
    let args = OutOfPlaceArgs {
        a: a.view(),
        b: b.view_mut(),
        n,
        s,
    };
    let shape = LaunchShape::cover_1d(n, threads)?;
    match (pattern, cache) {
        (_, Cache::L1) => T::launch_out_of_place(gpu, pattern, shape, args),
        (Pattern::Stride, Cache::Cg) => T::launch_stride_out_of_place_cg(gpu, shape, args),
        (Pattern::Offset, Cache::Cg) => Err(no_offset_cg()),
    }
}

/// One sweep: per offset or stride, the effective bandwidth of each placement, GB/s.
#[derive(Clone, Debug, PartialEq)]
pub struct Sweep {
    pub pattern: Pattern,
    pub cache: Cache,
    /// `(s, in-place GB/s, out-of-place GB/s)`.
    pub rows: Vec<(usize, f64, f64)>,
}

/// The offsets (0..=32) or strides (1..=32) of the book's loops.
pub fn values(pattern: Pattern) -> std::ops::RangeInclusive<usize> {
    match pattern {
        Pattern::Offset => 0..=MAX_S,
        Pattern::Stride => 1..=MAX_S,
    }
}

/// Times each kernel of `pattern` at every offset or stride (`reps` launches after a warm-up,
/// median) with `n` threads over arrays of `33 n` elements, and checks every array exactly: in
/// place, `a` starts at zero (the book's `a_d = 0.0`) and must end with `reps + 1` at each
/// touched element; out of place, `b` must hold `a + 1` there and its zeros elsewhere.
pub fn sweep<T: OffsetStrideReal>(
    gpu: &Gpu,
    pattern: Pattern,
    cache: Cache,
    n: usize,
    reps: usize,
) -> Result<(Sweep, Vec<Check>)> {
    let len = crate::examples::ch3::sweep::span_elements(n)?;
    let zeros = ferrocuda::footprint::try_vec(len, T::from_f64(0.0))?;
    // Small integers and halves: `x + 1` is exact in both precisions.
    let a = ferrocuda::footprint::try_from_fn(len, |i| T::from_f64((i % 2048) as f64 * 0.5))?;
    let a_d = gpu.upload(&a)?;
    let mut x_d = gpu.upload(&zeros)?;
    let bytes = 2 * n * size_of::<T>();
    let mut rows = Vec::new();
    let mut merged = [SweepCheck::default(), SweepCheck::default()];
    for s in values(pattern) {
        let mut gb = [0.0; 2];
        for (k, placement) in Placement::ALL.into_iter().enumerate() {
            gpu.upload_into(&zeros, &mut x_d)?;
            let stats = time_reps(gpu, reps, || match placement {
                Placement::InPlace => in_place_cached(gpu, pattern, cache, &mut x_d, n, s, BLOCK_SIZE),
                Placement::OutOfPlace => out_of_place_cached(gpu, pattern, cache, &a_d, &mut x_d, n, s, BLOCK_SIZE),
            })?;
            gb[k] = gb_per_s(bytes, stats.median_ms);
            let got = gpu.download(&x_d)?;
            let expected = match placement {
                Placement::InPlace => reference::in_place(&zeros, pattern, n, s, reps.max(1) + 1)?,
                Placement::OutOfPlace => reference::out_of_place(&a, &zeros, pattern, n, s)?,
            };
            merged[k].add(
                format!("s = {s}"),
                Check::compare("", &got, &expected, Tolerance::EXACT),
            );
        }
        rows.push((s, gb[0], gb[1]));
    }
    let checks = Placement::ALL
        .into_iter()
        .zip(merged)
        .map(|(placement, m)| {
            m.into_check(&format!(
                "{} {}{}, every {} of the sweep",
                pattern.label().to_lowercase(),
                placement.label(),
                cache.suffix(),
                pattern.label().to_lowercase()
            ))
        })
        .collect();
    Ok((Sweep { pattern, cache, rows }, checks))
}

/// `path` with `-suffix` before its extension: `sweep.png` becomes `sweep-offset.png`.
pub fn suffixed(path: &str, suffix: &str) -> String {
    let p = Path::new(path);
    let stem = p
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let name = match p.extension() {
        Some(ext) => format!("{stem}-{suffix}.{}", ext.to_string_lossy()),
        None => format!("{stem}-{suffix}"),
    };
    p.with_file_name(name).to_string_lossy().into_owned()
}

/// The device's ECC state, as the book's figures label their curves.
fn ecc_state(gpu: &Gpu) -> &'static str {
    if gpu.is_simulator() {
        "none (a simulator: host memory, no ECC to report)"
    } else if gpu.properties().ecc_enabled {
        "on"
    } else {
        "off"
    }
}

/// Both sweeps in precision `T`, printed in the book's shape: the offsets through L1, the
/// strides through each of `caches`, side by side.
pub fn run_typed<T: OffsetStrideReal>(gpu: &Gpu, options: &Options, n: usize, caches: &[Cache]) -> Result<Outcome> {
    let p = gpu.properties();
    println!(" Device: {}", p.name);
    println!(" ECC: {}", ecc_state(gpu));
    println!(
        " Transfer size (MB): {:.3}",
        (n * size_of::<T>()) as f64 / (1 << 20) as f64
    );
    println!(
        " {} Precision ({} threads per launch, blocks of {BLOCK_SIZE}, arrays of {SPAN_FACTOR} x {n} elements, median of {} launches, {})",
        if size_of::<T>() == 4 { "Single" } else { "Double" },
        n,
        options.reps,
        gpu.timing_label()
    );
    let moved = 2 * n * size_of::<T>();
    if (p.l2_cache_bytes as usize) > moved {
        println!(
            " note: the {} MB each launch moves fit in the {} MB L2, as the book's 4 MB fit no cache of 2012; --size N (threads) for more",
            moved as f64 * 1e-6,
            p.l2_cache_bytes as f64 * 1e-6
        );
    }
    if caches.contains(&Cache::Cg) {
        println!(" cg: the stride kernels' load is ld.global.cg (L2 only, the book's -Mcuda=noL1)");
    }
    let mut checks = Vec::new();
    for pattern in Pattern::ALL {
        let pattern_caches: &[Cache] = match pattern {
            Pattern::Offset => &[Cache::L1],
            Pattern::Stride => caches,
        };
        let mut sweeps = Vec::new();
        for &cache in pattern_caches {
            let (sweep, sweep_checks) = sweep::<T>(gpu, pattern, cache, n, options.reps)?;
            checks.extend(sweep_checks);
            sweeps.push(sweep);
        }
        print_sweeps(pattern, &sweeps);
        if let Some(path) = options.value("--plot") {
            let path = suffixed(path, &pattern.label().to_lowercase());
            let chart = Chart::new(
                format!(
                    "Effective bandwidth vs {} ({}, {})",
                    pattern.label().to_lowercase(),
                    T::NAME,
                    p.name
                ),
                format!("{} (elements)", pattern.label()),
                "effective bandwidth (GB/s)",
            );
            let mut series = Vec::new();
            for sweep in &sweeps {
                for (k, placement) in Placement::ALL.into_iter().enumerate() {
                    let points = sweep
                        .rows
                        .iter()
                        .map(|&(s, a, b)| (s as f64, if k == 0 { a } else { b }))
                        .collect();
                    series.push(Series::new(
                        format!("{}{}", placement.label(), sweep.cache.suffix()),
                        points,
                    ));
                }
            }
            chart.write(&path, &series)?;
            println!(" plot written to {path}");
        }
    }
    Ok(Outcome { checks })
}

/// Prints the sweeps of one pattern (one per cache, over the same offsets or strides) as one
/// table: a column per placement and cache.
fn print_sweeps(pattern: Pattern, sweeps: &[Sweep]) {
    println!();
    println!(" {}, Bandwidth (GB/s):", pattern.label());
    let mut header = format!(" {:>6}", "");
    for sweep in sweeps {
        for placement in Placement::ALL {
            let label = format!("{}{}", placement.label(), sweep.cache.suffix());
            header += &format!(" {label:>15}");
        }
    }
    println!("{header}");
    let Some(first) = sweeps.first() else { return };
    for (row, &(s, ..)) in first.rows.iter().enumerate() {
        let mut line = format!(" {s:>6}");
        for sweep in sweeps {
            let (_, in_place, out_of_place) = sweep.rows[row];
            line += &format!(" {in_place:>15.2} {out_of_place:>15.2}");
        }
        println!("{line}");
    }
}

/// `ch3-offset-stride` with `--precision`, `--size` (threads per launch; the book's 4 MB by
/// default), `--cache` and `--plot`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let caches = Cache::from_options(options)?;
    match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, options, book_elements::<f32>(gpu, options)?, &caches),
        Precision::F64 => run_typed::<f64>(gpu, options, book_elements::<f64>(gpu, options)?, &caches),
    }
}
