//! Book chapter 5: Monte Carlo method.
pub mod sum_accuracy;
