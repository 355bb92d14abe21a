//! Decyk's "Tutorial on Programming GPUs" (UCLA) kernels.
pub mod vector_copy;
