//! The IT4I GPU course's kernels.
pub mod vector_add;
