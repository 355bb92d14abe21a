//! Book chapter 2: performance measurement (ch2-timing and ch2-effective-bandwidth reuse the
//! kernels of ch1-increment and ch2-limiting-factor).
pub mod limiting_factor;
