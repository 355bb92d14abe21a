//! CPU references of the book's chapter 6.
pub mod deriv;
pub mod laplace2d;
