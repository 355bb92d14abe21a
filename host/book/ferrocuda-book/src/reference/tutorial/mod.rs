//! Tutorial references.
pub mod sum_reduction;
pub mod vector_copy;
