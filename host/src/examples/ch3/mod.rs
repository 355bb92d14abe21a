//! Book chapter 3: optimization.
pub mod async_overlap;
pub mod bandwidth_test;
pub mod batching;
