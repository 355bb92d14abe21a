//! The IT4I GPU course's kernels.
pub mod histogram;
pub mod reduction;
pub mod vector_add;
