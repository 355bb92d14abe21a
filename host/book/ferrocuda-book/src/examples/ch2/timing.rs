//! ch2-timing: a host timer versus CUDA events around one kernel (book §2.1.1, §2.1.2).
//!
//! The book times `increment<<<1,n>>>`, one block of its n = 256 threads, and so does the default;
//! `--launch multiblock` times the multi-block increment of §1.3.2 over 2^24 elements instead
//! (the simulator's default: 2^20), long enough for the kernel to dwarf the timers' resolution.
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::examples::ch1::increment_launch::{
    MAX_THREADS_PER_BLOCK, THREADS_PER_BLOCK, increment, increment_one_block,
};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};
use std::time::Instant;

/// The book's array length, one thread each in one block.
pub const N: usize = 256;
/// The multi-block default on a GPU: 2^24 elements.
pub const MULTIBLOCK_N: usize = 1 << 24;

/// `--launch`: which increment is timed.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Launch {
    /// The book's `increment<<<1,n>>>`.
    OneBlock,
    /// `increment<<<ceil(n/256), 256>>>` (book §1.3.2).
    Multiblock,
}

impl Launch {
    /// Launches this increment of `a_d` by `b`.
    pub fn increment(self, gpu: &Gpu, a_d: &mut DeviceBuffer<i32>, b: i32) -> Result<()> {
        match self {
            Launch::OneBlock => increment_one_block(gpu, a_d, b),
            Launch::Multiblock => increment(gpu, a_d, b, THREADS_PER_BLOCK),
        }
    }
}

/// ch2-timing's own option.
#[derive(clap::Args, Clone, Debug)]
pub struct Ch2TimingOptions {
    /// one-block (the book's increment<<<1,n>>>) or multiblock (ceil(n/256) blocks of 256 threads) [default: one-block]
    #[arg(
        long,
        value_name = "L",
        value_enum,
        default_value_t = Launch::OneBlock,
        hide_default_value = true,
        hide_possible_values = true
    )]
    pub launch: Launch,
}

/// The array length: `--size`, else the book's 256 for one block, else 2^24 (2^20 on the
/// simulator).
fn elements(gpu: &Gpu, run: &Run<Ch2TimingOptions>) -> usize {
    match run.args.launch {
        Launch::Multiblock if !run.size_given => gpu.pick(MULTIBLOCK_N, SIMULATOR_SIZE),
        _ => run.size,
    }
}

/// ch2-timing.
pub struct Ch2Timing;

impl Example for Ch2Timing {
    const ID: &'static str = "ch2-timing";
    const DESCRIPTION: &'static str =
        "times increment<<<1,n>>> with a host timer (synchronized) and with CUDA events (book 2.1)";
    const SIZE: Option<Size> = Some(Size::new(
        "array elements (ints): one block of as many threads (at most 1024), or with --launch multiblock any number [default with --launch multiblock: 2^24 on a GPU, 2^20 on the simulator]",
        N,
        N,
    ));
    const REPS: bool = true;
    type Args = Ch2TimingOptions;

    /// The run's peak: the array on the device; on the host the CPU's array and the download at
    /// the end; `None` on overflow.
    fn memory(run: &Run<Ch2TimingOptions>, gpu: &Gpu) -> Option<Footprint> {
        let n = elements(gpu, run);
        Footprint::NONE.device::<i32>(1, n)?.host::<i32>(2, n)
    }

    /// Times one increment both ways, `reps` times, prints each pair, and the book's line with the
    /// events' time of the last.
    fn run(gpu: &Gpu, run: &Run<Ch2TimingOptions>) -> Result<Outcome> {
        let launch = run.args.launch;
        let n = elements(gpu, run);
        let max = (gpu.properties().max_threads_per_block as usize).min(MAX_THREADS_PER_BLOCK);
        if launch == Launch::OneBlock && n > max {
            return Err(Error::InvalidArgument(format!(
                "--size {n}: the book's increment<<<1,n>>> runs one block, of at most {max} threads here; --launch multiblock times any size"
            )));
        }
        let b = 3;
        let mut a = try_vec(n, 1)?;
        let mut a_d = gpu.upload(&a)?;
        // A first launch loads and JIT-links the kernel, which would otherwise land in the first
        // sample (the book's advice: a no-op launch before the timed region).
        launch.increment(gpu, &mut a_d, b)?;
        reference::ch1::increment::increment(&mut a, b);
        let (blocks, threads) = match launch {
            Launch::OneBlock => (1, n),
            Launch::Multiblock => (n.div_ceil(THREADS_PER_BLOCK as usize), THREADS_PER_BLOCK as usize),
        };
        println!(" increment<<<{blocks}, {threads}>>>, {n} elements");
        println!(
            "   {:>4}  {:>18}  {:>18}",
            "rep",
            "host timer (ms)",
            format!("{} (ms)", gpu.timing_label())
        );
        let mut last_event_ms = 0.0;
        for rep in 0..run.reps {
            // Host timer: synchronise before starting and before reading, or it times the launch only.
            gpu.synchronize()?;
            let t1 = Instant::now();
            launch.increment(gpu, &mut a_d, b)?;
            gpu.synchronize()?;
            let host_ms = t1.elapsed().as_secs_f64() * 1e3;

            let timer = gpu.timer()?;
            launch.increment(gpu, &mut a_d, b)?;
            last_event_ms = timer.stop_ms()?;
            reference::ch1::increment::increment(&mut a, 2 * b);
            println!("   {rep:>4}  {host_ms:>18.4}  {last_event_ms:>18.4}");
        }
        let check = Check::compare("a", &gpu.download(&a_d)?, &a, Tolerance::EXACT);
        match check.passed() {
            true => println!(" Time for kernel execution (ms): {last_event_ms:.6}"),
            false => println!(" **** Program Failed ****"),
        }
        Ok(Outcome { checks: vec![check] })
    }
}
