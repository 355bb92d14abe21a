//! The examples of the classic CUDA teaching material, one module per example id
//! (`ch1-increment-2d` lives in `ch1/increment_2d.rs`), each a type implementing
//! [`crate::example::Example`] whose run launches the GPU version and its CPU reference, prints
//! the source's output shape, and returns its checks. Code several examples share is a module
//! named for it (`ch3::copy`, `course::splitmix`); an example never imports another example.
pub mod appc;
pub mod ch1;
pub mod ch2;
pub mod ch3;
pub mod ch4;
pub mod ch5;
pub mod ch6;
pub mod ch7;
pub mod convergence;
pub mod course;
pub mod empty_kernel;
pub mod logical_devices;
pub mod plot_option;
pub mod racecheck;
pub mod stream;
pub mod thesis;
pub mod tutorial;
