//! Book chapter 1 (Ruetsch & Fatica, *CUDA Fortran for Scientists and Engineers*).
pub mod devicequery;
pub mod error_handling;
pub mod increment;
pub mod increment_2d;
pub mod increment_launch;
pub mod increment_multiblock;
pub mod precision;
pub mod separate_compilation;
