//! Appendix C, calling CUDA C from the host language: the Rust twins of its C kernels.
pub mod fcallingc;
