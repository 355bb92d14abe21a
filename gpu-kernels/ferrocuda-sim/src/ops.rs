//! The simulated cooperative operations: barriers, warp shuffles and votes, `activemask`, and
//! checked shared-memory accesses.
use super::context::{BlockCtx, ThreadCtx, Wait, fault, suspend, with_thread};

pub use ferrocuda_sim_abi::WarpOp;

/// `bar.sync 0`: waits until every thread of the block has arrived.
pub fn barrier(site: &'static core::panic::Location<'static>) {
    let generation = with_thread(|t, b| {
        // Every thread of a generation must wait at the same `__syncthreads`: one at another is a
        // barrier inside a divergent branch (undefined in CUDA, though some GPUs let it pass).
        match b.barrier_site.get() {
            Some(other) if other != site => fault(std::format!(
                "a barrier inside a divergent branch: this thread is at the __syncthreads at {site} while \
                 other threads of its block wait at the one at {other} (every thread must reach the same barrier)"
            )),
            _ => b.barrier_site.set(Some(site)),
        }
        b.cooperative.set(true);
        t.wait.set(Wait::Barrier);
        t.barrier_site.set(Some(site));
        b.bump();
        let generation = b.barrier_generation.get();
        t.barrier_generation.set(generation);
        let arrived = b.barrier_arrived.get() + 1;
        if arrived == b.threads {
            b.barrier_arrived.set(0);
            b.barrier_generation.set(generation + 1);
            b.barrier_site.set(None);
        } else {
            b.barrier_arrived.set(arrived);
        }
        generation
    });
    while with_thread(|_, b| b.barrier_generation.get() == generation) {
        suspend("a barrier");
    }
    with_thread(|t, _| {
        t.wait.set(Wait::Running);
        t.barrier_site.set(None);
    });
}

/// Stops the thread on index `index` of the view or tile of `len` elements of `element_bytes`
/// each at `address`, with a fault naming the kernel argument the view belongs to (a field of the
/// argument struct, or a part of it), or the shared tile, and `site`, the kernel's line. Outside a
/// kernel, panics with the same sentence.
pub fn index_fault(
    address: usize,
    element_bytes: usize,
    index: usize,
    len: usize,
    site: &'static core::panic::Location<'static>,
) -> ! {
    let what = super::context::with_block_if_any(|b| {
        let shared = b.shared.borrow().as_ptr() as usize;
        if (shared..shared + b.shared_bytes.max(1)).contains(&address) {
            return std::format!("a shared tile of {len} elements");
        }
        let field = b
            .views
            .iter()
            .find(|v| (v.start..v.start + v.bytes.max(1)).contains(&address));
        match field {
            Some(v) if v.start == address && v.bytes == len * element_bytes => {
                std::format!("the argument `{}` ({len} elements)", v.field)
            }
            Some(v) => std::format!(
                "a view of {len} elements inside the argument `{}` (from its element {})",
                v.field,
                (address - v.start) / element_bytes.max(1)
            ),
            None => std::format!("a view of {len} elements"),
        }
    })
    .unwrap_or_else(|| std::format!("a view of {len} elements"));
    fault(std::format!("index {index} is out of bounds of {what}, at {site}"))
}

/// A shuffle or vote among the lanes of `mask`: posts this lane's `value`, waits until every lane
/// of the mask has posted the same operation, and returns this lane's result.
pub fn warp_exchange(op: WarpOp, mask: u32, value: u32) -> u32 {
    let posted = with_thread(|t, b| {
        b.cooperative.set(true);
        let (warp, lane) = (t.rank / 32, t.rank % 32);
        if mask & (1 << lane) == 0 {
            fault(std::format!(
                "{} with mask {mask:#010x}, which does not name the calling lane {lane}",
                op.name()
            ));
        }
        t.wait.set(Wait::Warp(op.name()));
        b.bump();
        {
            let mut warps = b.warps.borrow_mut();
            let state = &mut warps[warp];
            state.posted |= 1 << lane;
            state.op[lane] = op;
            state.mask[lane] = mask;
            state.value[lane] = value;
        }
        complete_if_all_posted(b, warp, op, mask);
        // The lane that completes the operation has its result at once: it need not suspend.
        match b.warps.borrow_mut()[warp].take_result(lane) {
            Some(result) => {
                t.wait.set(Wait::Running);
                Ok(result)
            }
            None => Err((warp, lane)),
        }
    });
    posted.unwrap_or_else(|(warp, lane)| wait_for_result(warp, lane, "a warp shuffle or vote"))
}

