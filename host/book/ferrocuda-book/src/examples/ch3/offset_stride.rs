//! ch3-offset-stride: the array increment at offsets 0..=32 and strides 1..=32, in place (the
//! book's `offset` and `stride` kernels, §3.2.2, program `offsetNStride`) and out of place
//! (`b = a + 1`, the variant of Figures 3.12 and 3.13), in f32 or f64, with the book's 4 MB of
//! data per launch; `--plot` draws Figures 3.6/3.10 (bandwidth vs offset) and 3.14 (vs stride).
//! `--cache cg|both` times the stride kernels with their load cached in L2 only (`ld.global.cg`,
//! the book's `-Mcuda=noL1`, Figures 3.15-3.17) instead of or beside the L1 path; the header
//! shows the device's ECC state, which the book's figures compare.
use crate::example::{Example, Outcome, Run};
use crate::examples::ch3::sweep::{self, BLOCK_SIZE, MAX_S, Rows, SPAN_FACTOR};
use crate::examples::plot_option::PlotOption;
use crate::plot::{Chart, Series};
use crate::reference::ch3::offset_stride as reference;
pub use crate::reference::ch3::offset_stride::Pattern;
use book_kernels::ch3::offset_stride::{
    InPlaceArgs, Offset, OffsetOutOfPlace, OutOfPlaceArgs, Stride, StrideCg, StrideOutOfPlace, StrideOutOfPlaceCg,
};
use ferrocuda::device::real::Real;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, Result, same_len};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};
use std::marker::PhantomData;
use std::path::Path;

/// ch3-offset-stride, in precision `T`.
pub struct Ch3OffsetStride<T>(PhantomData<T>);

/// The options of ch3-offset-stride.
#[derive(clap::Args, Clone, Debug)]
pub struct Ch3OffsetStrideOptions {
    #[command(flatten)]
    pub plot: PlotOption,
    /// the stride sweep's loads: through L1 (l1, ld.global), cached in L2 only (cg, ld.global.cg:
    /// the book's -Mcuda=noL1), or both side by side
    #[arg(long, value_name = "l1|cg|both", value_enum, default_value_t = Caches::L1, hide_possible_values = true)]
    pub cache: Caches,
}

/// `--cache`: the caches the stride sweep times.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caches {
    L1,
    Cg,
    Both,
}

impl Caches {
    /// The caches, L1 first.
    pub fn list(self) -> &'static [Cache] {
        match self {
            Caches::L1 => &[Cache::L1],
            Caches::Cg => &[Cache::Cg],
            Caches::Both => &[Cache::L1, Cache::Cg],
        }
    }
}

impl<T: OffsetStrideReal> Example for Ch3OffsetStride<T> {
    const ID: &'static str = "ch3-offset-stride";
    const DESCRIPTION: &'static str =
        "array increment at offsets 0..32 and strides 1..32, in place and out of place, f32 or f64 (book 3.2.2)";
    const SIZE: Option<crate::example::Size> = Some(sweep::SIZE);
    const REPS: bool = true;
    type Args = Ch3OffsetStrideOptions;

    /// The run's peak: the input and the output of `33 n` elements on the device; on the host
    /// the zeros, the input, a download and the CPU's result; `None` on overflow.
    fn memory(run: &Run<Ch3OffsetStrideOptions>, _gpu: &Gpu) -> Option<Footprint> {
        sweep::plan::<T>(run.size, [2, 0, 4, 0])
    }

