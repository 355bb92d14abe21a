//! Book chapter 3: optimization.
pub mod async_overlap;
pub mod bandwidth_test;
pub mod bank_conflicts;
pub mod batching;
pub mod shared_reverse;
pub mod transpose;
