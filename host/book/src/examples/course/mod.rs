//! The IT4I GPU course (Říha, Kadlubiak, Homola).
pub mod histogram;
pub mod matmul_tiled;
pub mod reduction;
pub mod vector_add;
pub mod color_convert;
pub mod convolution;
pub mod image_blur;
pub mod matrix_sum;
pub mod picture_kernel;
