//! The CPU simulator: runs a launch of any `#[kernel]` on the host under CUDA's execution model,
//! with the checks a GPU cannot give cheaply.
//!
//! - Every thread of a block is a stackful coroutine, so all threads of a block are in flight
//!   together: `sync_threads` suspends a thread until every thread of its block has arrived, a
//!   shuffle or vote until every lane of its mask has, exactly as on the GPU. Blocks run in any
//!   order, in parallel on the host's cores (rayon). Global-memory atomics are host atomics, and
//!   the device library's global loads and stores relaxed host atomics of the element's width: a
//!   kernel whose threads race on an element computes a wrong answer, as on a GPU, and is no data
//!   race of the host process. A view read or written from host code, outside a kernel, panics
//!   ([`OUTSIDE_KERNEL`]).
//! - Dynamic shared memory is a per-block buffer of the launch's size, with a shadow of written
//!   bytes: an access outside it, or a read of bytes never written in this launch, stops the
//!   launch with a [`Fault`] naming kernel, block and thread.
//! - Races ([`Checks`]): two threads of a block touching the same shared-memory bytes between two
//!   barriers, one of them writing, stop the launch with a [`Fault`] naming both threads, the
//!   bytes, each access with its source line, and the synchronisation that is missing
//!   (compute-sanitizer's racecheck, on the CPU). The model is sm_70's independent thread
//!   scheduling: lanes of one warp are ordered only by `__syncwarp`, a shuffle, a vote or a
//!   barrier, never by running in one warp; atomics are exempt. On by default; the cross-block
//!   global-memory check (which exempts blocks ordered by `__threadfence` and atomics, a lock) is
//!   opt-in. `FERROCUDA_SIM_CHECKS=race,global-race|all|none` sets the process's default,
//!   [`with_checks`] the checks of one host thread's launches.
//! - A barrier some threads of the block never reach (they exited, or wait elsewhere), or a warp
//!   operation whose mask names lanes that never arrive, is found when no thread can move on, and
//!   reported the same way; the simulator never hangs on one.
//!
//! - What kernels print (`ferrocuda_device::println!`) goes to standard output one whole call at
//!   a time, or, inside [`capture_output`], to a string the caller checks.
//!
//! Fast path: the first block runs with coroutines and records whether any thread used a
//! barrier, a warp operation or shared memory. If none did, every other block runs each thread
//! to completion as a plain call, one after another, without coroutines (about ten times faster).
//! Should such a block reach a barrier or warp operation after all (the kernel's control flow
//! differs between blocks), the launch stops with a fault that says so.
mod abi;
mod block;
mod checks;
mod context;
mod global_race;
mod mbarrier;
mod ops;
mod output;
mod race;
mod stack;

pub use checks::{Checks, checks_from_env, current_checks, default_checks, with_checks};
pub use context::fault;
pub use ops::{Access, WarpOp, active_mask, barrier, index_fault, shared_access, shared_base, warp_exchange};
pub use output::{capture_output, print};
pub use stack::{DEFAULT_STACK_BYTES, stack_bytes, stack_bytes_from_env};

use context::{with_thread, with_thread_if_any};

use core::sync::atomic::{AtomicU32, Ordering};
use std::fmt;
use std::string::String;

/// Bytes of the constant bank (`ferrocuda_constant_bank`), shared with the device library through
/// the interface crate.
pub use ferrocuda_sim_abi::CONSTANT_BANK_BYTES;

/// `threadIdx` of the calling simulated thread.
pub fn thread_idx() -> [u32; 3] {
    with_thread(|t, _| t.thread_idx)
}

/// `blockIdx` of the calling simulated thread.
pub fn block_idx() -> [u32; 3] {
    with_thread(|_, b| b.block_idx)
}

/// `blockDim` of the running launch.
pub fn block_dim() -> [u32; 3] {
    with_thread(|_, b| b.block_dim)
}

/// `gridDim` of the running launch.
pub fn grid_dim() -> [u32; 3] {
    with_thread(|_, b| b.grid_dim)
}

/// The lane (0..32) of the calling simulated thread in its warp.
pub fn lane_id() -> u32 {
    with_thread(|t, _| (t.rank % 32) as u32)
}

pub use ferrocuda_sim_abi::OUTSIDE_KERNEL;

// The race detector's side of global accesses, atomics and fences. The device library reaches
// these through `ferrocuda_sim_abi`'s inline wrappers, which test the fast-path flag (and that
// a kernel is running) first, and call them only while a launch has the check on.

