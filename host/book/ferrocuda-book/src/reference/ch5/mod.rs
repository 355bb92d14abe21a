//! Book chapter 5 references.
pub mod bs_european_mc;
pub mod pi;
pub mod sum_accuracy;
