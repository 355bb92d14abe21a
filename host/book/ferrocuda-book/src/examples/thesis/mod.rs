//! The thesis "Modeling Communication on Multi-GPU Systems" (Spampinato, 2009): red-black SOR on
//! one GPU and many, and its communication model.
pub mod comm_model;
pub mod sor;
pub mod sor_multi;
pub mod sor_setup;
