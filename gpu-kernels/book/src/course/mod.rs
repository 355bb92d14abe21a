//! The IT4I GPU course's kernels.
pub mod histogram;
pub mod matmul_tiled;
pub mod reduction;
pub mod vector_add;
pub mod color_convert;
pub mod convolution;
pub mod convolution_fast;
pub mod image_blur;
pub mod image_filter;
pub mod matrix_sum;
pub mod picture_kernel;
