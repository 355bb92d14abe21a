//! The one home of target-specific code: special registers, barriers and inline PTX.
//!
//! Each function is a thin, `#[inline(always)]` wrapper of one PTX instruction; the device
//! library above gives them CUDA C's names and safe signatures.
mod nvptx;
pub use nvptx::*;
