//! Book chapter 3 references.
pub mod async_overlap;
pub mod bank_conflicts;
pub mod batching;
pub mod constant_increment;
pub mod cuf;
pub mod divergence;
pub mod intrinsics;
pub mod localmem;
pub mod offset_stride;
pub mod shared_reverse;
pub mod stride_texture;
pub mod texture_average;
pub mod transpose;
