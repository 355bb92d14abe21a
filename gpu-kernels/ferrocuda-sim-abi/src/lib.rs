//! The interface between the device library's simulator side (`ferrocuda-device`'s
//! `arch/host.rs`) and the simulator (`ferrocuda-sim`), in `core` alone.
//!
//! Why a hand-written, symbol-level interface rather than a plain dependency on
//! `ferrocuda-sim`: a kernel crate is `#![no_std]`, but every crate in its crate graph counts for
//! method resolution, and `std` (which the simulator needs for threads, coroutines and `rayon`)
//! brings inherent `f32::exp`, `f32::sin`, `f64::sqrt`, ... that win over the device library's
//! trait methods. A kernel written `x.exp()` then ran `std`'s `exp` on the simulator and the
//! device library's on the GPU: different bits, silently. With this crate in between, the host
//! build of a kernel crate sees `core` only, as the nvptx build does, and `x.exp()` resolves to
//! the same function on both (or fails to compile on both, naming the trait to import).
//!
//! The simulator's entry points are declared here once (the `abi!` list below) and defined by
//! `ferrocuda-sim` through [`export_simulator!`], which expands the same list, so the
//! declaration and the definition cannot disagree. A binary that runs kernels on the host links
//! `ferrocuda-sim` (the host library does); without it the link fails with an undefined
//! `ferrocuda_sim_abi_*` symbol. The fast-path flag [`LAUNCHES_CHECKED`] is a plain static of
//! this crate, read inline by the device library, so an unchecked global access costs one load,
//! as before.
#![no_std]
// The in-kernel flag is a `#[thread_local]` static: `core` has no `thread_local!`.
#![feature(thread_local)]

use core::cell::Cell;
use core::fmt;
use core::panic::Location;
use core::sync::atomic::{AtomicUsize, Ordering};

/// Bytes of the constant bank (`ferrocuda_constant_bank`), on the GPU and in the simulator.
pub const CONSTANT_BANK_BYTES: usize = 65536;

/// How many running launches have the cross-block global race check on: while 0, a global
/// access or atomic is not reported to the simulator at all (one relaxed load).
pub static LAUNCHES_CHECKED: AtomicUsize = AtomicUsize::new(0);

/// Whether a simulated thread runs on this host thread now: set by the simulator around each
/// resume of a simulated thread ([`enter_kernel`]), read by every global access and atomic (one
/// thread-local read), which outside a kernel must not touch memory.
#[thread_local]
static IN_KERNEL: Cell<bool> = Cell::new(false);

/// What a view's access from host code says: outside a kernel a view's address may be a device
/// address of the CUDA backend, which the host must not dereference.
pub const OUTSIDE_KERNEL: &str = "a view of device memory is read or written only inside a kernel; on the host, \
     copy the buffer to host memory first (`Gpu::download`)";

/// True while a simulated thread runs on this host thread.
#[inline(always)]
pub fn in_kernel() -> bool {
    IN_KERNEL.get()
}

/// Marks this host thread as running a simulated thread (`true`) or not; returns the previous
/// mark, for the simulator to restore.
#[inline(always)]
pub fn enter_kernel(running: bool) -> bool {
    IN_KERNEL.replace(running)
}

/// The stop of a global access or atomic made outside a kernel: a fault, which outside a kernel
/// the simulator raises as a panic with [`OUTSIDE_KERNEL`].
#[cold]
#[inline(never)]
fn outside_kernel() -> ! {
    fault_with(format_args!("{OUTSIDE_KERNEL}"))
}

/// How a shared- or global-memory access uses the bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read,
    Write,
    /// An atomic: reads, then writes.
    ReadWrite,
}

/// The warp operations, as PTX names them; shuffles carry their `b` operand and their clamp `c`
/// (the first lane for `up`, the last for `down` and `bfly`; segment masks are not modelled:
/// the whole warp is one segment).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WarpOp {
    /// `shfl.sync.up` by `delta`.
    Up(u32, u32),
    /// `shfl.sync.down` by `delta`.
    Down(u32, u32),
    /// `shfl.sync.bfly` with `lane_mask`.
    Bfly(u32, u32),
    /// `shfl.sync.idx` from `lane`.
    Idx(u32, u32),
    /// `vote.sync.ballot`.
    Ballot,
    /// `bar.warp.sync` (`__syncwarp`): no value, only the meeting.
    SyncWarp,
}

