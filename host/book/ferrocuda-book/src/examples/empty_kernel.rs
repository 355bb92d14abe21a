//! The time of an empty kernel, the floor under every GPU time Decyk's tutorial prints (its first
//! line, "empty kernel time"): shared by the tutorial's examples and `ch3-transpose`'s tutorial
//! lines.
use book_kernels::tutorial::vector_copy::{EmptyArgs, EmptyKernel};
use ferrocuda::gpu::{Gpu, LaunchShape, Result};
use ferrocuda::measure::time_reps;

/// Prints the tutorial's first line: the time of an empty kernel of one thread (median of
/// `reps`), in seconds.
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