/// The lanes named in `mask`, lowest first.
pub(crate) fn lanes(mask: u32) -> impl Iterator<Item = usize> {
    let mut rest = mask;
    core::iter::from_fn(move || {
        let lane = (rest != 0).then(|| rest.trailing_zeros() as usize);
        rest &= rest.wrapping_sub(1);
        lane
    })
}

/// When every lane of `mask` has posted `op` with `mask`, computes all their results. Costs one
/// test of the posted lanes until the last lane of the mask arrives, then one pass over the mask.
fn complete_if_all_posted(b: &BlockCtx, warp: usize, op: WarpOp, mask: u32) {
    let mut warps = b.warps.borrow_mut();
    let state = &mut warps[warp];
    if state.posted & mask != mask {
        return;
    }
    // Lanes may name different source lanes or deltas (a register operand of `shfl.sync`, as
    // `__shfl_sync(mask, v, lane)` with a per-lane `lane`); they must agree on the kind and mask.
    let kind = core::mem::discriminant(&op);
    if !lanes(mask).all(|l| core::mem::discriminant(&state.op[l]) == kind && state.mask[l] == mask) {
        return;
    }
    match op {
        WarpOp::Ballot => {
            let ballot = lanes(mask)
                .filter(|&l| state.value[l] != 0)
                .fold(0u32, |m, l| m | 1 << l);
            lanes(mask).for_each(|l| state.result[l] = ballot);
        }
        WarpOp::SyncWarp => lanes(mask).for_each(|l| state.result[l] = 0),
        _ => {
            for lane in lanes(mask) {
                let source = state.op[lane].source(lane);
                if mask & (1 << source) == 0 {
                    fault(std::format!(
                        "{} in lane {lane} reads lane {source}, which mask {mask:#010x} does not name",
                        op.name()
                    ));
                }
                state.result[lane] = state.value[source];
            }
        }
    }
    state.posted &= !mask;
    state.ready |= mask;
    // Every completed shuffle, vote or `__syncwarp` orders the lanes of its mask.
    if let Some(race) = &b.race {
        race.borrow_mut().warp_synced(warp, mask);
    }
    b.bump();
}

/// `activemask`: the lanes of the warp that are at this call together. Resolved by the block's
/// scheduler once every live lane of the warp waits somewhere (`resolve_active_masks`).
pub fn active_mask() -> u32 {
    let (warp, lane) = with_thread(|t, b| {
        b.cooperative.set(true);
        t.wait.set(Wait::ActiveMask);
        b.at_active_mask.set(b.at_active_mask.get() + 1);
        b.bump();
        (t.rank / 32, t.rank % 32)
    });
    wait_for_result(warp, lane, "activemask")
}

/// Suspends the calling lane until its warp operation has a result, and returns it (the caller
/// found none yet).
fn wait_for_result(warp: usize, lane: usize, what: &str) -> u32 {
    loop {
        suspend(what);
        let result = with_thread(|t, b| {
            let result = b.warps.borrow_mut()[warp].take_result(lane);
            if result.is_some() {
                t.wait.set(Wait::Running);
            }
            result
        });
        if let Some(result) = result {
            return result;
        }
    }
}

/// Whether resuming `t` lets it move on: it has not started or runs, the barrier it waits at was
/// released, or its warp operation has its result. The scheduler resumes only such threads.
pub(crate) fn can_go_on(b: &BlockCtx, t: &ThreadCtx) -> bool {
    match t.wait.get() {
        Wait::Running => true,
        Wait::Barrier => t.barrier_generation.get() != b.barrier_generation.get(),
        Wait::Warp(_) | Wait::ActiveMask => b.warps.borrow()[t.rank / 32].ready & (1 << (t.rank % 32)) != 0,
        Wait::Exited => false,
    }
}

