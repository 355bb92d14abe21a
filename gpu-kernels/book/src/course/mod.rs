//! The IT4I GPU course's kernels.
pub mod heat;
pub mod hello_world;
pub mod histogram;
pub mod matmul_tiled;
pub mod reduction;
pub mod vector_add;
