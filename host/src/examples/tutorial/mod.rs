//! Decyk's "Tutorial on Programming GPUs" (UCLA).
pub mod vector_copy;
