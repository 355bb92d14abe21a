//! The state of a running block and of each of its threads, and the thread-local pointer through
//! which the device functions (`device::arch::sim`) find the thread they run in.
use corosensei::Yielder;
use std::boxed::Box;
use std::cell::{Cell, RefCell};
use std::string::String;
use std::vec::Vec;

/// Where a thread is blocked, for deadlock reports and `activemask`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Wait {
    Running,
    Barrier,
    Warp(&'static str),
    /// At `activemask`, until the block's scheduler resolves it (`ops::resolve_active_masks`).
    ActiveMask,
    Exited,
}

/// One simulated thread.
pub(crate) struct ThreadCtx {
    pub thread_idx: [u32; 3],
    /// `threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)`: warps are runs of
    /// 32 consecutive ranks, as on the GPU.
    pub rank: usize,
    pub wait: Cell<Wait>,
    /// The block's barrier generation this thread waits to see end, while at a barrier.
    pub barrier_generation: Cell<u64>,
    /// The coroutine's yielder; null for a thread run as a plain call (fast path).
    pub yielder: Cell<*const Yielder<(), ()>>,
    /// A `__threadfence` since this thread's last atomic (the global race detector's release).
    pub fenced: Cell<bool>,
    /// The `__syncthreads` this thread waits at, while it does.
    pub barrier_site: Cell<Option<&'static core::panic::Location<'static>>>,
}

/// The lanes of one warp meeting at shuffles and votes: one array per field, so that completing
/// an operation reads the posted values in one sweep and writes results beside them.
pub(crate) struct WarpState {
    /// The lanes that posted an operation not yet completed: an operation can complete only once
    /// it covers the operation's mask, so a lane's post tests one word instead of scanning.
    pub posted: u32,
    /// Each posted lane's operation, mask and value.
    pub op: [super::WarpOp; 32],
    pub mask: [u32; 32],
    pub value: [u32; 32],
    /// The lanes whose `result` waits to be taken.
    pub ready: u32,
    pub result: [u32; 32],
}

impl Default for WarpState {
    fn default() -> Self {
        Self {
            posted: 0,
            op: [super::WarpOp::SyncWarp; 32],
            mask: [0; 32],
            value: [0; 32],
            ready: 0,
            result: [0; 32],
        }
    }
}

impl WarpState {
    /// Takes `lane`'s result, if its operation has completed.
    pub fn take_result(&mut self, lane: usize) -> Option<u32> {
        let bit = 1 << lane;
        (self.ready & bit != 0).then(|| {
            self.ready &= !bit;
            self.result[lane]
        })
    }
}

/// One running block: its coordinates, shared memory, barrier and warps.
pub(crate) struct BlockCtx {
    pub kernel: &'static str,
    pub block_idx: [u32; 3],
    pub block_dim: [u32; 3],
    pub grid_dim: [u32; 3],
    pub threads: usize,
    /// The launch's dynamic shared memory (16-byte aligned) and which bytes were written.
    pub shared: RefCell<Vec<u128>>,
    pub shared_bytes: usize,
    pub written: RefCell<Vec<bool>>,
    /// Threads waiting at the current barrier, and the barrier's generation.
    pub barrier_arrived: Cell<usize>,
    pub barrier_generation: Cell<u64>,
    pub warps: RefCell<Vec<WarpState>>,
    /// Threads waiting at `activemask`: the scheduler resolves masks only while some do.
    pub at_active_mask: Cell<usize>,
    /// Bumped by every arrival, release and exit: a scheduling round without it is a deadlock.
    pub progress: Cell<u64>,
    /// Whether any thread used a barrier, warp operation or shared memory.
    pub cooperative: Cell<bool>,
    /// False on the fast path, where a thread cannot be suspended.
    pub can_suspend: bool,
    /// Where the block's threads print: the launching thread's capture, or standard output.
    pub output: Option<super::output::Sink>,
    /// The shared-memory race detector's shadow, when that check is on.
    pub race: Option<RefCell<super::race::SharedRace>>,
    /// The launch's global-memory race table, when that check is on.
    pub global_race: Option<std::sync::Arc<super::global_race::GlobalRace>>,
    /// Releases (`__threadfence`, then an atomic) this block's threads have made.
    pub releases: Cell<u32>,
    /// Whether a thread of this block has made a global atomic (an acquire).
    pub acquired: Cell<bool>,
    /// The views the launch's arguments hold, to name the one an index falls outside of.
    pub views: std::sync::Arc<[crate::ViewInfo]>,
    /// The `__syncthreads` the threads of the current barrier generation wait at.
    pub barrier_site: Cell<Option<&'static core::panic::Location<'static>>>,
}

