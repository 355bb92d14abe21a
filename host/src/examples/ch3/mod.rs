//! Book chapter 3: optimization.
//! Book chapter 3 (Ruetsch & Fatica, *CUDA Fortran for Scientists and Engineers*): optimization.
pub mod async_overlap;
pub mod bandwidth_test;
pub mod bank_conflicts;
pub mod batching;
pub mod ilp_copy;
pub mod offset_stride;
pub mod shared_reverse;
pub mod stride_texture;
pub mod texture_average;
pub mod tlp_copy;
pub mod transpose;
