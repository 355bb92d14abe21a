//! Book chapter 2: performance measurement and metrics.
pub mod effective_bandwidth;
pub mod limiting_factor;
pub mod timing;
