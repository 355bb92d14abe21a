//! What the copies of book §3.5 share (`ch3-tlp-copy`, `ch3-ilp-copy`): the two copy kernels
//! and their element types, the copy and its measurement with occupancy, the block sizes of the
//! book's loop, and the dynamic shared memory that leaves one block per multiprocessor.
use crate::example::{Run, Size};
use crate::examples::ch3::sweep::SweepCheck;
use crate::examples::plot_option::PlotOption;
use crate::nvcc::LoadOr;
use crate::plot::{Chart, Series};
use book_kernels::ch3::ilp_copy::{ILP, IlpCopy};
use book_kernels::ch3::tlp_copy::{CopyArgs, TlpCopy};
use ferrocuda::device::real::Real;
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{
    DeviceBuffer, DeviceProperties, Element, Gpu, KernelView, LaunchShape, LoadedKernels, Result, same_len,
};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

/// The book's `N = 1024*1024` elements.
pub const N: usize = 1024 * 1024;
/// The simulator's size: every block size still spans many blocks.
pub const SIMULATOR_N: usize = 1 << 15;

/// `--size` of both copy examples.
pub const SIZE: Size = Size::new("elements copied (f32, or f64 with --precision f64)", N, SIMULATOR_N);

/// The run's peak: input and output of `n` elements on the device; on the host the input and a
/// download (or the poison written before each launch); `None` on overflow.
pub fn memory<T>(n: usize) -> Option<Footprint> {
    Footprint::NONE.mirrored::<T>(2, n)
}

/// The copy variants: which kernel copies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `tlp_copy`: one element per thread (the book's `copy`).
    Tlp,
    /// `ilp_copy`: [`ILP`] elements per thread, loads batched before stores (`copy_ILP`).
    Ilp,
}

impl Variant {
    /// The launch covering `n` elements with blocks of `threads`.
    pub fn shape(self, n: usize, threads: u32) -> Result<LaunchShape> {
        match self {
            Variant::Tlp => LaunchShape::cover_1d(n, threads),
            Variant::Ilp => LaunchShape::cover_1d(n.div_ceil(ILP), threads),
        }
    }
}

/// An element type of the copy kernels.
pub trait CopyReal: Real + Into<f64> + Element + Send + Sync {
    /// Launches `variant` from `module` (this library's for `None`, or a CUDA C twin's).
    fn launch(
        gpu: &Gpu,
        module: Option<&LoadedKernels>,
        variant: Variant,
        shape: LaunchShape,
        args: CopyArgs<'_, Self>,
    ) -> Result<()>;
    /// Blocks of `variant` per multiprocessor at this block size and dynamic shared memory.
    fn blocks_per_multiprocessor(gpu: &Gpu, variant: Variant, threads: u32, shared_bytes: u32) -> Result<u32>;
    /// Lets `variant` launch with `bytes` of dynamic shared memory.
    fn allow_shared_bytes(gpu: &Gpu, variant: Variant, bytes: u32) -> Result<()>;
}

macro_rules! copy_real {
    ($($t:ty),*) => {$(
        impl CopyReal for $t {
            fn launch(
                gpu: &Gpu,
                module: Option<&LoadedKernels>,
                variant: Variant,
                shape: LaunchShape,
                args: CopyArgs<'_, Self>,
            ) -> Result<()> {
                match variant {
                    Variant::Tlp => gpu.load_or(module, &crate::KERNELS)?.launch(TlpCopy, shape, args),
                    Variant::Ilp => gpu.load_or(module, &crate::KERNELS)?.launch(IlpCopy, shape, args),
                }
            }
            fn blocks_per_multiprocessor(gpu: &Gpu, variant: Variant, threads: u32, shared_bytes: u32) -> Result<u32> {
                match variant {
                    Variant::Tlp => crate::kernels(gpu)?.max_active_blocks_per_multiprocessor::<_, CopyArgs<'_, Self>>(TlpCopy, threads, shared_bytes),
                    Variant::Ilp => crate::kernels(gpu)?.max_active_blocks_per_multiprocessor::<_, CopyArgs<'_, Self>>(IlpCopy, threads, shared_bytes),
                }
            }
            fn allow_shared_bytes(gpu: &Gpu, variant: Variant, bytes: u32) -> Result<()> {
                match variant {
                    Variant::Tlp => crate::kernels(gpu)?.allow_shared_bytes::<_, CopyArgs<'_, Self>>(TlpCopy, bytes),
                    Variant::Ilp => crate::kernels(gpu)?.allow_shared_bytes::<_, CopyArgs<'_, Self>>(IlpCopy, bytes),
                }
            }
        }
    )*};
}
copy_real!(f32, f64);

