//! ferrocuda's own kernels: the PTX the host library embeds and launches for its calls
//! (`ferrocuda::blas`, `reduce`, `scan`, `select`, `sort`, `histogram`, `random`, `sor`, `fft`, `transpose`). The
//! probes that test the device library one primitive at a time are a test-only crate of their
//! own (`ferrocuda-probes`).
//!
//! A kernel crate like any user's: `no_std`, written against `ferrocuda-device`, compiled to
//! PTX by `ferrocuda-builder` from the host library's build script. Each file holds its kernels,
//! their `#[repr(C)]` `*Args` structs and the launch handles `#[kernel]` makes.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]

pub mod fft;
pub mod gemm;
pub mod histogram;
pub mod random;
pub mod reduce;
pub mod scan;
pub mod select;
pub mod sgemm;
pub mod sor;
pub mod sort;
pub mod transpose;
