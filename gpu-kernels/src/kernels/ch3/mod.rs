//! Book chapter 3: optimization.
pub mod async_overlap;