/// Checks a global-memory access of `bytes` bytes at `address` against the other blocks'
/// accesses in this launch; a fault on a race.
fn global_access_checked(address: *const u8, bytes: usize, access: Access) {
    let checked = with_thread_if_any(|t, b| {
        let race = b.global_race.as_ref()?;
        global_race::access(t, b, race, address as usize, bytes, access).err()
    });
    if let Some(message) = checked.flatten() {
        fault(message);
    }
}

/// Notes a global or shared atomic: an acquire by the block, and a release when the thread made
/// a `__threadfence` since its last atomic.
fn global_atomic_checked() {
    with_thread_if_any(|t, b| {
        if let Some(race) = &b.global_race {
            global_race::atomic(t, b, race);
        }
    });
}

/// Notes a `__threadfence` (any scope).
fn thread_fence_checked() {
    with_thread_if_any(|t, b| {
        if b.global_race.is_some() {
            global_race::fence(t);
        }
    });
}

/// CUDA's limits on launch shapes (compute capability 9.0).
pub const MAX_THREADS_PER_BLOCK: u32 = 1024;
pub const MAX_BLOCK_DIM: [u32; 3] = [1024, 1024, 64];
pub const MAX_GRID_DIM: [u32; 3] = [i32::MAX as u32, 65535, 65535];
/// The most dynamic shared memory a block may ask for (sm_90's opt-in limit, 227 KiB).
pub const MAX_SHARED_BYTES: usize = 227 * 1024;

/// One launch: which kernel, its shape, its dynamic shared memory, and the views its arguments
/// hold (to name the one an index falls outside of).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Launch {
    pub kernel: &'static str,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: usize,
    pub views: Vec<ViewInfo>,
}

/// A view a kernel argument holds: the argument struct's field, and the bytes it spans.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewInfo {
    pub field: &'static str,
    pub start: usize,
    pub bytes: usize,
}

/// Why a simulated launch did not complete.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SimError {
    /// A shape or shared-memory size CUDA refuses (its `CUDA_ERROR_INVALID_VALUE`).
    InvalidLaunch(String),
    /// A thread faulted, or the block could not go on.
    Fault(Fault),
}

/// A fault in a simulated launch, with where it happened.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fault {
    pub kernel: &'static str,
    pub block: [u32; 3],
    /// The thread at fault (for a stuck barrier: the first thread that never reached it).
    pub thread: Option<[u32; 3]>,
    pub message: String,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let [bx, by, bz] = self.block;
        write!(f, "kernel `{}`, block ({bx}, {by}, {bz})", self.kernel)?;
        if let Some([tx, ty, tz]) = self.thread {
            write!(f, ", thread ({tx}, {ty}, {tz})")?;
        }
        write!(f, ": {}", self.message)
    }
}

impl fmt::Display for SimError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SimError::InvalidLaunch(message) => f.write_str(message),
            SimError::Fault(fault) => fault.fmt(f),
        }
    }
}

impl std::error::Error for SimError {}

/// Runs `run(args)` for every thread of `launch`; returns once every thread has finished.
///
/// The kernel's `*Args` hold raw device addresses, which here are host addresses of simulator
/// buffers; threads of different blocks run on different host threads, as on the GPU. `A` may
/// borrow (views borrow their buffers): every thread has finished when this returns.
///
/// # Safety
/// `args` is plain data that host threads may copy and use at once: numbers and views of
/// simulator memory, whose accessors are relaxed atomics (`ferrocuda_device::launch::DeviceCopy`,
/// which every kernel argument struct is); no reference to host data or cell, which the blocks'
/// threads would race on.
pub unsafe fn launch<A: Copy>(launch: &Launch, run: fn(A), args: A) -> Result<(), SimError> {
    validate(launch)?;
    block::run_grid(launch, ErasedBody::new(run, &args)).map_err(SimError::Fault)
}

/// [`launch`] of a body that takes its arguments through a pointer (a kernel's
/// `Kernel::RUN`, compiled in its kernel crate): nothing of the per-thread path is
/// compiled in the launching crate, which a debug build compiles at opt-level 0.
///
/// # Safety
/// `args` points to an argument value that outlives the call and that `run` reads as its own
/// type, plain data as [`launch`] requires.
pub unsafe fn launch_erased(launch: &Launch, run: unsafe fn(*const ()), args: *const ()) -> Result<(), SimError> {
    validate(launch)?;
    let body = ErasedBody {
        run: run as *const (),
        args,
        call: ErasedBody::call_erased,
    };
    block::run_grid(launch, body).map_err(SimError::Fault)
}

