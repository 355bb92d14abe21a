//! The thesis "Modeling Communication on Multi-GPU Systems" (Spampinato, 2009): red-black SOR.
pub mod sor;
