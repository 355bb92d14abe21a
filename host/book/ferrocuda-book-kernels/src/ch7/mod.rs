//! The book's chapter 7, applications of the FFT (the transforms themselves are the library's,
//! `ferrocuda::fft`; these are the chapter's elementwise kernels around them).
pub mod poisson;
pub mod spectral;
