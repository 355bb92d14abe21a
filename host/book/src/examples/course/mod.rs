//! The IT4I GPU course (Říha, Kadlubiak, Homola).
pub mod heat;
pub mod hello_world;
pub mod histogram;
pub mod matmul_tiled;
pub mod reduction;
pub mod vector_add;
pub mod vector_add_managed;
pub mod vector_add_streams;
