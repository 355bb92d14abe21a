//! The simulator's race detector against compute-sanitizer's racecheck.
pub mod gallery;
