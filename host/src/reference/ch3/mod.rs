//! Book chapter 3 references.
pub mod async_overlap;
pub mod batching;
