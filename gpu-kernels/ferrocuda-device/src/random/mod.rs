//! Random numbers on the device (cuRAND's device API): counter-based generators whose streams the
//! CPU reproduces bit for bit, since the same source compiles for both.
//!
//! - [`philox`]: Philox4x32-10 (Random123, cuRAND's `PHILOX4_32_10`), and its words as uniforms;
//! - [`stream`]: the uniform and normal (Box-Muller) streams of a `(seed, offset)`, and their
//!   layout, which the kernels of `kernels::random` and the CPU reference share (Box-Muller's
//!   `ln`, `sqrt` and `sincospi` come from [`crate::elementary`]).
pub mod philox;
pub mod stream;

pub use stream::{PhiloxReal, blocks_for};
