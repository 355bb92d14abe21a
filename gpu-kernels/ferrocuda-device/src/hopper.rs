//! Hopper's matrix engine (sm_90a): warpgroup matrix multiply-accumulate (`wgmma.mma_async`,
//! PTX ISA §9.7.15) on operands in shared memory, named by 64-bit matrix descriptors.
//!
//! - [`MatrixTile`]: a shared tile of `ROWS x K` elements in the layout `wgmma` reads (K-major,
//!   swizzled by the width of a row), with its [`MatrixDescriptor`]s, element access, and the
//!   offset of each element for code (or a bulk tensor copy) that fills it.
//! - [`MBarrier`]: a barrier in shared memory that counts arrivals (and bulk-copy bytes), waited
//!   on by phase: how a producer warp hands tiles to consumer warps without a block barrier.
//! - [`TensorMap`]: the bulk tensor copy engine (TMA) that fills a [`MatrixTile`] from a 2-D
//!   matrix in global memory, one thread starting the copy of a whole box, its bytes counted on
//!   an [`MBarrier`]; with [`fence_proxy_async`] and the register moves between warpgroups
//!   ([`decrease_registers`], [`increase_registers`], `setmaxnreg`).
//! - [`wgmma`]: the instructions for BF16, FP16 (k16) and TF32 (k8) with f32 accumulation,
//!   N = 64, 128 and 256, on an [`Accumulator`] each thread of the warpgroup holds; the fence,
//!   commit and wait that order them.
//!
//! The rule for `unsafe` here: the instructions are warpgroup-collective and asynchronous, so
//! their contract (every thread of the warpgroup, converged; operands unchanged until the wait)
//! is the caller's, and each is an `unsafe fn` that says it. Tiles, descriptors and accumulators
//! are safe: a descriptor only names shared bytes, the tile's accessors check their bounds.
//!
//! On the simulator each `wgmma` computes its products at once from the shared bytes the
//! descriptors name (read through the race detector), summed exactly in f64 and rounded once,
//! as `mma::` does: the products of BF16, FP16 and TF32 values are exact, so a GPU result differs
//! from it by the accumulation order only, a few units in the last place of the sum of
//! |products|.
mod layout;
mod mbarrier;
mod tensor_map;
pub mod wgmma;

#[cfg(not(target_arch = "nvptx64"))]
pub(crate) use layout::swizzled as layout_swizzled;
pub use layout::{MatrixDescriptor, MatrixTile, Swizzle, descriptor_address};
pub use mbarrier::{MBarrier, MBarriers};
pub use tensor_map::{SimulatorMap, TensorMap, decrease_registers, fence_proxy_async, increase_registers};
pub use wgmma::Accumulator;
