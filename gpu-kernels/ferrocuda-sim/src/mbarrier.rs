//! The simulated `mbarrier` (PTX ISA §9.7.13.15): the barrier's eight shared bytes hold its
//! state, which each operation reads and writes at once (an atomic to the race detector):
//! arrivals pending and expected a phase, the phase's parity, and the bytes of bulk copies
//! announced and not yet landed. A phase completes when both reach zero.
//!
//! The barrier orders what it synchronises: an arrival releases what the arriving thread did
//! before it into the phase, a wait that finds the phase complete acquires it
//! (`race::SharedRace::{arrive, acquire}`), so a producer's writes read by consumers after
//! their wait are no race. Arrivals and landed bytes count as the block's progress; a thread
//! whose phase is incomplete gives up its turn, so that the threads it waits for run.
use super::context::{fault, suspend, with_thread};
use super::ops::{Access, shared_access_at};
use core::panic::Location;

/// The most arrivals a phase expects (PTX: 2^20 - 1).
const MAX_COUNT: u32 = (1 << 20) - 1;

/// A barrier's state, as its eight bytes hold it.
#[derive(Clone, Copy)]
struct State {
    pending: u32,
    expected: u32,
    phase: u32,
    /// Announced and not yet landed (negative while bytes land before their announcement).
    bytes: i32,
}

impl State {
    fn pack(self) -> u64 {
        self.pending as u64
            | (self.expected as u64) << 20
            | (self.phase as u64) << 40
            | (self.bytes as i64 as u64) << 41
    }
    fn unpack(word: u64) -> Self {
        Self {
            pending: (word & MAX_COUNT as u64) as u32,
            expected: (word >> 20 & MAX_COUNT as u64) as u32,
            phase: (word >> 40 & 1) as u32,
            // Bits 41..64, sign-extended.
            bytes: ((word as i64) >> 41) as i32,
        }
    }
}

/// What an operation did to the phase.
enum Outcome {
    Running,
    /// The phase of this parity completed.
    Completed(u32),
}

/// Applies `change` to the barrier at `word` (checked as an access of `access`), completing the
/// phase when it is done; returns `change`'s result, the outcome and the barrier's offset.
fn update<R>(
    word: *mut u64,
    access: Access,
    site: &'static Location<'static>,
    change: impl FnOnce(&mut State) -> R,
) -> (R, Outcome, usize) {
    let checked = shared_access_at(word.cast(), 8, access, site).cast::<u64>();
    let offset = with_thread(|_, b| checked as usize - b.shared.borrow().as_ptr() as usize);
    if !(checked as usize).is_multiple_of(8) {
        fault(std::format!("an mbarrier at shared byte {offset}, not 8-byte aligned"));
    }
    // SAFETY: `shared_access_at` checked that the 8 bytes lie in the block's shared memory, which
    // only this host thread touches; aligned (checked above).
    let mut state = State::unpack(unsafe { checked.read() });
    if access != Access::Write && state.expected == 0 {
        fault(std::format!(
            "an mbarrier at shared byte {offset} used before `init` (at {site})"
        ));
    }
    let result = change(&mut state);
    let mut outcome = Outcome::Running;
    if access != Access::Write && state.pending == 0 && state.bytes == 0 {
        outcome = Outcome::Completed(state.phase);
        state.pending = state.expected;
        state.phase ^= 1;
    }
    // SAFETY: as above.
    unsafe { checked.write(state.pack()) };
    (result, outcome, offset)
}

/// Records an arrival (or landed bytes) of the calling thread on the barrier at `offset` with
/// the race detector, and the phase's completion; counts as the block's progress.
fn release(offset: usize, outcome: Outcome) {
    with_thread(|t, b| {
        if let Some(race) = &b.race {
            let mut race = race.borrow_mut();
            race.arrive(t.rank, offset);
            if let Outcome::Completed(parity) = outcome {
                race.complete(offset, parity);
            }
        }
        b.bump();
    });
}

/// `mbarrier.init`: `count` arrivals a phase, phase 0.
pub fn mbarrier_init(word: *mut u64, count: u32, site: &'static Location<'static>) {
    if !(1..=MAX_COUNT).contains(&count) {
        fault(std::format!(
            "an mbarrier counts 1 to {MAX_COUNT} arrivals a phase, not {count} (at {site})"
        ));
    }
    let (_, _, offset) = update(word, Access::Write, site, |state| {
        *state = State {
            pending: count,
            expected: count,
            phase: 0,
            bytes: 0,
        };
    });
    with_thread(|_, b| {
        if let Some(race) = &b.race {
            race.borrow_mut().forget_barrier(offset);
        }
    });
}

/// `mbarrier.arrive` (with `expect_tx` of `bytes` when not 0).
pub fn mbarrier_arrive(word: *mut u64, bytes: u32, site: &'static Location<'static>) {
    let ((), outcome, offset) = update(word, Access::ReadWrite, site, |state| {
        if state.pending == 0 {
            fault(std::format!(
                "an mbarrier arrival beyond its phase's {} expected (at {site})",
                state.expected
            ));
        }
        state.bytes = state.bytes.wrapping_add(bytes as i32);
        state.pending -= 1;
    });
    release(offset, outcome);
}

/// `complete_tx`: `bytes` of a bulk copy issued by the calling thread have landed.
pub fn mbarrier_complete_tx(word: *mut u64, bytes: u32, site: &'static Location<'static>) {
    let ((), outcome, offset) = update(word, Access::ReadWrite, site, |state| {
        state.bytes = state.bytes.wrapping_sub(bytes as i32);
    });
    release(offset, outcome);
}

/// `mbarrier.try_wait.parity`: whether the phase of parity `parity` has completed (what it
/// released is then ordered before the caller); gives up the thread's turn when not.
pub fn mbarrier_try_wait_parity(word: *mut u64, parity: u32, site: &'static Location<'static>) -> bool {
    let (done, _, offset) = update(word, Access::ReadWrite, site, |state| state.phase != parity & 1);
    if done {
        with_thread(|t, b| {
            if let Some(race) = &b.race {
                race.borrow_mut().acquire(t.rank, offset, parity & 1);
            }
        });
    } else {
        suspend("an mbarrier's phase");
    }
    done
}
