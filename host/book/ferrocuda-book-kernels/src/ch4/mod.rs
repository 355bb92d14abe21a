//! Book chapter 4: several GPUs (the transpose kernel of §4.1.3 is the library's
//! `gpu_kernels::transpose::cuda_transpose`).
pub mod minimal;
