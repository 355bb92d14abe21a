//! `mbarrier` (PTX ISA §9.7.13.15): a barrier object in shared memory that counts arrivals and,
//! for bulk copies, bytes. A phase completes when its expected arrivals have arrived and the
//! bytes announced (`arrive_expect_tx`) have landed; the next phase then begins. Threads wait on
//! a phase by its parity.
//!
//! On the simulator the barrier's eight bytes hold its state (arrivals pending and expected, the
//! phase, the bytes outstanding), changed as the GPU changes it; a thread that finds its phase
//! incomplete gives up its turn, so the threads it waits for run.
use crate::arch;
use crate::shared::{SharedTile, Tile1d};

/// A barrier in shared memory: declare it in a [`shared_layout!`](crate::shared_layout) (or take
/// one of [`MBarriers`]), then [`MBarrier::init`] it from one thread before a block barrier.
#[derive(Clone, Copy)]
pub struct MBarrier {
    /// An 8-byte-aligned word of this launch's shared memory (the constructors' promise).
    word: *mut u64,
}

impl MBarrier {
    /// Sets the barrier to expect `count` arrivals (1 to 2^20 - 1) a phase, in phase 0.
    ///
    /// Call from: one thread, then a block barrier before any other thread uses it.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn init(&self, count: u32) {
        // SAFETY: `word` is an 8-byte-aligned word of this launch's shared memory.
        unsafe { arch::mbarrier_init(self.word, count) }
    }

    /// Counts one arrival of the current phase.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn arrive(&self) {
        // SAFETY: as in `init`.
        unsafe { arch::mbarrier_arrive(self.word) }
    }

    /// Announces `bytes` more bytes of bulk copies this phase, and arrives. On the GPU in a module
    /// built for sm_90a (PTX ISA 8.0, as the bulk copies are); elsewhere it traps.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn arrive_expect_tx(&self, bytes: u32) {
        // SAFETY: as in `init`.
        unsafe { arch::mbarrier_arrive_expect_tx(self.word, bytes) }
    }

    /// Whether the phase of parity `parity` (0 or 1) has completed.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn try_wait_parity(&self, parity: u32) -> bool {
        // SAFETY: as in `init`.
        unsafe { arch::mbarrier_try_wait_parity(self.word, parity & 1) }
    }

    /// Waits until the phase of parity `parity` has completed.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn wait_parity(&self, parity: u32) {
        while !self.try_wait_parity(parity) {}
    }
}

impl SharedTile for MBarrier {
    const ALIGN: usize = 8;
    fn bytes_for(_: usize) -> usize {
        8
    }
    #[inline(always)]
    unsafe fn at(offset: usize, _: usize) -> Self {
        // SAFETY: forwarded to the caller (8-byte aligned, as `ALIGN` says).
        let word = unsafe { Tile1d::<u64>::dynamic_at(offset, 1) }.element_ptr(0);
        Self { word }
    }
}

impl MBarrier {
    /// The barrier's word, for the bulk copies that count their bytes on it.
    #[inline(always)]
    pub(crate) fn word(&self) -> *mut u64 {
        self.word
    }
}

/// A row of barriers in shared memory, one per stage of a ring: `full: MBarriers[STAGES]` in a
/// [`shared_layout!`](crate::shared_layout).
pub struct MBarriers {
    words: Tile1d<u64>,
}

impl MBarriers {
    /// Barrier `i`; traps when `i` is not below the row's length.
    #[inline(always)]
    #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
    pub fn get(&self, i: usize) -> MBarrier {
        MBarrier {
            word: self.words.element_ptr(i),
        }
    }

    /// How many barriers the row holds.
    pub const fn len(&self) -> usize {
        self.words.len()
    }

    /// True for a row of none.
    pub const fn is_empty(&self) -> bool {
        self.words.is_empty()
    }
}

impl SharedTile for MBarriers {
    const ALIGN: usize = 8;
    fn bytes_for(len: usize) -> usize {
        8 * len
    }
    #[inline(always)]
    unsafe fn at(offset: usize, len: usize) -> Self {
        // SAFETY: forwarded to the caller (8-byte aligned, as `ALIGN` says).
        let words = unsafe { Tile1d::dynamic_at(offset, len) };
        Self { words }
    }
}
