//! Book chapter 6: finite differences.
pub mod laplace2d;
pub mod laplace2d_solver;
