//! Book chapter 3 references.
pub mod bank_conflicts;
pub mod shared_reverse;
pub mod transpose;
