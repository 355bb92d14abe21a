//! Book chapter 3 references.
pub mod async_overlap;
pub mod bank_conflicts;
pub mod batching;
pub mod shared_reverse;
pub mod transpose;
