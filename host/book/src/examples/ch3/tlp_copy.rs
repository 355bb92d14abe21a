//! ch3-tlp-copy: thread-level parallelism (book §3.5.1 and Appendix D.3, program `parallelism`):
//! the one-element-per-thread copy at block sizes 32..1024, first with as many blocks per
//! multiprocessor as fit, then with extra dynamic shared memory (unused by the kernel) so that
//! only one block fits (the book's §3.5.1.1 trick), each with its occupancy; `--plot` draws the
//! bandwidth against the block size.
use crate::examples::ch3::offset_stride::SweepCheck;
use crate::examples::plot_option;
use crate::examples::{Example, Options, Outcome, Precision};
use crate::plot::{Chart, Series};
use book_kernels::ch3::ilp_copy::{ILP, IlpCopy};
use book_kernels::ch3::tlp_copy::{CopyArgs, TlpCopy};
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{DeviceBuffer, DeviceProperties, Element, Error, Gpu, KernelView, Kernels, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "ch3-tlp-copy",
    description: "copy at block sizes 32..1024, many vs one block per SM, with occupancy (book 3.5.1; its tables are f64)",
    flags: &[plot_option::FLAG],
    run,
};

/// The book's `N = 1024*1024` elements.
pub const N: usize = 1024 * 1024;
/// The simulator's size: every block size still spans many blocks.
pub const SIMULATOR_N: usize = 1 << 15;

/// Which copy kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kernel {
    /// `tlp_copy`: one element per thread (the book's `copy`).
    Tlp,
    /// `ilp_copy`: [`ILP`] elements per thread, loads batched before stores (`copy_ILP`).
    Ilp,
}

impl Kernel {
    /// The launch covering `n` elements with blocks of `threads`.
    pub fn shape(self, n: usize, threads: u32) -> Result<LaunchShape> {
        match self {
            Kernel::Tlp => LaunchShape::cover_1d(n, threads),
            Kernel::Ilp => LaunchShape::cover_1d(n.div_ceil(ILP), threads),
        }
    }
}

/// An element type of the copy kernels.
pub trait CopyReal: Real + Into<f64> + Element + Send + Sync {
    /// Launches `kernel` from `module` (this library's for `None`, or a CUDA C twin's).
    fn launch(
        gpu: &Gpu,
        module: Option<&Kernels>,
        kernel: Kernel,
        shape: LaunchShape,
        args: CopyArgs<Self>,
    ) -> Result<()>;
    /// Blocks of `kernel` per multiprocessor at this block size and dynamic shared memory.
    fn blocks_per_multiprocessor(gpu: &Gpu, kernel: Kernel, threads: u32, shared_bytes: u32) -> Result<u32>;
    /// Lets `kernel` launch with `bytes` of dynamic shared memory.
    fn allow_shared_bytes(gpu: &Gpu, kernel: Kernel, bytes: u32) -> Result<()>;
}

macro_rules! copy_real {
    ($($t:ty),*) => {$(
        impl CopyReal for $t {
            fn launch(
                gpu: &Gpu,
                module: Option<&Kernels>,
                kernel: Kernel,
                shape: LaunchShape,
                args: CopyArgs<Self>,
            ) -> Result<()> {
                match kernel {
                    Kernel::Tlp => crate::twin_or_book(gpu, module)?.launch(TlpCopy, shape, args),
                    Kernel::Ilp => crate::twin_or_book(gpu, module)?.launch(IlpCopy, shape, args),
                }
            }
            fn blocks_per_multiprocessor(gpu: &Gpu, kernel: Kernel, threads: u32, shared_bytes: u32) -> Result<u32> {
                match kernel {
                    Kernel::Tlp => crate::kernels(gpu)?.max_active_blocks_per_multiprocessor::<_, CopyArgs<Self>>(TlpCopy, threads, shared_bytes),
                    Kernel::Ilp => crate::kernels(gpu)?.max_active_blocks_per_multiprocessor::<_, CopyArgs<Self>>(IlpCopy, threads, shared_bytes),
                }
            }
            fn allow_shared_bytes(gpu: &Gpu, kernel: Kernel, bytes: u32) -> Result<()> {
                match kernel {
                    Kernel::Tlp => crate::kernels(gpu)?.allow_shared_bytes::<_, CopyArgs<Self>>(TlpCopy, bytes),
                    Kernel::Ilp => crate::kernels(gpu)?.allow_shared_bytes::<_, CopyArgs<Self>>(IlpCopy, bytes),
                }
            }
        }
    )*};
}
copy_real!(f32, f64);