impl WarpOp {
    /// The PTX instruction's name, for fault messages.
    pub fn name(self) -> &'static str {
        match self {
            WarpOp::Up(..) => "shfl.sync.up",
            WarpOp::Down(..) => "shfl.sync.down",
            WarpOp::Bfly(..) => "shfl.sync.bfly",
            WarpOp::Idx(..) => "shfl.sync.idx",
            WarpOp::Ballot => "vote.sync.ballot",
            WarpOp::SyncWarp => "bar.warp.sync",
        }
    }

    /// The lane whose value `lane` receives: its own when the source lies past the clamp.
    pub fn source(self, lane: usize) -> usize {
        let within = |j: usize, ok: bool| if ok { j } else { lane };
        match self {
            WarpOp::Up(d, c) => lane
                .checked_sub(d as usize)
                .map_or(lane, |j| within(j, j >= (c & 31) as usize)),
            WarpOp::Down(d, c) => within(lane + d as usize, lane + d as usize <= (c & 31) as usize),
            WarpOp::Bfly(m, c) => within(
                lane ^ (m as usize & 31),
                (lane ^ (m as usize & 31)) <= (c & 31) as usize,
            ),
            WarpOp::Idx(j, _) => j as usize & 31,
            WarpOp::Ballot | WarpOp::SyncWarp => lane,
        }
    }
}

