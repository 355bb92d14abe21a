//! The IT4I GPU course (Říha, Kadlubiak, Homola).
pub mod color_convert;
pub mod convolution;
pub mod heat;
pub mod hello_world;
pub mod histogram;
pub mod image_blur;
pub mod matmul_inputs;
pub mod matmul_tensor;
pub mod matmul_tiled;
pub mod matrix_sum;
pub mod picture_kernel;
pub mod reduction;
pub mod vector_add;
pub mod vector_add_common;
pub mod vector_add_managed;
pub mod vector_add_multi;
pub mod vector_add_streams;
