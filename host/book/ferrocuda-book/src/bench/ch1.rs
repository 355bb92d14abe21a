//! The multi-block increment (in place: a read and a write per element), 256 threads per block.
//! Being in place, its twin's output cannot be compared with a second run's; the tests check it.
use super::{Measured, Row, Settings, measure};
use crate::examples::ch1::increment_launch::THREADS_PER_BLOCK;
use book_kernels::ch1::increment_multiblock::{IncrementArgs, IncrementMultiblock};
use ferrocuda::gpu::{Gpu, KernelView, LaunchShape, LoadedKernels, Result};

/// Measures `increment_multiblock`.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let n = settings.elements::<i32>()?;
    let mut a_d = gpu.zeros::<i32>(n)?;
    let shape = LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?;
    let args = IncrementArgs {
        a: a_d.view_mut(),
        b: 1,
    };
    let name = "increment_multiblock".into();
    let row = Row::kernel(gpu, name, shape, 2 * n * size_of::<i32>(), IncrementMultiblock, args);
    measure(gpu, row, twin, settings.reps).map(|m| vec![m])
}
