//! CPU references of book chapter 7 (rustfft through `ferrocuda::fft::cpu`, in f64).
pub mod convolution;
pub mod poisson;
