//! Red-black SOR for the 2-D Laplace equation with Dirichlet boundaries on one GPU or many
//! (the thesis "Modeling Communication on Multi-GPU Systems", Spampinato 2009).
//!
//! - [`domain`]: the problems (the thesis's boundary-100 grid, a harmonic function) and omega.
//! - [`layout`]: how a grid is stored (natural, or red and black apart) and its rectangles.
//! - [`state`]: one grid or partition on one GPU: its storage, half-sweeps, residual.
//! - [`single`]: the one-GPU solver: a fixed iteration count or a residual tolerance.
//! - [`partition`], [`exchange`], [`multi`]: the grid in strips or blocks over several GPUs, the
//!   border exchange between them (host, pinned, peer, NCCL), the multi-GPU solver.
//! - `mpi` (cargo feature `mpi`): the border exchange between MPI processes, one partition per
//!   rank, and the solver's entry for one rank (`multi::solve_mpi`).
//! - [`cpu`]: the rayon solver every GPU result is checked against, bit for bit.
//!
//! ```
//! use ferrocuda::sor::{Problem, Variant, cpu, single};
//! let gpu = ferrocuda::Gpu::from_env(0)?; // a GPU, or the simulator without one
//! let (rows, cols, omega) = (34, 34, 1.8);
//! let initial: Vec<f32> = Problem::Thesis.initial(rows, cols)?;
//! let solution = single::solve_iterations(&gpu, Variant::Split, &initial, rows, cols, omega, 50)?;
//! let mut reference = initial.clone();
//! cpu::solve(&mut reference, rows, cols, omega, 50)?;
//! assert_eq!(solution.grid, reference); // same colouring, order and roundings as the CPU
//! # Ok::<(), ferrocuda::Error>(())
//! ```
pub mod cpu;
pub mod domain;
pub mod exchange;
pub mod layout;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod multi;
pub mod partition;
pub mod single;
pub mod state;

pub use domain::{Omega, Problem};
pub use state::{DeviceGrid, Layout, SorReal, Variant};
