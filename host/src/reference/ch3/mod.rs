//! Book chapter 3 references.
pub mod offset_stride;
pub mod stride_texture;
pub mod texture_average;
