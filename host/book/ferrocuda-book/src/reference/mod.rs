//! CPU references, with rayon, one module per example id (as in `examples`).
pub mod ch1;
pub mod ch2;
pub mod ch3;
pub mod ch5;
pub mod ch6;
pub mod ch7;
pub mod course;
pub mod stream;
pub mod tutorial;
