//! The thesis "Modeling Communication on Multi-GPU Systems" (Spampinato, 2009).
pub mod comm_model;
