//! Collectives built on the device library, layered like CUB: `thread` (one thread, sequential),
//! [`warp`] (32 lanes, shuffles), and later `block` (shared memory plus warp).
pub mod warp;
