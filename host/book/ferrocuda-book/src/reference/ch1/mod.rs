//! Book chapter 1 references.
pub mod increment;
pub mod precision;
