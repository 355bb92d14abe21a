//! Book chapter 4's `ch4-transpose-p2p` (§4.1.3): the staged transpose over 2 and 4 logical
//! devices at 2048^2 (the book's size) and 16384^2 (1 GiB, far beyond L2), sync and async,
//! beside the one-GPU `cuda_transpose` of the same matrix and a device-to-device memcpy of the
//! same bytes. GB/s = `2 * nx * ny * 4 / time` (the book's), wall clock around synchronised
//! devices for the staged runs, events for the one-GPU rows. On one physical GPU the logical
//! devices share it, so the staged rows measure the stages' cost, not peer-to-peer links.
use super::Settings;
use crate::examples::ch4::gb_per_s;
use crate::examples::ch4::transpose_p2p::{Mode, P2pTranspose};
use ferrocuda::gpu::{BackendChoice, Error, Gpu, Result};
use ferrocuda::measure::{Stats, time_reps};
use ferrocuda::transpose::{self, SlabLayout, TransposeTile};

/// The sides measured: the book's 2048 and a 1 GiB matrix.
pub const SIDES: [usize; 2] = [2048, 16384];
/// The logical device counts measured.
pub const DEVICE_COUNTS: [usize; 2] = [2, 4];

/// Prints the chapter-4 rows.
pub fn run(gpu: &Gpu, settings: &Settings) -> Result<()> {
    println!();
    println!(
        "ch4-transpose-p2p, median of {} runs; staged rows: wall clock around synchronised devices",
        settings.reps
    );
    println!(
        "{:<7} {:>8} {:>6} {:>11} {:>15} {:>12} {:>12}",
        "side", "devices", "mode", "GB/s", "one-GPU GB/s", "memcpy GB/s", "/one-GPU"
    );
    for side in SIDES {
        // Distinct values, exact in f32 (a wrong tile shows); the bench checks each result.
        let input: Vec<f32> = (0..side * side).map(|i| (i % (1 << 24)) as f32).collect();
        let gold = transpose::cpu(&input, side, side)?;
        let (one_gpu, memcpy) = one_gpu_rows(gpu, &input, side, &gold, settings.reps)?;
        for devices in DEVICE_COUNTS {
            let gpus = Gpu::open_logical(BackendChoice::Cuda, devices)?;
            let layout = SlabLayout::new(side, side, devices)?;
            let mut plan = P2pTranspose::new(&gpus, layout, &input)?;
            for mode in [Mode::Sync, Mode::Async] {
                plan.reset_output()?;
                plan.timed(mode)?;
                let mut samples = (0..settings.reps.max(1))
                    .map(|_| plan.timed(mode).map(|s| s * 1e3))
                    .collect::<Result<Vec<_>>>()?;
                if plan.gather()? != gold {
                    return Err(Error::Io(format!(
                        "the {side}^2 transpose over {devices} logical devices ({mode:?}) differs from the CPU's"
                    )));
                }
                let rate = gb_per_s(side, side, Stats::of(&mut samples).median_ms / 1e3);
                println!(
                    "{side:<7} {devices:>8} {:>6} {rate:>11.1} {one_gpu:>15.1} {memcpy:>12.1} {:>12.3}",
                    format!("{mode:?}").to_lowercase(),
                    rate / one_gpu
                );
            }
        }
    }
    println!(
        "(the one-GPU rows: the same kernel on the whole matrix, no copies; memcpy: the same bytes read and written)"
    );
    Ok(())
}

/// GB/s of the one-GPU transpose of `input` (checked against `gold`) and of a memcpy of it.
fn one_gpu_rows(gpu: &Gpu, input: &[f32], side: usize, gold: &[f32], reps: usize) -> Result<(f64, f64)> {
    let idata = gpu.upload(input)?;
    let mut odata = gpu.zeros::<f32>(input.len())?;
    let tile = TransposeTile::whole(side, side);
    let stats = time_reps(gpu, reps, || {
        transpose::cuda_transpose(gpu, None, &mut odata, &idata, tile)
    })?;
    if gpu.download(&odata)? != gold {
        return Err(Error::Io(format!(
            "the one-GPU {side}^2 transpose differs from the CPU's"
        )));
    }
    let memcpy = ferrocuda::measure::memcpy_gb_per_s(gpu, std::mem::size_of_val(input), reps)?;
    Ok((gb_per_s(side, side, stats.median_ms / 1e3), memcpy))
}