/// A kernel body and its arguments with their type erased, so the blocks' coroutines (which
/// must be `'static`) can hold arguments that borrow: `launch` keeps `args` alive and returns
/// only after every thread has run.
#[derive(Clone, Copy)]
pub(crate) struct ErasedBody {
    run: *const (),
    args: *const (),
    call: unsafe fn(*const (), *const ()),
}

impl ErasedBody {
    fn new<A: Copy>(run: fn(A), args: &A) -> Self {
        Self {
            run: run as *const (),
            args: (args as *const A).cast(),
            call: Self::call::<A>,
        }
    }

    /// # Safety
    /// `run` is a `fn(A)` and `args` points to a live `A`.
    unsafe fn call<A: Copy>(run: *const (), args: *const ()) {
        // SAFETY: `new` erased a `fn(A)` to `run` (function pointers have one size).
        let run = unsafe { core::mem::transmute::<*const (), fn(A)>(run) };
        // SAFETY: `args` points to the `A` that `launch` keeps alive until every thread is done.
        run(unsafe { *args.cast::<A>() })
    }

    /// # Safety
    /// `run` is an `unsafe fn(*const ())` and `args` points to the live value it reads.
    unsafe fn call_erased(run: *const (), args: *const ()) {
        // SAFETY: `launch_erased` erased an `unsafe fn(*const ())` to `run`.
        let run = unsafe { core::mem::transmute::<*const (), unsafe fn(*const ())>(run) };
        // SAFETY: `args` is the pointer `launch_erased`'s caller promised live.
        unsafe { run(args) }
    }

    pub(crate) fn run(self) {
        // SAFETY: made by `new` from a `fn(A)` and an `&A` that outlives the launch.
        unsafe { (self.call)(self.run, self.args) }
    }
}

fn validate(l: &Launch) -> Result<(), SimError> {
    let threads = l.block.iter().map(|&d| d as u64).product::<u64>();
    let invalid = |what: String| {
        Err(SimError::InvalidLaunch(std::format!(
            "launch of kernel `{}`: {what}",
            l.kernel
        )))
    };
    if l.grid.contains(&0) || l.block.contains(&0) {
        return invalid(std::format!("empty shape (grid {:?}, block {:?})", l.grid, l.block));
    }
    if threads > MAX_THREADS_PER_BLOCK as u64 {
        return invalid(std::format!(
            "{threads} threads per block, more than {MAX_THREADS_PER_BLOCK}"
        ));
    }
    if (0..3).any(|k| l.block[k] > MAX_BLOCK_DIM[k] || l.grid[k] > MAX_GRID_DIM[k]) {
        return invalid(std::format!(
            "grid {:?} or block {:?} beyond CUDA's limits",
            l.grid,
            l.block
        ));
    }
    if l.shared_bytes > MAX_SHARED_BYTES {
        return invalid(std::format!(
            "{} bytes of shared memory, more than {MAX_SHARED_BYTES}",
            l.shared_bytes
        ));
    }
    Ok(())
}

/// The simulator's constant bank (`ferrocuda_constant_bank` on the GPU): one per process, as the
/// GPU's is one per loaded module, written by the host between launches and read by kernels.
static CONSTANT_BANK: [AtomicU32; CONSTANT_BANK_BYTES / 4] = [const { AtomicU32::new(0) }; CONSTANT_BANK_BYTES / 4];

/// Writes `words` into the constant bank from byte `byte_offset` (the simulator's
/// `cuMemcpyHtoD` to the bank); `Err` with one sentence when they do not fit or are misaligned.
pub fn write_constant_bank(byte_offset: usize, words: &[u32]) -> Result<(), String> {
    let bytes = words.len() * 4;
    if !byte_offset.is_multiple_of(4)
        || byte_offset
            .checked_add(bytes)
            .is_none_or(|end| end > CONSTANT_BANK_BYTES)
    {
        return Err(std::format!(
            "{bytes} bytes at byte {byte_offset} do not fit the {}-byte constant bank as 4-byte words",
            CONSTANT_BANK_BYTES
        ));
    }
    for (k, &w) in words.iter().enumerate() {
        CONSTANT_BANK[byte_offset / 4 + k].store(w, Ordering::Relaxed);
    }
    Ok(())
}

/// The constant bank's word at `byte_offset`, read by a kernel; a fault when out of the bank.
pub fn constant_word(byte_offset: usize) -> u32 {
    match CONSTANT_BANK.get(byte_offset / 4) {
        Some(word) if byte_offset.is_multiple_of(4) => word.load(Ordering::Relaxed),
        _ => fault(std::format!(
            "constant-bank read at byte {byte_offset}, outside the {}-byte bank or misaligned",
            CONSTANT_BANK_BYTES
        )),
    }
}
