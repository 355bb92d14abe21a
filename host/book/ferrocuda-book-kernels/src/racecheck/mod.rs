//! The race detector's gallery: kernels each missing one barrier, beside their correct twins.
pub mod gallery;