/// For each warp whose live lanes all wait, gives the lanes waiting at `activemask` the set of
/// those lanes. Returns true when it resolved any. Returns at once while no thread waits at
/// `activemask`, so a scheduling round of a kernel without it does not scan the block.
pub(crate) fn resolve_active_masks(b: &BlockCtx, threads: &[ThreadCtx]) -> bool {
    if b.at_active_mask.get() == 0 {
        return false;
    }
    let mut resolved = 0;
    for (w, warp_threads) in threads.chunks(32).enumerate() {
        let all_waiting = warp_threads.iter().all(|t| t.wait.get() != Wait::Running);
        let at_mask = warp_threads.iter().filter(|t| t.wait.get() == Wait::ActiveMask);
        let mask = at_mask.fold(0u32, |m, t| m | 1 << (t.rank % 32));
        if all_waiting && mask != 0 {
            let mut warps = b.warps.borrow_mut();
            for lane in lanes(mask) {
                warps[w].result[lane] = mask;
                warp_threads[lane].wait.set(Wait::Running);
            }
            warps[w].ready |= mask;
            resolved += mask.count_ones() as usize;
        }
    }
    b.at_active_mask.set(b.at_active_mask.get() - resolved);
    if resolved > 0 {
        b.bump();
    }
    resolved > 0
}

/// The base of the block's dynamic shared memory.
pub fn shared_base() -> *mut u8 {
    with_thread(|_, b| {
        b.cooperative.set(true);
        b.shared.borrow_mut().as_mut_ptr().cast()
    })
}

/// The bytes of dynamic shared memory the running launch provides.
pub fn dynamic_shared_bytes() -> usize {
    with_thread(|_, b| b.shared_bytes)
}

pub use ferrocuda_sim_abi::Access;

/// Checks an access of `bytes` bytes at `address` against the launch's shared memory and the
/// bytes written so far, and against the other threads' accesses since the last barrier when
/// the race detector is on ([`super::Checks::shared_race`]); records it, and returns the address
/// to use. The caller's source location names the access in a race report.
#[track_caller]
pub fn shared_access(address: *const u8, bytes: usize, access: Access) -> *mut u8 {
    shared_access_at(address, bytes, access, core::panic::Location::caller())
}

/// [`shared_access`] with the access's source location given: the device library's entry point
/// (`ferrocuda-sim-abi`), through which `#[track_caller]` does not reach.
pub fn shared_access_at(address: *const u8, bytes: usize, access: Access, site: crate::race::Site) -> *mut u8 {
    with_thread(|t, b| {
        let base = b.shared.borrow_mut().as_mut_ptr() as usize;
        let offset = (address as usize).wrapping_sub(base);
        let verb = match access {
            Access::Read => "read",
            Access::Write => "write",
            Access::ReadWrite => "atomic",
        };
        if offset.checked_add(bytes).is_none_or(|end| end > b.shared_bytes) {
            fault(std::format!(
                "shared-memory {verb} out of bounds: bytes {}..{} of the {} bytes this launch provides",
                offset as isize,
                offset as isize + bytes as isize,
                b.shared_bytes
            ));
        }
        let mut written = b.written.borrow_mut();
        if access != Access::Write && !written[offset..offset + bytes].iter().all(|&w| w) {
            fault(std::format!(
                "{verb} of shared memory never written in this launch: bytes {offset}..{} (a missing barrier, or a \
                 missing initialisation)",
                offset + bytes
            ));
        }
        if access != Access::Read {
            written[offset..offset + bytes].fill(true);
        }
        if let Some(race) = &b.race
            && let Err(message) = race.borrow_mut().access(b, t.rank, offset, bytes, access, site)
        {
            drop(written);
            fault(message);
        }
        (base + offset) as *mut u8
    })
}
