//! The simulator's `mbarrier`: the simulator keeps the barrier's state in its eight shared
//! bytes and orders what its phases synchronise (`ferrocuda-sim`'s `mbarrier.rs`).
use ferrocuda_sim_abi as sim;

/// `mbarrier.init`.
///
/// # Safety
/// None here: the simulator checks the word.
#[track_caller]
pub unsafe fn mbarrier_init(word: *mut u64, count: u32) {
    sim::mbarrier_init(word, count, core::panic::Location::caller());
}

/// `mbarrier.arrive`.
///
/// # Safety
/// As [`mbarrier_init`].
#[track_caller]
pub unsafe fn mbarrier_arrive(word: *mut u64) {
    sim::mbarrier_arrive(word, 0, core::panic::Location::caller());
}

/// `mbarrier.arrive.expect_tx`.
///
/// # Safety
/// As [`mbarrier_init`].
#[track_caller]
pub unsafe fn mbarrier_arrive_expect_tx(word: *mut u64, bytes: u32) {
    sim::mbarrier_arrive(word, bytes, core::panic::Location::caller());
}

/// `mbarrier.try_wait.parity`.
///
/// # Safety
/// As [`mbarrier_init`].
#[track_caller]
pub unsafe fn mbarrier_try_wait_parity(word: *mut u64, parity: u32) -> bool {
    sim::mbarrier_try_wait_parity(word, parity, core::panic::Location::caller())
}
