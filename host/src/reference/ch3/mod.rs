//! Book chapter 3 references.
pub mod constant_increment;
pub mod divergence;
pub mod intrinsics;
pub mod localmem;