/// `output = input` with `kernel`, blocks of `threads` and `shared_bytes` of (unused) dynamic
/// shared memory per block.
pub fn copy<T: CopyReal>(
    gpu: &Gpu,
    kernel: Kernel,
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    threads: u32,
    shared_bytes: u32,
) -> Result<()> {
    if input.len() != output.len() {
        return Err(Error::InvalidArgument(format!(
            "a copy needs arrays of one length, not {} and {}",
            input.len(),
            output.len()
        )));
    }
    let shape = kernel.shape(input.len(), threads)?.with_shared_bytes(shared_bytes);
    let args = CopyArgs {
        input: input.view(),
        output: output.view_mut(),
    };
    T::launch(gpu, None, kernel, shape, args)
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

/// The book's `0.9 * sharedMemPerBlock`.
pub fn book_shared_bytes(p: &DeviceProperties) -> u32 {
    (0.9 * f64::from(p.shared_mem_per_block_bytes)) as u32
}

/// One configuration measured.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Measured {
    /// Resident blocks per multiprocessor.
    pub blocks_per_sm: u32,
    /// Their share of the multiprocessor's thread slots.
    pub occupancy: f64,
    /// Effective bandwidth, GB/s (1e9 bytes read + written).
    pub gb_per_s: f64,
}

/// Times `kernel` (`reps` launches after a warm-up, median) copying `input` (whose host copy is
/// `input_host`) into `output`, first poisoned so that an element not copied shows, and checks
/// the copy exactly.
#[allow(clippy::too_many_arguments)]
pub fn measure<T: CopyReal>(
    gpu: &Gpu,
    kernel: Kernel,
    input_host: &[T],
    input: &DeviceBuffer<T>,
    output: &mut DeviceBuffer<T>,
    threads: u32,
    shared_bytes: u32,
    reps: usize,
) -> Result<(Measured, Check)> {
    let blocks_per_sm = T::blocks_per_multiprocessor(gpu, kernel, threads, shared_bytes)?;
    gpu.upload_into(&vec![T::from_f64(-1.0); output.len()], output)?;
    let stats = time_reps(gpu, reps, || copy(gpu, kernel, input, output, threads, shared_bytes))?;
    let check = Check::compare(
        &format!("{kernel:?} copy, {threads} threads, {shared_bytes} B shared"),
        &gpu.download(output)?,
        input_host,
        Tolerance::EXACT,
    );
    let measured = Measured {
        blocks_per_sm,
        occupancy: gpu.occupancy(blocks_per_sm, threads),
        gb_per_s: gb_per_s(2 * input.len() * size_of::<T>(), stats.median_ms),
    };
    Ok((measured, check))
}

/// The input of the copies: distinct values, so a misplaced element shows.
pub fn input<T: Real>(n: usize) -> Vec<T> {
    (0..n).map(|i| T::from_f64((i % 65_536) as f64 + 0.5)).collect()
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
    for kernel in [Kernel::Tlp, Kernel::Ilp] {
        T::allow_shared_bytes(gpu, kernel, bytes)?;
    }
    let book = book_shared_bytes(p);
    let book_blocks = T::blocks_per_multiprocessor(gpu, Kernel::Tlp, p.warp_size, book)?;
    println!(
        "   one block per SM: {bytes} B of dynamic shared memory per block (the book's 0.9*sharedMemPerBlock = {book} B leaves room for {book_blocks} blocks of {} threads here)",
        p.warp_size
    );
    Ok(bytes)
}

