//! Decyk's "Tutorial on Programming GPUs" (UCLA) kernels.
pub mod sum_reduction;
pub mod vector_copy;
