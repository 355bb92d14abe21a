//! Checks of the embedded PTX that need no GPU: every kernel's parameter block has the size of
//! its host-side `*Args` struct, and the instructions each kernel was written to use are there
//! (patterns, like CUDA.jl's intrinsics tests, not whole-file snapshots). One module per concern:
//! the modules as a whole, arithmetic, memory accesses, local memory and printing.
#[path = "ptx/arithmetic.rs"]
mod arithmetic;
#[path = "ptx/embedded.rs"]
mod embedded;
#[path = "ptx/local.rs"]
mod local;
#[path = "ptx/memory.rs"]
mod memory;

use ferrocuda::ptx::{self, PtxModule};

/// Every embedded module, of every set.
fn modules() -> Vec<PtxModule> {
    ferrocuda_book::KERNEL_SETS
        .iter()
        .flat_map(|set| set.modules())
        .collect()
}

/// The entry `name` in every module of the set that holds it.
fn kernel_ptx(name: &str) -> Vec<&'static str> {
    let bodies: Vec<&'static str> = modules().iter().filter_map(|m| ptx::entry_ptx(m.ptx, name)).collect();
    assert!(!bodies.is_empty(), "no entry `{name}` in any embedded PTX");
    bodies
}