impl BlockCtx {
    pub fn new(
        kernel: &'static str,
        block_idx: [u32; 3],
        block_dim: [u32; 3],
        grid_dim: [u32; 3],
        shared_bytes: usize,
        can_suspend: bool,
        checks: super::Checks,
    ) -> Self {
        let threads = block_dim.iter().map(|&d| d as usize).product::<usize>();
        // Without shared memory there is nothing to race on, and the fast path has no shared memory.
        let race = (checks.shared_race && can_suspend && shared_bytes > 0)
            .then(|| RefCell::new(super::race::SharedRace::new(shared_bytes, threads.div_ceil(32))));
        Self {
            kernel,
            block_idx,
            block_dim,
            grid_dim,
            threads,
            shared: RefCell::new(std::vec![0u128; shared_bytes.div_ceil(16)]),
            shared_bytes,
            written: RefCell::new(std::vec![false; shared_bytes]),
            barrier_arrived: Cell::new(0),
            barrier_generation: Cell::new(0),
            warps: RefCell::new((0..threads.div_ceil(32)).map(|_| WarpState::default()).collect()),
            at_active_mask: Cell::new(0),
            progress: Cell::new(0),
            cooperative: Cell::new(false),
            can_suspend,
            output: None,
            race,
            global_race: None,
            releases: Cell::new(0),
            acquired: Cell::new(false),
            views: std::sync::Arc::from([]),
            barrier_site: Cell::new(None),
        }
    }

    pub fn bump(&self) {
        self.progress.set(self.progress.get() + 1);
    }

    /// `blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z)`.
    pub fn linear_index(&self) -> u64 {
        let [x, y, z] = self.block_idx.map(u64::from);
        let [gx, gy, _] = self.grid_dim.map(u64::from);
        x + gx * (y + gy * z)
    }

    /// The 3-D index of the thread of rank `rank`.
    pub fn thread_idx(&self, rank: usize) -> [u32; 3] {
        let [dx, dy, _] = self.block_dim.map(|d| d as usize);
        [(rank % dx) as u32, (rank / dx % dy) as u32, (rank / (dx * dy)) as u32]
    }
}

/// The thread a device function is called from, and its block.
#[derive(Clone, Copy)]
struct Current {
    thread: *const ThreadCtx,
    block: *const BlockCtx,
}

std::thread_local! {
    static CURRENT: Cell<Option<Current>> = const { Cell::new(None) };
}

/// Runs `f` with `thread` and `block` as the current thread, for the duration of one resume.
pub(crate) fn enter<R>(thread: &ThreadCtx, block: &BlockCtx, f: impl FnOnce() -> R) -> R {
    let previous = CURRENT.replace(Some(Current { thread, block }));
    let was_in_kernel = ferrocuda_sim_abi::enter_kernel(true);
    let result = f();
    ferrocuda_sim_abi::enter_kernel(was_in_kernel);
    CURRENT.set(previous);
    result
}

/// Runs `f`, then puts the current thread and the kernel flag back as they were before it: the
/// overflow guard abandons a coroutine's frames, and with them the restores of the [`enter`]
/// calls made inside it.
pub(crate) fn restoring<R>(f: impl FnOnce() -> R) -> R {
    let previous = CURRENT.get();
    let was_in_kernel = ferrocuda_sim_abi::in_kernel();
    let result = f();
    ferrocuda_sim_abi::enter_kernel(was_in_kernel);
    CURRENT.set(previous);
    result
}

/// Calls `f` with the current thread and block.
///
/// Panics when no simulated launch is running on this host thread: the device library was
/// called outside a kernel.
pub(crate) fn with_thread<R>(f: impl FnOnce(&ThreadCtx, &BlockCtx) -> R) -> R {
    let current = CURRENT
        .get()
        .expect("a device function was called outside a simulated kernel launch");
    // SAFETY: `enter` sets the pointers to a thread and block that outlive the resume in which
    // the kernel code calling this runs.
    unsafe { f(&*current.thread, &*current.block) }
}

/// Whether a simulated thread runs on this host thread now: the flag `enter` sets, which the
/// device library reads too.
#[inline(always)]
pub(crate) fn in_kernel() -> bool {
    ferrocuda_sim_abi::in_kernel()
}

/// Calls `f` with the current thread and block, or returns `None` outside a simulated launch.
pub(crate) fn with_thread_if_any<R>(f: impl FnOnce(&ThreadCtx, &BlockCtx) -> R) -> Option<R> {
    // SAFETY: as in `with_thread`.
    CURRENT
        .get()
        .map(|current| unsafe { f(&*current.thread, &*current.block) })
}

/// Calls `f` with the current block, or returns `None` outside a simulated launch.
pub(crate) fn with_block_if_any<R>(f: impl FnOnce(&BlockCtx) -> R) -> Option<R> {
    // SAFETY: as in `with_thread`.
    CURRENT.get().map(|current| f(unsafe { &*current.block }))
}

/// Suspends the current thread until the block's scheduler resumes it.
pub(crate) fn suspend(what: &str) {
    let yielder = with_thread(|t, b| {
        if !b.can_suspend {
            fault(std::format!(
                "the kernel reached {what} in this block, but the first block used no barrier, warp operation or \
                 shared memory, so this block runs on the simulator's fast path, which cannot suspend a thread"
            ));
        }
        t.yielder.get()
    });
    // SAFETY: the yielder belongs to the coroutine running this code, which is alive while it
    // runs; it was set when the coroutine started.
    unsafe { (*yielder).suspend(()) };
}

/// A fault raised by the simulator's checks: unwinds out of the thread to its block's scheduler,
/// which reports it with kernel, block and thread. (`resume_unwind` skips the panic hook.)
pub(crate) struct FaultMessage(pub String);

/// Stops the current thread with a fault; outside a simulated kernel (a device function called
/// from host code), panics with `message`.
#[track_caller]
pub fn fault(message: String) -> ! {
    if !in_kernel() {
        panic!("{message}");
    }
    std::panic::resume_unwind(Box::new(FaultMessage(message)))
}
