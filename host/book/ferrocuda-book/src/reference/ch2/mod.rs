//! Book chapter 2 references.
pub mod limiting_factor;