    /// Both sweeps, printed in the book's shape: the offsets through L1, the strides through
    /// each cache of `--cache`, side by side.
    fn run(gpu: &Gpu, run: &Run<Ch3OffsetStrideOptions>) -> Result<Outcome> {
        let n = sweep::threads::<T, _>(gpu, run);
        let p = gpu.properties();
        println!(" Device: {}", p.name);
        println!(" ECC: {}", ecc_state(gpu));
        println!(
            " Transfer size (MB): {:.3}",
            (n * size_of::<T>()) as f64 / (1 << 20) as f64
        );
        println!(
            " {} Precision ({n} threads per launch, blocks of {BLOCK_SIZE}, arrays of {SPAN_FACTOR} x {n} elements, median of {} launches, {})",
            sweep::precision_word::<T>(),
            run.reps,
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
        let caches = run.args.cache.list();
        if caches.contains(&Cache::Cg) {
            println!(" cg: the stride kernels' load is ld.global.cg (L2 only, the book's -Mcuda=noL1)");
        }
        let mut checks = Vec::new();
        for pattern in Pattern::ALL {
            let caches = if pattern == Pattern::Offset {
                &[Cache::L1][..]
            } else {
                caches
            };
            let mut sweeps = Vec::new();
            for &cache in caches {
                let (rows, sweep_checks) = sweep_pattern::<T>(gpu, pattern, cache, n, run.reps)?;
                checks.extend(sweep_checks);
                sweeps.push((cache, rows));
            }
            print_sweeps(pattern, &sweeps);
            if let Some(path) = &run.args.plot.plot {
                let name = pattern.label().to_lowercase();
                let path = suffixed(&path.to_string_lossy(), &name);
                let chart = Chart::new(
                    format!("Effective bandwidth vs {name} ({}, {})", T::NAME, p.name),
                    format!("{} (elements)", pattern.label()),
                    "effective bandwidth (GB/s)",
                );
                let series: Vec<Series> = sweeps
                    .iter()
                    .flat_map(|(cache, rows)| {
                        (0..2).map(move |k| Series::new(column_label(k, *cache), sweep::column(rows, k)))
                    })
                    .collect();
                chart.write(&path, &series)?;
                println!(" plot written to {path}");
            }
        }
        Ok(Outcome { checks })
    }
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
        ["in-place", "out-of-place"][self as usize]
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
        ["", " cg"][self as usize]
    }
}

/// The header of column `k` (a [`Placement`]) of a sweep through `cache`.
fn column_label(k: usize, cache: Cache) -> String {
    format!("{}{}", Placement::ALL[k].label(), cache.suffix())
}

