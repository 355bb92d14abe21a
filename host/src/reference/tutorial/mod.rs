//! Tutorial references.
pub mod vector_copy;
