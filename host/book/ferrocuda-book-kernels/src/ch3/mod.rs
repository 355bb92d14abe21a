//! Book chapter 3: optimization.
pub mod async_overlap;
pub mod bank_conflicts;
pub mod cache_config;
pub mod constant_increment;
pub mod cuf_increment;
pub mod cuf_increment_2d;
pub mod divergence;
pub mod ilp_copy;
pub mod intrinsics;
pub mod localmem;
pub mod offset_stride;
pub mod shared_reverse;
pub mod stride_texture;
pub mod texture_average;
pub mod tlp_copy;
pub mod transpose;
