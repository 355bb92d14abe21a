//! Red-black SOR for the 2-D Laplace equation with Dirichlet boundaries on one GPU or many
//! (the thesis "Modeling Communication on Multi-GPU Systems", Spampinato 2009).
//!
//! - [`domain`]: the problems (the thesis's boundary-100 grid, a harmonic function) and omega.
//! - [`state`]: one grid or partition on one GPU: its layout, half-sweeps, residual.
//! - [`single`]: the one-GPU solver: a fixed iteration count or a residual tolerance.
pub mod cpu;
pub mod domain;
pub mod exchange;
pub mod multi;
pub mod partition;
pub mod single;
pub mod state;

pub use domain::{Omega, Problem};
pub use state::{DeviceGrid, Layout, SorReal, Variant};
