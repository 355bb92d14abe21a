//! What the chapter's MPI examples share (book §4.2): the array they allocate, and the printing
//! and counting helpers.
use ferrocuda::gpu::{DeviceBuffer, Gpu, Result};
use ferrocuda::mpi::Mpi;

/// The array the device examples allocate, the book's `n = 1024*1024` floats (4 MiB)
/// (`ch4-mpi-devices`, `ch4-mpi-assign-device`).
pub const ARRAY_N: usize = 1024 * 1024;

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
