//! CPU references of the thesis's examples.
pub mod sor;
