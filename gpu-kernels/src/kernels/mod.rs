//! The examples' kernels: the example id `ch1-increment-2d` lives in `ch1/increment_2d.rs`.
//!
//! Each file holds its kernels, their `#[repr(C)]` `*Args` structs and the launch handles the
//! `#[kernel]` attribute makes; the host driver of the same id imports them.
pub mod broken;
pub mod ch1;
pub mod ch2;
pub mod ch3;
pub mod ch5;
pub mod course;
pub mod probe;
pub mod random;
pub mod reduce;
pub mod stream;
pub mod thesis;
pub mod tutorial;
