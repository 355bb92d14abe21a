//! The book's chapter 5, Monte Carlo methods.
pub mod bs_european_mc;
pub mod pi_cuf;
pub mod pi_fma;
pub mod pi_reduction_atomiclock;
pub mod pi_reduction_twopass;
