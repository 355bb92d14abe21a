//! Decyk's "Tutorial on Programming GPUs" (UCLA).
pub mod sum_reduction;
pub mod vector_copy;

use crate::gpu::{Gpu, LaunchShape, Result};
use crate::measure::time_reps;
use gpu_kernels::kernels::tutorial::vector_copy::{EmptyArgs, EmptyKernel};

/// The tutorial's first line: the time of an empty kernel (median of `reps`), in seconds, the
/// floor under every GPU time it prints.
pub fn print_empty_kernel_time(gpu: &Gpu, reps: usize) -> Result<()> {
    let empty = time_reps(gpu, reps, || {
        gpu.launch(
            EmptyKernel,
            LaunchShape::new((1, 1, 1), (1, 1, 1)),
            EmptyArgs::default(),
        )
    })?;
    println!(
        "GPU empty kernel time= {:.7E} ({})",
        empty.median_ms * 1e-3,
        gpu.timing_label()
    );
    Ok(())
}
