//! The book on top of ferrocuda: every example of the CUDA teaching material (the book "CUDA
//! Fortran for Scientists and Engineers" chapters 1-5, the thesis on multi-GPU red-black SOR, the
//! PGI article, Decyk's tutorial, the IT4I course, STREAM) as a type implementing
//! [`example::Example`] that runs the GPU version and its CPU reference and returns its checks;
//! the benchmarks with their CUDA C twins; the simulator-against-GPU agreement; charts.
//!
//! It is ferrocuda's first user and takes exactly a user's path: its kernels are their own crate
//! (`book-kernels`), built to PTX by `ferrocuda_builder` from `build.rs`, embedded with
//! `ferrocuda::include_kernels!`, and launched through [`kernels`] = `Gpu::load(&KERNELS)`.
//!
//! - [`example`]: what an example is (the [`example::Example`] trait: id, options as a clap
//!   derive, size, memory plan, run, generic over precision where it has two), a floor below
//!   them all; [`entry`]: how the registry sees one, whatever its options' type;
//! - [`examples`]: one module per example id (`ch1-increment-2d` lives in `ch1/increment_2d.rs`,
//!   its type is `Ch1Increment2d`), and modules named for what several of them share;
//! - [`registry`]: the table `cargo xtask run` reads, one registration per id, a floor above;
//! - [`reference`](mod@reference): their CPU references (rayon);
//! - [`bench`](mod@bench): the benchmarks of `cargo xtask bench`; [`agreement`]: `cargo xtask agree`;
//! - [`plot`]: PNG line charts for the sweeps' `--plot`;
//! - [`runner`]: `cargo xtask run <id>` as a library (also each rank's program under `mpirun`),
//!   with [`cli`], each example's command line and memory check;
//! - [`progress`]: progress lines for long CPU references and sweeps;
//! - [`defaults`]: the source's size on a GPU, a smaller one on the simulator ([`defaults::Pick`]).
pub mod agreement;
pub mod bench;
pub mod cli;
pub mod defaults;
pub mod entry;
pub mod example;
pub mod examples;
pub mod nvcc;
pub mod plot;
pub mod progress;
pub mod reference;
pub mod registry;
pub mod runner;

use ferrocuda::{Gpu, KernelSet, LoadedKernels, Result};

/// The book's kernels (`book-kernels`), one PTX module per architecture in `FERROCUDA_ARCHS`.
pub static KERNELS: KernelSet = ferrocuda::include_kernels!("book_kernels");

/// Module `c_m` of the book's twoMinusThree (§1.6.1): a kernel crate whose PTX calls a device
/// function and reads a device variable of [`D_M`], declared only; loaded through
/// `gpu.link(&[&C_M, &D_M])`.
pub static C_M: KernelSet = ferrocuda::include_kernels!("c_m");

/// Module `d_m` of the book's twoMinusThree (§1.6.1): the device function and variable `c_m`
/// uses, in a PTX module of their own.
pub static D_M: KernelSet = ferrocuda::include_kernels!("d_m");

/// Every kernel set this build embeds: the library's, the book's and the test-only probes (which
/// the agreement runs), for `xtask ptx` and the PTX tests.
pub static KERNEL_SETS: [&KernelSet; 5] = [
    &ferrocuda::ptx::LIBRARY,
    &KERNELS,
    &C_M,
    &D_M,
    &ferrocuda_testing::PROBES,
];

/// The book's kernels on `gpu`, loaded on first use.
pub fn kernels(gpu: &Gpu) -> Result<LoadedKernels<'_>> {
    gpu.load(&KERNELS)
}
