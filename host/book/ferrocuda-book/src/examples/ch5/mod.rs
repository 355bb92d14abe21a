//! Book chapter 5: Monte Carlo method.
pub mod bs_european_mc;
pub mod curand_basic;
pub mod fortran;
pub mod generator;
pub mod pi;
pub mod pi_cuf;
pub mod pi_fma;
pub mod pi_reduction;
pub mod pi_reduction_atomiclock;
pub mod pi_reduction_twopass;
pub mod sum_accuracy;