/// The arguments of an increment kernel: in place or out of place.
pub enum IncrementArgs<'a, T> {
    InPlace(InPlaceArgs<'a, T>),
    OutOfPlace(OutOfPlaceArgs<'a, T>),
}

/// An element type of the increment kernels (`f32`, `f64`).
pub trait OffsetStrideReal: Real + Into<f64> + Element + Send + Sync {
    /// Launches the kernel of `pattern`, `cache` and `args`' placement: `offset`, `stride`,
    /// `stride_cg` or their `_out_of_place` twins.
    fn launch(
        gpu: &Gpu,
        pattern: Pattern,
        cache: Cache,
        shape: LaunchShape,
        args: IncrementArgs<'_, Self>,
    ) -> Result<()>;
}

macro_rules! offset_stride_real {
    ($($t:ty),*) => {$(
        impl OffsetStrideReal for $t {
            fn launch(
                gpu: &Gpu,
                pattern: Pattern,
                cache: Cache,
                shape: LaunchShape,
                args: IncrementArgs<'_, Self>,
            ) -> Result<()> {
                use IncrementArgs::{InPlace, OutOfPlace};
                let kernels = crate::kernels(gpu)?;
                match (pattern, cache, args) {
                    (Pattern::Offset, Cache::Cg, _) => Err(Error::InvalidArgument(
                        "the L2-only (ld.global.cg) kernels are the stride ones; offsets load through L1".into(),
                    )),
                    (Pattern::Offset, Cache::L1, InPlace(args)) => kernels.launch(Offset, shape, args),
                    (Pattern::Stride, Cache::L1, InPlace(args)) => kernels.launch(Stride, shape, args),
                    (Pattern::Stride, Cache::Cg, InPlace(args)) => kernels.launch(StrideCg, shape, args),
                    (Pattern::Offset, Cache::L1, OutOfPlace(args)) => kernels.launch(OffsetOutOfPlace, shape, args),
                    (Pattern::Stride, Cache::L1, OutOfPlace(args)) => kernels.launch(StrideOutOfPlace, shape, args),
                    (Pattern::Stride, Cache::Cg, OutOfPlace(args)) => kernels.launch(StrideOutOfPlaceCg, shape, args),
                }
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

/// `a[k] += 1` at `k = i + s` or `k = i * s` for `i < n`, blocks of `threads`, the load cached
/// as `cache` says ([`Cache::Cg`]: stride only).
pub fn in_place<T: OffsetStrideReal>(
    gpu: &Gpu,
    pattern: Pattern,
    cache: Cache,
    a: &mut DeviceBuffer<T>,
    n: usize,
    s: usize,
    threads: u32,
) -> Result<()> {
    check_span(pattern, n, s, a.len())?;
    let args = IncrementArgs::InPlace(InPlaceArgs { a: a.view_mut(), n, s });
    T::launch(gpu, pattern, cache, LaunchShape::cover_1d(n, threads)?, args)
}

/// `b[k] = a[k] + 1` at `k = i + s` or `k = i * s` for `i < n`, as [`in_place`].
#[allow(clippy::too_many_arguments)] // the launch's own parameters, as `in_place`'s
pub fn out_of_place<T: OffsetStrideReal>(
    gpu: &Gpu,
    pattern: Pattern,
    cache: Cache,
    a: &DeviceBuffer<T>,
    b: &mut DeviceBuffer<T>,
    n: usize,
    s: usize,
    threads: u32,
) -> Result<()> {
    check_span(pattern, n, s, same_len("out of place", &[a.len(), b.len()])?)?;
    let args = IncrementArgs::OutOfPlace(OutOfPlaceArgs {
        a: a.view(),
        b: b.view_mut(),
        n,
        s,
    });
    T::launch(gpu, pattern, cache, LaunchShape::cover_1d(n, threads)?, args)
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
/// touched element; out of place, `b` must hold `a + 1` there and its zeros elsewhere. Per
/// offset or stride, the in-place and out-of-place bandwidths, GB/s.
fn sweep_pattern<T: OffsetStrideReal>(
    gpu: &Gpu,
    pattern: Pattern,
    cache: Cache,
    n: usize,
    reps: usize,
) -> Result<(Rows, Vec<Check>)> {
    let a = sweep::halves::<T>(n)?;
    let zeros = try_vec(a.len(), T::from_f64(0.0))?;
    let a_d = gpu.upload(&a)?;
    let mut x_d = gpu.upload(&zeros)?;
    let (rows, merged) = sweep::sweep_two(values(pattern), "s =", |s, k| {
        gpu.upload_into(&zeros, &mut x_d)?;
        let stats = time_reps(gpu, reps, || match Placement::ALL[k] {
            Placement::InPlace => in_place(gpu, pattern, cache, &mut x_d, n, s, BLOCK_SIZE),
            Placement::OutOfPlace => out_of_place(gpu, pattern, cache, &a_d, &mut x_d, n, s, BLOCK_SIZE),
        })?;
        let got = gpu.download(&x_d)?;
        let expected = match Placement::ALL[k] {
            Placement::InPlace => reference::in_place(&zeros, pattern, n, s, reps.max(1) + 1)?,
            Placement::OutOfPlace => reference::out_of_place(&a, &zeros, pattern, n, s)?,
        };
        let check = Check::compare("", &got, &expected, Tolerance::EXACT);
        Ok((gb_per_s(2 * n * size_of::<T>(), stats.median_ms), check))
    })?;
    let what = pattern.label().to_lowercase();
    let checks = merged
        .into_iter()
        .enumerate()
        .map(|(k, m)| m.into_check(&format!("{what} {}, every {what} of the sweep", column_label(k, cache))))
        .collect();
    Ok((rows, checks))
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

/// Prints the sweeps of one pattern (one per cache, over the same offsets or strides) as one
/// table: a column per placement and cache.
fn print_sweeps(pattern: Pattern, sweeps: &[(Cache, Rows)]) {
    println!();
    println!(" {}, Bandwidth (GB/s):", pattern.label());
    let mut header = format!(" {:>6}", "");
    for &(cache, _) in sweeps {
        for k in 0..2 {
            header += &format!(" {:>15}", column_label(k, cache));
        }
    }
    println!("{header}");
    let Some((_, first)) = sweeps.first() else { return };
    for (row, &(s, _)) in first.iter().enumerate() {
        let mut line = format!(" {s:>6}");
        for (_, rows) in sweeps {
            let [in_place, out_of_place] = rows[row].1;
            line += &format!(" {in_place:>15.2} {out_of_place:>15.2}");
        }
        println!("{line}");
    }
}
