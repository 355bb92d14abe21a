//! Book chapter 6: finite difference methods.
pub mod deriv;
pub mod deriv_launch;
pub mod laplace2d;
pub mod laplace2d_solver;
