//! Book chapter 3: optimization.
pub mod ilp_copy;
pub mod offset_stride;
pub mod stride_texture;
pub mod texture_average;
pub mod tlp_copy;
