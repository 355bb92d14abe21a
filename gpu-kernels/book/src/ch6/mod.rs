//! The book's chapter 6, finite differences.
pub mod laplace2d;
