//! IT4I course references.
pub mod histogram;
pub mod reduction;
pub mod vector_add;
