//! Book chapter 6 references.
pub mod laplace2d;
