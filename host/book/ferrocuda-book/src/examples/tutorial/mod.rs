//! Decyk's "Tutorial on Programming GPUs" (UCLA).
pub mod sum_reduction;
pub mod vector_copy;
