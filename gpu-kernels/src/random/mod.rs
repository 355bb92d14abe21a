//! Random numbers on the device (cuRAND's device API): counter-based generators whose streams the
//! CPU reproduces bit for bit, since the same source compiles for both.
pub mod philox;
