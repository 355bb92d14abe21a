//! The IT4I GPU course (Říha, Kadlubiak, Homola).
pub mod vector_add;
