//! What the chapter's MPI examples share (book §4.2): the array they allocate, and the printing
//! and counting helpers.
use ferrocuda::gpu::{DeviceBuffer, Gpu, Result};
use ferrocuda::mpi::Mpi;

/// The array the device examples allocate, the book's `n = 1024*1024` floats (4 MiB)
/// (`ch4-mpi-devices`, `ch4-mpi-assign-device`).
pub const ARRAY_N: usize = 1024 * 1024;

/// This rank's compute mode, as the book prints it (`cudaDeviceProp%computeMode`: 0 default, 1
/// exclusive thread, 2 prohibited, 3 exclusive process), or "simulator".
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
pub fn print_on_root(mpi: &Mpi, text: &str) {
    if let Some(lines) = mpi.gather_text(text) {
        lines
            .iter()
            .filter(|l| !l.is_empty())
            .for_each(|line| println!("{line}"));
    }
}

/// `gpu`'s free memory once every rank's context exists (a collective: every rank calls it).
pub fn free_memory_after_barrier(mpi: &Mpi, gpu: &Gpu) -> Result<usize> {
    mpi.barrier();
    Ok(gpu.memory_info()?.0)
}

/// One array of [`ARRAY_N`] floats on `gpu`, surely allocated: stream-ordered allocations
/// (cuMemAllocAsync) have happened after a synchronisation.
pub fn allocate_array(gpu: &Gpu) -> Result<DeviceBuffer<f32>> {
    let array = gpu.zeros::<f32>(ARRAY_N)?;
    gpu.synchronize()?;
    Ok(array)
}

/// How many arrays of [`ARRAY_N`] floats the device's free memory has lost since `free_before`
/// (the book's `(freeB - freeA)/n/4`; 0 when it has gained).
pub fn arrays_seen(gpu: &Gpu, free_before: usize) -> Result<usize> {
    let free_after = gpu.memory_info()?.0;
    Ok(free_before.saturating_sub(free_after) / (ARRAY_N * size_of::<f32>()))
}

/// Rank 0 says why one array counts as several, when it does: CUDA's stream-ordered pool (which
/// the library allocates from) maps device memory in steps larger than the book's 4 MiB array.
pub fn explain_reservation_step(mpi: &Mpi, seen_for_one_array: usize) {
    if mpi.rank() == 0 && seen_for_one_array > 1 {
        println!(
            "(free memory moves in the allocator's steps: CUDA's stream-ordered pool mapped {} MiB for one 4 MiB array, so each array counts as {seen_for_one_array}; the book's point is whose counts grow together)",
            4 * seen_for_one_array
        );
    }
}
