//! The book's chapter 6, finite difference methods.
pub mod deriv;
pub mod deriv_nonuniform;
pub mod laplace2d;
