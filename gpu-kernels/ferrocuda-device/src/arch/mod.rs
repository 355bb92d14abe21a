//! The one home of target-specific code: special registers, barriers and inline PTX on the GPU
//! (`nvptx.rs`), and their CPU-simulator counterparts on the host (`host.rs`), with one API.
//!
//! Each function is a thin, `#[inline(always)]` wrapper of one PTX instruction; the device
//! library above gives them CUDA C's names and safe signatures.
#[cfg(target_arch = "nvptx64")]
mod nvptx;
#[cfg(target_arch = "nvptx64")]
pub use nvptx::*;

#[cfg(not(target_arch = "nvptx64"))]
mod host;
#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;
