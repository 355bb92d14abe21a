//! Book chapter 1: first kernels, execution configuration, precision, errors.
pub mod increment;
pub mod increment_2d;
pub mod increment_multiblock;
pub mod precision;
pub mod separate_compilation;
