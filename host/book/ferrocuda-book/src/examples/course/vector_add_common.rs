//! What the course's vector-add programs share (`course-vector-add` and its managed, multi-GPU
//! and streams versions): the course's sizes and the launch of its kernel.
use book_kernels::course::vector_add::{VecAddArgs, VecAddKernel};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result, same_len};

/// The course's `n`.
pub const N: usize = 10_000_000;
/// The course's block size.
pub const THREADS_PER_BLOCK: u32 = 256;

/// `c_d = a_d + b_d`.
pub fn vector_add(
    gpu: &Gpu,
    a_d: &DeviceBuffer<f32>,
    b_d: &DeviceBuffer<f32>,
    c_d: &mut DeviceBuffer<f32>,
) -> Result<()> {
    let n = same_len("vector add", &[a_d.len(), b_d.len(), c_d.len()])?;
    let shape = LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?;
    crate::kernels(gpu)?.launch(
        VecAddKernel,
        shape,
        VecAddArgs {
            a: a_d.view(),
            b: b_d.view(),
            c: c_d.view_mut(),
        },
    )
}
