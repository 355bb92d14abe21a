//! Appendix C, calling CUDA C from the host language: a vendor library on device data
//! (`appc-sgemm`) and a kernel compiled by nvcc (`appc-fcallingc`), here from Rust.
pub mod fcallingc;
pub mod sgemm;
