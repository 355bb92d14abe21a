//! ch3-stride-texture: strided reads, `b[i] = a[i * s] + 1` for strides 1..=32, through plain
//! global loads and through the read-only path (book §3.2.3, program `strideTexture`, Figure
//! 3.18). The book binds a texture to `a`; since Maxwell the texture cache and L1 are one unit
//! and `ld.global.nc` reads through it, so the read-only load is today's form of that texture
//! fetch (see `book_kernels::ch3::stride_texture`).
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::ch3::sweep::{self, BLOCK_SIZE, MAX_S};
use crate::examples::plot_option::PlotOption;
use crate::plot::{Chart, Series};
use crate::reference::ch3::stride_texture as reference;
use book_kernels::ch3::stride_texture::{StrideGlobal, StrideReadArgs, StrideTex};
use ferrocuda::device::real::Real;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Element, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};
use std::marker::PhantomData;

/// ch3-stride-texture, in precision `T` (the book's is single).
pub struct Ch3StrideTexture<T>(PhantomData<T>);

impl<T: StrideReal> Example for Ch3StrideTexture<T> {
    const ID: &'static str = "ch3-stride-texture";
    const DESCRIPTION: &'static str =
        "strided reads through global loads vs the read-only (texture) path, strides 1..32 (book 3.2.3)";
    const SIZE: Option<Size> = Some(sweep::SIZE);
    const REPS: bool = true;
    type Args = PlotOption;

    /// The run's peak: the input of `33 n` elements and the output of `n` on the device; on the
    /// host the input, the CPU's result and a download (or the -1 preset); `None` on overflow.
    fn memory(run: &Run<PlotOption>, _gpu: &Gpu) -> Option<Footprint> {
        sweep::plan::<T>(run.size, [1, 1, 1, 2])
    }

    /// Per stride 1..=32, the bandwidth of each load, GB/s (`2 n size / time`, as the book
    /// counts), in the book's shape, and one exact check per load over all strides.
    fn run(gpu: &Gpu, run: &Run<PlotOption>) -> Result<Outcome> {
        let n = sweep::threads::<T, _>(gpu, run);
        let p = gpu.properties();
        println!(" Device: {}", p.name);
        println!(
            " {} Precision, {n} outputs ({:.3} MB), blocks of {BLOCK_SIZE}, median of {} launches ({})",
            sweep::precision_word::<T>(),
            (n * size_of::<T>()) as f64 / (1 << 20) as f64,
            run.reps,
            gpu.timing_label()
        );
        let a = sweep::halves::<T>(n)?;
        let a_d = gpu.upload(&a)?;
        let mut b_d = gpu.zeros::<T>(n)?;
        let (rows, merged) = sweep::sweep_two(1..=MAX_S, "stride", |s, k| {
            // Poisoned first, so an element the kernel skips fails the check.
            gpu.upload_into(&try_vec(n, T::from_f64(-1.0))?, &mut b_d)?;
            let stats = time_reps(gpu, run.reps, || {
                stride_read(gpu, Load::ALL[k], &a_d, &mut b_d, s, BLOCK_SIZE)
            })?;
            let expected = reference::stride_read(&a, n, s)?;
            let check = Check::compare("", &gpu.download(&b_d)?, &expected, Tolerance::EXACT);
            Ok((gb_per_s(2 * n * size_of::<T>(), stats.median_ms), check))
        })?;
        println!(" Stride, Bandwidth (GB/s):");
        println!(" {:>6} {:>12} {:>26}", "", Load::Global.label(), Load::ReadOnly.label());
        for (s, [global, read_only]) in &rows {
            println!(" {s:>6} {global:>12.2} {read_only:>26.2}");
        }
        let series = Load::ALL.map(|load| Series::new(load.label(), sweep::column(&rows, load as usize)));
        let chart = Chart::new(
            format!("Strided reads, global vs read-only path ({}, {})", T::NAME, p.name),
            "stride (elements)",
            "effective bandwidth (GB/s)",
        );
        run.args.write(&chart, &series)?;
        let checks = Load::ALL
            .into_iter()
            .zip(merged)
            .map(|(load, m)| m.into_check(&format!("b, {} loads, strides 1..{MAX_S}", load.label())))
            .collect();
        Ok(Outcome { checks })
    }
}

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
        ["global", "read-only (ld.global.nc)"][self as usize]
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