/// `output = input` with `variant`, blocks of `threads` and `shared_bytes` of (unused) dynamic
/// shared memory per block.
pub fn copy<T: CopyReal>(
    gpu: &Gpu,
    variant: Variant,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    threads: u32,
    shared_bytes: u32,
) -> Result<()> {
    let n = same_len("a copy", &[input.len(), output.len()])?;
    let shape = variant.shape(n, threads)?.with_shared_bytes(shared_bytes);
    let args = CopyArgs {
        input: input.view(),
        output: output.view_mut(),
    };
    T::launch(gpu, None, variant, shape, args)
}

/// The block sizes of the book's loop, `warpSize, 2 warpSize, ..., maxThreadsPerBlock` keeping
/// those that divide `N = 2^20`: the powers of two from the warp size up.
pub fn block_sizes(p: &DeviceProperties) -> Vec<u32> {
    std::iter::successors(Some(p.warp_size.max(1)), |&t| t.checked_mul(2))
        .take_while(|&t| t <= p.max_threads_per_block)
        .collect()
}

/// Dynamic shared memory that leaves room for one block per multiprocessor: just over half the
/// multiprocessor's shared memory (two blocks need twice that, plus the 1 KiB per block that
/// sm_80+ reserves), capped at what a block may opt in to.
///
/// The book asks for `0.9 * sharedMemPerBlock`, which did this on the K20 (48 KiB per block and
/// per multiprocessor), but an H100 multiprocessor holds 228 KiB: five such blocks.
pub fn one_block_shared_bytes(p: &DeviceProperties) -> u32 {
    (p.shared_mem_per_multiprocessor_bytes / 2 + 1024).min(p.shared_mem_per_block_optin_bytes)
}

/// One configuration measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// The resident blocks' share of the multiprocessor's thread slots.
    pub occupancy: f64,
    /// Effective bandwidth, GB/s (1e9 bytes read + written).
    pub gb_per_s: f64,
}

/// Times `variant` (`reps` launches after a warm-up, median) copying `input` (whose host copy is
/// `input_host`) into `output`, first poisoned so that an element not copied shows, and checks
/// the copy exactly.
#[allow(clippy::too_many_arguments)]
pub fn measure<T: CopyReal>(
    gpu: &Gpu,
    variant: Variant,
    input_host: &[T],
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    threads: u32,
    shared_bytes: u32,
    reps: usize,
) -> Result<(Measured, Check)> {
    let blocks_per_sm = T::blocks_per_multiprocessor(gpu, variant, threads, shared_bytes)?;
    gpu.upload_into(&try_vec(output.len(), T::from_f64(-1.0))?, output)?;
    let stats = time_reps(gpu, reps, || copy(gpu, variant, input, output, threads, shared_bytes))?;
    let check = Check::compare(
        &format!("{variant:?} copy, {threads} threads, {shared_bytes} B shared"),
        &gpu.download(output)?,
        input_host,
        Tolerance::EXACT,
    );
    let measured = Measured {
        occupancy: gpu.occupancy(blocks_per_sm, threads),
        gb_per_s: gb_per_s(2 * input.len() * size_of::<T>(), stats.median_ms),
    };
    Ok((measured, check))
}

/// The input of the copies: distinct values, so a misplaced element shows.
pub fn input<T: Real>(n: usize) -> Result<Vec<T>> {
    try_from_fn(n, |i| T::from_f64((i % 65_536) as f64 + 0.5))
}

