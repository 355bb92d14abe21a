//! Book chapter 5 references.
pub mod sum_accuracy;
