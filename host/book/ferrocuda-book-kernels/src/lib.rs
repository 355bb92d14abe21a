//! The kernels of the book and its companion sources, one module per example id: the example
//! `ch1-increment-2d` lives in `ch1/increment_2d.rs`.
//!
//! A kernel crate built exactly as a user's is: `no_std`, written against `ferrocuda-device`,
//! compiled to PTX by `ferrocuda-builder` from the book's build script, and loaded at run time
//! through `Gpu::load`. Each file holds its kernels, their `#[repr(C)]` `*Args` structs and the
//! launch handles `#[kernel]` makes; the book's example of the same id imports them.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]

pub mod appc;
pub mod ch1;
pub mod ch2;
pub mod ch3;
pub mod ch4;
pub mod ch5;
pub mod ch6;
pub mod ch7;
pub mod course;
pub mod racecheck;
pub mod stream;
pub mod tutorial;
