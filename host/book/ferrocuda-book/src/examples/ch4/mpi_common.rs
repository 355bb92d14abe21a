//! What the chapter's MPI examples share (book §4.2): running one as a plain example in this
//! process, the refusal of a build without MPI, and the printing and counting helpers.
#[cfg(feature = "mpi")]
use crate::example::{Options, Outcome};
#[cfg(feature = "mpi")]
use ferrocuda::gpu::{Gpu, Result};
#[cfg(feature = "mpi")]
use ferrocuda::mpi::{Mpi, Placement};

/// The array the device examples allocate, the book's `n = 1024*1024` floats (4 MiB)
/// (`ch4-mpi-devices`, `ch4-mpi-assign-device`).
pub const ARRAY_N: usize = 1024 * 1024;

/// One rank's part of an MPI example: MPI started, its device opened where MPI placed it.
#[cfg(feature = "mpi")]
pub type RankRun = fn(&Mpi, &Gpu, &Placement, &Options) -> Result<Outcome>;

/// An MPI example called as a plain example (its `run`, outside the runner): MPI
/// started in this process (one rank unless a launcher started it), its rank function `run` on
/// `gpu`.
#[cfg(feature = "mpi")]
pub fn in_process(run: RankRun, gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let mpi = Mpi::init()?;
    let result = (|| {
        let node = mpi.node()?;
        let placement = Placement {
            rank: mpi.rank(),
            node,
            device: (!gpu.is_simulator()).then(|| gpu.properties().ordinal),
            devices_on_node: if gpu.is_simulator() {
                0
            } else {
                ferrocuda::gpu::device_count()?
            },
        };
        run(&mpi, gpu, &placement, options)
    })();
    mpi.finish(result)
}

/// This rank's compute mode, as the book prints it (`cudaDeviceProp%computeMode`: 0 default, 1
/// exclusive thread, 2 prohibited, 3 exclusive process), or "simulator".
#[cfg(feature = "mpi")]
pub fn compute_mode_label(gpu: &Gpu) -> Result<String> {
    Ok(match ferrocuda::mpi::compute_mode(gpu)? {
        Some(mode) => mode.to_string(),
        None => "simulator".into(),
    })
}

/// The device as the book prints it: its ordinal, or "the CPU simulator".
pub fn device_label(device: Option<usize>) -> String {
    device.map_or_else(|| "the CPU simulator".into(), |d| d.to_string())
}

/// Prints every rank's `text` on rank 0, in rank order (a collective: every rank calls it).
#[cfg(feature = "mpi")]
pub fn print_on_root(mpi: &Mpi, text: &str) {
    if let Some(lines) = mpi.gather_text(text) {
        lines
            .iter()
            .filter(|l| !l.is_empty())
            .for_each(|line| println!("{line}"));
    }
}

/// How many arrays of `array_bytes` the device's free memory has lost since `free_before`
/// (the book's `(freeB - freeA)/n/4`; 0 when it has gained).
#[cfg(feature = "mpi")]
pub fn arrays_seen(gpu: &Gpu, free_before: usize, array_bytes: usize) -> Result<usize> {
    let free_after = gpu.memory_info()?.0;
    Ok(free_before.saturating_sub(free_after) / array_bytes.max(1))
}

/// Rank 0 says why one array counts as several, when it does: CUDA's stream-ordered pool (which
/// the library allocates from) maps device memory in steps larger than the book's 4 MiB array.
#[cfg(feature = "mpi")]
pub fn explain_reservation_step(mpi: &ferrocuda::mpi::Mpi, seen_for_one_array: usize) {
    if mpi.rank() == 0 && seen_for_one_array > 1 {
        println!(
            "(free memory moves in the allocator's steps: CUDA's stream-ordered pool mapped {} MiB for one 4 MiB array, so each array counts as {seen_for_one_array}; the book's point is whose counts grow together)",
            4 * seen_for_one_array
        );
    }
}
