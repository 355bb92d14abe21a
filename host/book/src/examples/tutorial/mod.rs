//! Decyk's "Tutorial on Programming GPUs" (UCLA).
pub mod sum_reduction;
pub mod vector_copy;

use book_kernels::tutorial::vector_copy::{EmptyArgs, EmptyKernel};
use ferrocuda::gpu::{Gpu, LaunchShape, Result};
use ferrocuda::measure::time_reps;

/// The tutorial's first line: the time of an empty kernel (median of `reps`), in seconds, the
/// floor under every GPU time it prints.
pub fn print_empty_kernel_time(gpu: &Gpu, reps: usize) -> Result<()> {
    let empty = time_reps(gpu, reps, || {
        crate::kernels(gpu)?.launch(
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