/// Both studies of §3.5.1 in precision `T`, in the book's table shape. Every bandwidth is in GB
/// (1e9 bytes), where the book's first loop prints GiB (`1024**3`) and its second GB.
/// The line above a copy table: precision, size, `what` (the ILP, say), how it was timed, and a
/// reminder that the book's tables are f64.
pub fn print_heading<T: CopyReal>(gpu: &Gpu, options: &Options, n: usize, what: &str) {
    println!(
        " {} precision copy of {n} elements ({:.1} MB each way){what}, median of {} launches ({}){}",
        T::NAME,
        (n * size_of::<T>()) as f64 * 1e-6,
        options.reps,
        gpu.timing_label(),
        if T::NAME == "f32" {
            "; the book's tables are f64 (--precision f64)"
        } else {
            ""
        }
    );
}

/// The block-size sweep in precision `T` over `n` elements.
pub fn run_typed<T: CopyReal>(gpu: &Gpu, options: &Options, n: usize) -> Result<Outcome> {
    let one_block = prepare_one_block::<T>(gpu)?;
    let a = input::<T>(n);
    let a_d = gpu.upload(&a)?;
    let mut b_d = gpu.zeros::<T>(n)?;
    print_heading::<T>(gpu, options, n, "");
    println!(
        " {:>12} {:>12} {:>16} {:>22} {:>16}",
        "Thread Block", "Occupancy", "Bandwidth GB/s", "Occupancy (1 blk/SM)", "Bandwidth GB/s"
    );
    let (mut many_checks, mut one_checks) = (SweepCheck::default(), SweepCheck::default());
    let (mut many, mut one) = (Vec::new(), Vec::new());
    for threads in block_sizes(gpu.properties()) {
        let (m, c1) = measure(gpu, Kernel::Tlp, &a, &a_d, &mut b_d, threads, 0, options.reps)?;
        let (o, c2) = measure(gpu, Kernel::Tlp, &a, &a_d, &mut b_d, threads, one_block, options.reps)?;
        many_checks.add(format!("{threads} threads"), c1);
        one_checks.add(format!("{threads} threads"), c2);
        println!(
            " {threads:>12} {:>12.3} {:>16.1} {:>22.3} {:>16.1}",
            m.occupancy, m.gb_per_s, o.occupancy, o.gb_per_s
        );
        many.push((f64::from(threads), m.gb_per_s));
        one.push((f64::from(threads), o.gb_per_s));
    }
    let mut checks = vec![
        many_checks.into_check("tlp_copy, as many blocks per SM as fit, every block size"),
        one_checks.into_check("tlp_copy, one block per SM, every block size"),
    ];
    checks.push(Check::condition(
        "the extra shared memory leaves one block per multiprocessor",
        T::blocks_per_multiprocessor(
            gpu,
            Kernel::Tlp,
            gpu.properties().max_threads_per_block.min(32),
            one_block,
        )? == 1,
    ));
    let chart = Chart::new(
        format!(
            "Copy bandwidth vs thread block size ({}, {})",
            T::NAME,
            gpu.properties().name
        ),
        "threads per block",
        "effective bandwidth (GB/s)",
    )
    .log_x();
    let series = [
        Series::new("blocks per SM as many as fit", many),
        Series::new("one block per SM (extra shared memory)", one),
    ];
    plot_option::write_if_asked(options, &chart, &series)?;
    Ok(Outcome { checks })
}

/// `ch3-tlp-copy` with `--precision` (the book's tables are f64), `--size` (elements; the book's
/// 2^20 by default) and `--plot`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    plot_option::check_path(options)?;
    let n = options.size_or(gpu.pick(N, SIMULATOR_N))?;
    match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, options, n),
        Precision::F64 => run_typed::<f64>(gpu, options, n),
    }
}
