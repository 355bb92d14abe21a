//! The IT4I GPU course's kernels.
pub mod color_convert;
pub mod convolution;
pub mod convolution_fast;
pub mod equalise;
pub mod heat;
pub mod hello_world;
pub mod histogram;
pub mod histogram_tuned;
pub mod image_blur;
pub mod image_filter;
pub mod matmul_tensor;
pub mod matmul_tensor_pipelined;
pub mod matmul_tiled;
pub mod matrix_sum;
pub mod picture_kernel;
pub mod reduction;
pub mod vector_add;