/// Declares the simulator's entry points (`unsafe extern "Rust"`, each `safe`: the simulator
/// checks what it is given), a safe wrapper of each under its short name, and
/// `export_simulator!`, which defines each symbol in `ferrocuda-sim` by calling the function of
/// the same short name in the module it is given. `$d` is a `$`, for the inner macro.
macro_rules! abi {
    ($d:tt $( $(#[$doc:meta])* fn $name:ident => $symbol:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)?; )*) => {
        unsafe extern "Rust" {
            $( safe fn $symbol($($arg: $ty),*) $(-> $ret)?; )*
        }
        $(
            $(#[$doc])*
            #[inline(always)]
            pub fn $name($($arg: $ty),*) $(-> $ret)? {
                $symbol($($arg),*)
            }
        )*
        /// Defines the simulator's entry points, each calling the function of the same short
        /// name in `$module`: invoked once, by `ferrocuda-sim`.
        #[macro_export]
        macro_rules! export_simulator {
            ($d module:path) => {
                #[doc(hidden)]
                pub mod ferrocuda_sim_abi_exports {
                    use $d crate::{Access, WarpOp};
                    use core::fmt;
                    use core::panic::Location;
                    use $d module as simulator;
                    $(
                        #[unsafe(no_mangle)]
                        pub fn $symbol($($arg: $ty),*) $(-> $ret)? {
                            simulator::$name($($arg),*)
                        }
                    )*
                }
            };
        }
    };
}

abi! { $
    /// `threadIdx` of the calling simulated thread.
    fn thread_idx => ferrocuda_sim_abi_thread_idx() -> [u32; 3];
    /// `blockIdx` of the calling simulated thread.
    fn block_idx => ferrocuda_sim_abi_block_idx() -> [u32; 3];
    /// `blockDim` of the running launch.
    fn block_dim => ferrocuda_sim_abi_block_dim() -> [u32; 3];
    /// `gridDim` of the running launch.
    fn grid_dim => ferrocuda_sim_abi_grid_dim() -> [u32; 3];
    /// The lane (0..32) of the calling simulated thread in its warp.
    fn lane_id => ferrocuda_sim_abi_lane_id() -> u32;
    /// `bar.sync 0` at the kernel's `site`: waits until every thread of the block has arrived at
    /// it (a fault when they wait at different ones).
    fn barrier => ferrocuda_sim_abi_barrier(site: &'static Location<'static>);
    /// A shuffle or vote among the lanes of `mask`; this lane's result.
    fn warp_exchange => ferrocuda_sim_abi_warp_exchange(op: WarpOp, mask: u32, value: u32) -> u32;
    /// `activemask`: the lanes of the warp that are at this call together.
    fn active_mask => ferrocuda_sim_abi_active_mask() -> u32;
    /// The base of the block's dynamic shared memory.
    fn shared_base => ferrocuda_sim_abi_shared_base() -> *mut u8;
    /// The bytes of dynamic shared memory the running launch provides.
    fn dynamic_shared_bytes => ferrocuda_sim_abi_dynamic_shared_bytes() -> usize;
    /// A checked shared-memory access, named by `site` in a race report; the address to use.
    fn shared_access_at => ferrocuda_sim_abi_shared_access_at(
        address: *const u8, bytes: usize, access: Access, site: &'static Location<'static>
    ) -> *mut u8;
    /// A global access, for the cross-block race check (call only while it is on).
    fn global_access_checked => ferrocuda_sim_abi_global_access_checked(address: *const u8, bytes: usize, access: Access);
    /// A global or shared atomic, for the cross-block race check (call only while it is on).
    fn global_atomic_checked => ferrocuda_sim_abi_global_atomic_checked();
    /// A `__threadfence`, for the cross-block race check (call only while it is on).
    fn thread_fence_checked => ferrocuda_sim_abi_thread_fence_checked();
    /// Stops the calling simulated thread with a fault saying `message`.
    fn fault_with => ferrocuda_sim_abi_fault_with(message: fmt::Arguments<'_>) -> !;
    /// Stops the calling simulated thread on index `index` of the view or tile of `len` elements
    /// of `element_bytes` each at `address`, naming the argument it belongs to and `site`.
    fn index_fault => ferrocuda_sim_abi_index_fault(
        address: usize, element_bytes: usize, index: usize, len: usize, site: &'static Location<'static>
    ) -> !;
    /// `mbarrier.init` of the barrier at `word` (8 shared bytes): `count` arrivals a phase.
    fn mbarrier_init => ferrocuda_sim_abi_mbarrier_init(word: *mut u64, count: u32, site: &'static Location<'static>);
    /// `mbarrier.arrive` on the barrier at `word`, announcing `bytes` of bulk copies (`expect_tx`).
    fn mbarrier_arrive => ferrocuda_sim_abi_mbarrier_arrive(word: *mut u64, bytes: u32, site: &'static Location<'static>);
    /// `bytes` of a bulk copy the calling thread issued landed (`complete_tx` on the barrier).
    fn mbarrier_complete_tx => ferrocuda_sim_abi_mbarrier_complete_tx(word: *mut u64, bytes: u32, site: &'static Location<'static>);
    /// `mbarrier.try_wait.parity`: whether the phase of parity `parity` completed; the calling
    /// thread gives up its turn when not.
    fn mbarrier_try_wait_parity => ferrocuda_sim_abi_mbarrier_try_wait_parity(word: *mut u64, parity: u32, site: &'static Location<'static>) -> bool;
    /// Prints `text` for the calling simulated thread (to its launch's capture or stdout).
    fn print => ferrocuda_sim_abi_print(text: &[u8]);
    /// `%globaltimer`: nanoseconds since the Unix epoch (the host's clock).
    fn global_timer => ferrocuda_sim_abi_global_timer() -> u64;
    /// The constant bank's word at `byte_offset`; a fault when out of the bank or misaligned.
    fn constant_word => ferrocuda_sim_abi_constant_word(byte_offset: usize) -> u32;
}

/// Stops the calling simulated thread with a fault saying `message` (`format_args!`).
#[inline(always)]
pub fn fault(message: fmt::Arguments<'_>) -> ! {
    fault_with(message)
}

/// Checks an access of `bytes` at `address` against the launch's shared memory (and for races);
/// the caller's source location names the access in a race report.
#[inline(always)]
#[track_caller]
pub fn shared_access(address: *const u8, bytes: usize, access: Access) -> *mut u8 {
    shared_access_at(address, bytes, access, Location::caller())
}

/// Reports a global-memory access to the cross-block race check, when a running launch has it on;
/// outside a kernel, stops with [`OUTSIDE_KERNEL`] before the caller touches memory.
#[inline(always)]
pub fn global_access(address: *const u8, bytes: usize, access: Access) {
    if !in_kernel() {
        outside_kernel();
    }
    if LAUNCHES_CHECKED.load(Ordering::Relaxed) != 0 {
        global_access_checked(address, bytes, access);
    }
}

/// Reports a global or shared atomic to the cross-block race check, when on; outside a kernel,
/// stops as [`global_access`] does.
#[inline(always)]
pub fn global_atomic() {
    if !in_kernel() {
        outside_kernel();
    }
    if LAUNCHES_CHECKED.load(Ordering::Relaxed) != 0 {
        global_atomic_checked();
    }
}

/// Reports a `__threadfence` to the cross-block race check, when on.
#[inline(always)]
pub fn thread_fence() {
    if LAUNCHES_CHECKED.load(Ordering::Relaxed) != 0 {
        thread_fence_checked();
    }
}
