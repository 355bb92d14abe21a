//! Book chapter 3: optimization.
pub mod async_overlap;
pub mod bank_conflicts;
pub mod shared_reverse;
pub mod transpose;