/// Prints the device's limits (the book's Figure 3.22 column for this GPU) and the shared
/// memory that forces one block per multiprocessor; returns that many bytes, opted in for both
/// kernels.
pub fn prepare_one_block<T: CopyReal>(gpu: &Gpu) -> Result<u32> {
    let p = gpu.properties();
    println!(
        " Device: {} (compute capability {}.{}), {} multiprocessors",
        p.name, p.compute_capability.0, p.compute_capability.1, p.multiprocessor_count
    );
    println!(
        "   max threads/block {}, max blocks/SM {}, max threads/SM {}, registers/SM {}, shared memory/SM {} KiB",
        p.max_threads_per_block,
        p.max_blocks_per_multiprocessor,
        p.max_threads_per_multiprocessor,
        p.registers_per_multiprocessor,
        p.shared_mem_per_multiprocessor_bytes / 1024
    );
    let bytes = one_block_shared_bytes(p);
    for variant in [Variant::Tlp, Variant::Ilp] {
        T::allow_shared_bytes(gpu, variant, bytes)?;
    }
    let book = (0.9 * f64::from(p.shared_mem_per_block_bytes)) as u32;
    let book_blocks = T::blocks_per_multiprocessor(gpu, Variant::Tlp, p.warp_size, book)?;
    println!(
        "   one block per SM: {bytes} B of dynamic shared memory per block (the book's 0.9*sharedMemPerBlock = {book} B leaves room for {book_blocks} blocks of {} threads here)",
        p.warp_size
    );
    Ok(bytes)
}

/// A column of a copy sweep: its kernel, whether extra shared memory leaves one block per
/// multiprocessor, its series' label and its merged check's.
pub struct Column(pub Variant, pub bool, pub &'static str, pub &'static str);

/// The copy sweep of the book's tables in precision `T`: the device, the heading (with `what`)
/// and `header`, then `row(threads, measured)` per block size, each of `columns` measured; with
/// `--plot`, the chart `title`. Returns each column's checks merged, and the dynamic shared
/// memory that leaves one block per multiprocessor. Every bandwidth is in GB (1e9 bytes), where
/// the book's first loop prints GiB (`1024**3`) and its second GB.
pub fn sweep<T: CopyReal>(
    gpu: &Gpu,
    run: &Run<PlotOption>,
    (what, header, title): (&str, String, &str),
    columns: &[Column],
    row: impl Fn(u32, &[Measured]) -> String,
) -> Result<(Vec<Check>, u32)> {
    let n = run.size;
    let one_block = prepare_one_block::<T>(gpu)?;
    let a = input::<T>(n)?;
    let a_d = gpu.upload(&a)?;
    let mut b_d = gpu.zeros::<T>(n)?;
    let f64_note = if T::NAME == "f32" {
        "; the book's tables are f64 (--precision f64)"
    } else {
        ""
    };
    println!(
        " {} precision copy of {n} elements ({:.1} MB each way){what}, median of {} launches ({}){f64_note}",
        T::NAME,
        n as f64 * size_of::<T>() as f64 * 1e-6,
        run.reps,
        gpu.timing_label(),
    );
    println!("{header}");
    let mut merged: Vec<SweepCheck> = columns.iter().map(|_| SweepCheck::default()).collect();
    let mut points = vec![Vec::new(); columns.len()];
    for threads in block_sizes(gpu.properties()) {
        let mut measured = Vec::new();
        for (k, &Column(variant, one, ..)) in columns.iter().enumerate() {
            let shared = if one { one_block } else { 0 };
            let (m, check) = measure(gpu, variant, &a, &a_d, &mut b_d, threads, shared, run.reps)?;
            merged[k].add(format!("{threads} threads"), check);
            points[k].push((f64::from(threads), m.gb_per_s));
            measured.push(m);
        }
        println!("{}", row(threads, &measured));
    }
    let title = format!("{title} ({}, {})", T::NAME, gpu.properties().name);
    let chart = Chart::new(title, "threads per block", "effective bandwidth (GB/s)").log_x();
    let series: Vec<Series> = columns.iter().zip(points).map(|(c, p)| Series::new(c.2, p)).collect();
    run.args.write(&chart, &series)?;
    let checks = columns.iter().zip(merged).map(|(c, m)| m.into_check(c.3)).collect();
    Ok((checks, one_block))
}
