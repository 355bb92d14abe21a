//! ch3-bank-conflicts: what shared-memory bank conflicts cost on a 32-bank GPU (book §3.3.3.2).
//!
//! Every warp reads 32 words of shared memory at a stride of 1, 2, 3, 4, 8, 16 and 32 words, and
//! at 33, which is stride 32 with one word of padding per 32-word row (the transpose's column
//! read from `tile(TILE_DIM+1, TILE_DIM)`). The conflict degree is `gcd(stride, 32)`, so the
//! time per read should double with each power of two and fall back at 3 and 33. The book's
//! other knobs are gone: compute capability 1.x's 16 banks per half-warp, and 3.x's 8-byte bank
//! mode (`cudaDeviceSetSharedMemConfig`), which later GPUs ignore (4-byte banks).
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::plot_option::writable_png;
use crate::plot::{Chart, Series};
use crate::reference;
use book_kernels::ch3::bank_conflicts::{BankArgs, BankConflicts, BankTile, MAX_STRIDE, READS};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};
use std::path::PathBuf;

/// ch3-bank-conflicts.
pub struct Ch3BankConflicts;

/// ch3-bank-conflicts' own option.
#[derive(clap::Args, Clone, Debug)]
pub struct Ch3BankConflictsOptions {
    /// also draw the time per read against the stride
    #[arg(long, value_name = "FILE.png", value_parser = writable_png)]
    pub plot: Option<PathBuf>,
}

impl Example for Ch3BankConflicts {
    const ID: &'static str = "ch3-bank-conflicts";
    const DESCRIPTION: &'static str =
        "shared-memory reads at strides 1 to 32 words and padded, time per read (book 3.3.3.2); --size sets passes";
    const SIZE: Option<Size> = Some(
        Size::new(
            "passes over the shared tile per thread (the memory is one sum per thread, whatever the size)",
            PASSES,
            SIMULATOR_PASSES,
        )
        .at_most(u32::MAX as usize),
    );
    const REPS: bool = true;
    type Args = Ch3BankConflictsOptions;

    /// The run's peak, whatever the number of passes: one `u32` sum per thread on the device,
    /// and on the host the CPU's sums and a download, for at most [`MAX_MULTIPROCESSORS`].
    fn memory(_: &Run<Self::Args>, _gpu: &Gpu) -> Option<Footprint> {
        let threads = MAX_MULTIPROCESSORS * BLOCKS_PER_SM as usize * THREADS_PER_BLOCK as usize;
        Footprint::NONE.device::<u32>(1, threads)?.host::<u32>(3, threads)
    }

    /// The table: per stride, the conflict degree, the time per launch, the time per warp-wide
    /// read per SM, and the slowdown against stride 1; every thread's sum checked exactly.
    fn run(gpu: &Gpu, run: &Run<Self::Args>) -> Result<Outcome> {
        let passes = run.size;
        let p = gpu.properties();
        let blocks = gpu.pick(p.multiprocessor_count * BLOCKS_PER_SM, 2);
        let threads = blocks as usize * THREADS_PER_BLOCK as usize;
        let mut out_d = gpu.zeros::<u32>(threads)?;
        let reads = passes * READS;
        let warp_reads_per_sm = reads as f64 * (threads / 32) as f64 / p.multiprocessor_count.max(1) as f64;
        println!(
            "{blocks} blocks of {THREADS_PER_BLOCK} threads, {reads} reads of 4 bytes per thread, {} SMs ({})",
            p.multiprocessor_count,
            gpu.timing_label()
        );
        println!();
        println!(
            "{:>8} {:>10} {:>12} {:>18} {:>10}",
            "stride", "conflicts", "time (ms)", "ns per warp read", "x stride 1"
        );
        let (mut checks, mut points, mut base_ms) = (Vec::new(), Vec::new(), None);
        for stride in STRIDES {
            let stats = time_reps(gpu, run.reps, || launch(gpu, &mut out_d, stride, passes))?;
            let expected = reference::ch3::bank_conflicts::sums(threads, stride as usize, passes);
            let (name, got) = (format!("stride {stride}"), gpu.download(&out_d)?);
            checks.push(Check::compare(&name, &got, &expected, Tolerance::EXACT));
            let ms = stats.median_ms;
            let base = *base_ms.get_or_insert(ms);
            let ns_per_read = ms * 1e6 / warp_reads_per_sm;
            let label = if stride == 33 {
                "32+1".to_string()
            } else {
                stride.to_string()
            };
            println!(
                "{label:>8} {:>9}x {ms:>12.4} {ns_per_read:>18.3} {:>10.2}",
                conflict_degree(stride),
                ms / base
            );
            points.push((stride as f64, ns_per_read));
        }
        if let Some(path) = &run.args.plot {
            Chart::new(
                format!("Shared-memory reads by stride, {}", p.name),
                "stride (words; 33 = 32 with padding)",
                "ns per warp-wide read per SM",
            )
            .write(path, &[Series::new("bank_conflicts", points)])?;
            println!("plot written to {}", path.display());
        }
        Ok(Outcome { checks })
    }
}

/// The strides measured, in words; 33 is 32 with one word of padding.
pub const STRIDES: [u32; 8] = [1, 2, 3, 4, 8, 16, 32, 33];
/// Threads per block.
pub const THREADS_PER_BLOCK: u32 = 256;
/// Blocks per SM: enough warps to keep the shared-memory pipe busy.
pub const BLOCKS_PER_SM: u32 = 8;
/// Passes of `READS` reads per thread on a GPU (`--size` sets it).
pub const PASSES: usize = 4096;
/// Passes on the simulator, which runs each read as a host loop.
pub const SIMULATOR_PASSES: usize = 4;
/// More multiprocessors than any GPU so far has (an H100 has 132, a B200 148): the plan's bound
/// on the threads, which are [`BLOCKS_PER_SM`] blocks per multiprocessor.
pub const MAX_MULTIPROCESSORS: usize = 192;

/// Runs `bank_conflicts` over `out_d` (one sum per thread, a multiple of
/// [`THREADS_PER_BLOCK`] threads) at `stride` words, `passes` times.
pub fn launch(gpu: &Gpu, out_d: &mut DeviceBuffer<u32>, stride: u32, passes: usize) -> Result<()> {
    if !(1..=MAX_STRIDE).contains(&stride) {
        return Err(Error::InvalidArgument(format!(
            "the stride must be 1 to {MAX_STRIDE} words, not {stride}"
        )));
    }
    let blocks = out_d.len() / THREADS_PER_BLOCK as usize;
    if blocks == 0 || !out_d.len().is_multiple_of(THREADS_PER_BLOCK as usize) {
        return Err(Error::InvalidArgument(format!(
            "the output holds one sum per thread: a positive multiple of {THREADS_PER_BLOCK}, not {}",
            out_d.len()
        )));
    }
    let passes = u32::try_from(passes).map_err(|_| Error::InvalidArgument(format!("{passes} passes exceed u32")))?;
    let shape =
        LaunchShape::new((blocks as u32, 1, 1), (THREADS_PER_BLOCK, 1, 1)).with_shared_bytes(BankTile::BYTES as u32);
    let args = BankArgs {
        out: out_d.view_mut(),
        stride,
        passes,
    };
    crate::kernels(gpu)?.launch(BankConflicts, shape, args)
}

/// Lanes that fall on one bank when a warp reads 32 words `stride` words apart: `gcd(stride, 32)`.
pub fn conflict_degree(stride: u32) -> u32 {
    let (mut a, mut b) = (stride, 32);
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a
}
