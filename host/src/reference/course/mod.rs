//! IT4I course references.
pub mod vector_add;
