//! ch3-cache-config: the L1/shared-memory split (book §3.3.1, `cudaDeviceSetCacheConfig` and
//! `cudaFuncSetCacheConfig`), set and read back, and on compute capability 7.0 and newer the
//! per-kernel shared-memory carveout, set to 0, 50 and 100 percent, read back, and timed on a
//! copy staged through 32 KiB of shared memory per block, whose blocks per multiprocessor the
//! carveout bounds.
use crate::example::{Example, NoOptions, Outcome, Run, SIMULATOR_SIZE, Size};
use book_kernels::ch3::cache_config::{CHUNK, StagedCopy, StagedCopyArgs};
use ferrocuda::device::shared::Tile1d;
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{CARVEOUT_DEFAULT, CachePreference, DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

/// Elements on a GPU: 128 MiB per array, far beyond the L2.
pub const N: usize = 1 << 25;
/// Threads per block of the staged copy: each stages `CHUNK / 256 = 32` elements.
pub const THREADS_PER_BLOCK: u32 = 256;
/// The carveouts timed, percent of the largest shared-memory configuration.
pub const CARVEOUTS: [i32; 3] = [0, 50, 100];

/// `output = input` through shared memory, `CHUNK` elements per block.
pub fn staged_copy(gpu: &Gpu, input: &DeviceBuffer<f32>, output: &mut DeviceBuffer<f32>) -> Result<()> {
    let blocks = input.len().div_ceil(CHUNK);
    let shape = LaunchShape::cover_1d(blocks * THREADS_PER_BLOCK as usize, THREADS_PER_BLOCK)?
        .with_shared_bytes(Tile1d::<f32>::bytes(CHUNK) as u32);
    let args = StagedCopyArgs {
        input: input.view(),
        output: output.view_mut(),
    };
    crate::kernels(gpu)?.launch(StagedCopy, shape, args)
}

/// Sets each context preference and reads it back.
fn context_preferences(gpu: &Gpu) -> Result<Check> {
    println!(" context preference, cuCtxSetCacheConfig then cuCtxGetCacheConfig:");
    let mut all_read_back = true;
    for preference in CachePreference::ALL {
        gpu.set_cache_config(preference)?;
        let read = gpu.cache_config()?;
        println!("   set {:<26} read back {}", preference.name(), read.name());
        all_read_back &= read == preference;
    }
    gpu.set_cache_config(CachePreference::None)?;
    Ok(Check::condition("context cache config read back", all_read_back))
}

/// Sets, reads back and times each carveout; the kernel's preference and carveout go back to
/// the defaults afterwards.
fn carveouts(gpu: &Gpu, reps: usize, n: usize) -> Result<Vec<Check>> {
    let kernels = crate::kernels(gpu)?;
    for preference in [CachePreference::Shared, CachePreference::None] {
        kernels.set_cache_config(StagedCopy, preference)?;
    }
    println!(" staged_copy: cuFuncSetCacheConfig accepted each preference (the driver reports none back)");
    let input = try_from_fn(n, |i| (i % 65_521) as f32)?;
    let input_d = gpu.upload(&input)?;
    let mut output_d = gpu.zeros::<f32>(n)?;
    println!(
        " carveout (PREFERRED_SHARED_MEMORY_CARVEOUT) of staged_copy, {} KiB shared per block of {THREADS_PER_BLOCK}, {n} elements, median of {} runs ({}):",
        Tile1d::<f32>::bytes(CHUNK) / 1024,
        reps,
        gpu.timing_label()
    );
    println!(
        "   {:>9} {:>10} {:>12} {:>10}",
        "carveout", "read back", "time (ms)", "GB/s"
    );
    let mut checks = Vec::new();
    let mut rates = Vec::new();
    for percent in CARVEOUTS {
        kernels.set_shared_carveout(StagedCopy, percent)?;
        let read = kernels.shared_carveout(StagedCopy)?;
        // Poisoned, so that the previous carveout's copy cannot pass for this one's.
        gpu.upload_into(&try_vec(n, f32::NAN)?, &mut output_d)?;
        let stats = time_reps(gpu, reps, || staged_copy(gpu, &input_d, &mut output_d))?;
        let rate = gb_per_s(2 * n * size_of::<f32>(), stats.median_ms);
        println!("   {percent:>8}% {read:>10} {:>12.4} {rate:>10.1}", stats.median_ms);
        rates.push(rate);
        checks.push(Check::condition(
            &format!("carveout {percent}% read back"),
            read == percent,
        ));
        checks.push(Check::compare(
            &format!("staged_copy at carveout {percent}%"),
            &gpu.download(&output_d)?,
            &input,
            Tolerance::EXACT,
        ));
    }
    kernels.set_shared_carveout(StagedCopy, CARVEOUT_DEFAULT)?;
    let (low, high) = rates
        .iter()
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), &r| (lo.min(r), hi.max(r)));
    if gpu.is_simulator() {
        println!(
            "   the simulator has no cache to split: the values are recorded and read back, the times do not depend on them"
        );
    } else if high < 1.05 * low {
        println!("   no measurable effect: the fastest is within 5% of the slowest");
    } else {
        println!("   fastest / slowest: {:.2}x", high / low);
    }
    Ok(checks)
}

/// ch3-cache-config.
pub struct Ch3CacheConfig;

impl Example for Ch3CacheConfig {
    const ID: &'static str = "ch3-cache-config";
    const DESCRIPTION: &'static str = "L1/shared split: cuCtx/cuFuncSetCacheConfig set and read back, shared-memory carveout 0/50/100% and its effect on a shared-memory copy (book 3.3.1)";
    const SIZE: Option<Size> = Some(Size::new("elements (f32) copied", N, SIMULATOR_SIZE));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak: input and output on the device; on the host the input, the NaN poison and a
    /// download; `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<f32>(2, run.size)?.host::<f32>(3, run.size)
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let p = gpu.properties();
        println!(
            " Device: {}, compute capability {}.{}, {} KiB shared memory per multiprocessor, up to {} KiB per block",
            p.name,
            p.compute_capability.0,
            p.compute_capability.1,
            p.shared_mem_per_multiprocessor_bytes / 1024,
            p.shared_mem_per_block_optin_bytes / 1024
        );
        let mut checks = vec![context_preferences(gpu)?];
        if p.compute_capability.0 >= 7 {
            checks.extend(carveouts(gpu, run.reps, n)?);
        } else {
            println!(" carveouts need compute capability 7.0 or newer: skipped");
        }
        Ok(Outcome { checks })
    }
}
