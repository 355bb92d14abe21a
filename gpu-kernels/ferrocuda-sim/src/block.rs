//! Runs the blocks of a grid: the first with coroutines (to learn whether the kernel cooperates),
//! the others in parallel, with coroutines or, for kernels that never cooperate, as plain calls.
use super::context::{BlockCtx, FaultMessage, ThreadCtx, Wait, enter, restoring};
use super::ops::{can_go_on, resolve_active_masks};
use super::stack::{Exit, Running, overflow_message, stack_bytes};
use super::{ErasedBody, Fault, Launch};
use corosensei::stack::DefaultStack;
use corosensei::{Coroutine, CoroutineResult};
use rayon::prelude::*;
use std::any::Any;
use std::boxed::Box;
use std::cell::{Cell, RefCell};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::string::{String, ToString};
use std::vec::Vec;

std::thread_local! {
    /// Coroutine stacks kept for reuse by this host thread (allocating one costs microseconds).
    static STACKS: RefCell<Vec<DefaultStack>> = const { RefCell::new(Vec::new()) };
}

/// The kernel's arguments, shared by the host threads that run its blocks.
struct SharedArgs(ErasedBody);
// SAFETY: each host thread only reads the arguments (`ErasedBody::run` copies them out of the
// `A: Copy` that `launch` keeps alive) to run its blocks. They are plain values and views (addresses and lengths) of simulator buffers, and a kernel reaches
// memory through the device library only: its global loads and stores are relaxed host atomics
// of the element's width, its atomics host atomics (`ferrocuda-device`'s `arch/host.rs`). So
// threads of different blocks that touch one element at once without an atomic (a race in the
// kernel, legal CUDA with an unspecified result) read or write one of the values written, as on
// a GPU, and make no data race in this process. Shared memory and the rest of a block's state
// belong to the one host thread that runs the block (`BlockCtx` is not `Sync`), whose simulated
// threads run one at a time. `launch` takes only `Copy` arguments, but not only `Sync` ones: its
// caller promises (it is `unsafe`) to pass no state with interior mutability of its own (the
// device library's argument types hold none).
unsafe impl Sync for SharedArgs {}

/// Runs every block of `launch`. Not generic: compiled once, in this crate and at its optimisation
/// level, rather than in each crate that launches (a debug build's, at opt-level 0).
pub(crate) fn run_grid(launch: &Launch, body: ErasedBody) -> Result<(), Fault> {
    let [gx, gy, gz] = launch.grid.map(|d| d as usize);
    let block_idx = |id: usize| [(id % gx) as u32, (id / gx % gy) as u32, (id / (gx * gy)) as u32];
    let args = SharedArgs(body);
    let output = super::output::launch_sink();
    let checks = super::current_checks();
    let global_race = checks
        .global_race
        .then(|| std::sync::Arc::new(super::global_race::GlobalRace::new()));
    let mut first = BlockCtx::new(
        launch.kernel,
        block_idx(0),
        launch.block,
        launch.grid,
        launch.shared_bytes,
        true,
        checks,
    );
    let views: std::sync::Arc<[crate::ViewInfo]> = launch.views.as_slice().into();
    first.output = output.clone();
    first.global_race = global_race.clone();
    first.views = views.clone();
    run_block(&first, args.0)?;
    let cooperative = first.cooperative.get();
    (1..gx * gy * gz).into_par_iter().try_for_each(|id| {
        let mut block = BlockCtx::new(
            launch.kernel,
            block_idx(id),
            launch.block,
            launch.grid,
            launch.shared_bytes,
            cooperative,
            checks,
        );
        block.output = output.clone();
        block.global_race = global_race.clone();
        block.views = views.clone();
        let args = &args;
        run_block(&block, args.0)
    })
}

fn run_block(block: &BlockCtx, body: ErasedBody) -> Result<(), Fault> {
    let threads: Vec<ThreadCtx> = (0..block.threads)
        .map(|rank| ThreadCtx {
            thread_idx: block.thread_idx(rank),
            rank,
            wait: Cell::new(Wait::Running),
            barrier_generation: Cell::new(0),
            yielder: Cell::new(std::ptr::null()),
            fenced: Cell::new(false),
            barrier_site: Cell::new(None),
        })
        .collect();
    if block.can_suspend {
        run_cooperative(block, &threads, body)
    } else {
        run_plain(block, &threads, body)
    }
}

type Thread = Coroutine<(), (), Exit, DefaultStack>;

/// A stack for a simulated thread, from this host thread's pool or newly mapped.
fn simulator_stack(block: &BlockCtx, thread: &ThreadCtx) -> Result<DefaultStack, Fault> {
    match STACKS.with_borrow_mut(Vec::pop) {
        Some(stack) => Ok(stack),
        None => DefaultStack::new(stack_bytes()).map_err(|e| {
            thread_fault(
                block,
                thread,
                std::format!(
                    "cannot map a {} KiB simulator stack for the thread: {e} (set FERROCUDA_SIM_STACK smaller)",
                    stack_bytes() >> 10
                ),
            )
        }),
    }
}

/// The fault of a thread that overflowed its stack.
fn overflow(block: &BlockCtx, thread: &ThreadCtx) -> Fault {
    thread_fault(block, thread, overflow_message())
}

/// A fault of `thread` of `block`, saying `message`.
fn thread_fault(block: &BlockCtx, thread: &ThreadCtx, message: String) -> Fault {
    Fault {
        kernel: block.kernel,
        block: block.block_idx,
        thread: Some(thread.thread_idx),
        message,
    }
}

/// Runs each thread of a block that never suspends to completion, one after another, as plain
/// calls on one simulator stack (so the overflow guard watches them as it watches coroutines).
fn run_plain(block: &BlockCtx, threads: &[ThreadCtx], body: ErasedBody) -> Result<(), Fault> {
    let Some(first) = threads.first() else { return Ok(()) };
    let stack = simulator_stack(block, first)?;
    let limit = Running::limit_of(&stack);
    let current = Cell::new(0usize);
    let outcome: Cell<Result<(), Fault>> = Cell::new(Ok(()));
    let (block_ptr, threads_ptr, current_ptr, outcome_ptr): (
        *const BlockCtx,
        *const [ThreadCtx],
        *const Cell<usize>,
        _,
    ) = (block, threads, &current, &outcome as *const Cell<Result<(), Fault>>);
    let mut coroutine: Thread = Coroutine::with_stack(stack, move |_, ()| {
        // SAFETY: the block, its threads and the two cells outlive the coroutine, which finishes
        // (or is abandoned by the overflow guard) before `run_plain` returns.
        let (block, threads, current, outcome) = unsafe { (&*block_ptr, &*threads_ptr, &*current_ptr, &*outcome_ptr) };
        for (rank, thread) in threads.iter().enumerate() {
            current.set(rank);
            if let Err(payload) = enter(thread, block, || catch_unwind(AssertUnwindSafe(|| body.run()))) {
                outcome.set(Err(fault_of(block, thread, payload)));
                break;
            }
        }
        Exit::Returned
    });
    let running = Running::new(&coroutine, limit);
    match restoring(|| running.during(|| coroutine.resume(()))) {
        CoroutineResult::Return(Exit::Returned) => {}
        CoroutineResult::Return(Exit::StackOverflow) => return Err(overflow(block, &threads[current.get()])),
        CoroutineResult::Yield(()) => unreachable!("a block that never suspends yielded"),
    }
    STACKS.with_borrow_mut(|stacks| stacks.push(coroutine.into_stack()));
    outcome.into_inner()
}

fn run_cooperative(block: &BlockCtx, threads: &[ThreadCtx], body: ErasedBody) -> Result<(), Fault> {
    let mut coroutines: Vec<Option<(Thread, Running)>> = Vec::with_capacity(threads.len());
    for thread in threads {
        let stack = simulator_stack(block, thread)?;
        let limit = Running::limit_of(&stack);
        let thread: *const ThreadCtx = thread;
        let coroutine = Coroutine::with_stack(stack, move |yielder, ()| {
            // SAFETY: `threads` outlives every coroutine of this block (they are dropped or
            // finished before `run_cooperative` returns).
            unsafe { (*thread).yielder.set(yielder) };
            body.run();
            Exit::Returned
        });
        let running = Running::new(&coroutine, limit);
        coroutines.push(Some((coroutine, running)));
    }
    // Each round gives every warp a turn; a warp's turn resumes its lanes that can go on, in
    // rank order, pass after pass, until none can (all wait at a barrier, or for lanes of other
    // warps) or `PASSES_PER_TURN` passes have run. Lanes of one warp thus meet at their shuffles
    // back to back while the warp's stacks are in cache, no lane is resumed only to find it must
    // wait again, and the cap keeps a warp spinning on another warp's progress from starving it.
    const PASSES_PER_TURN: usize = 64;
    let mut live = threads.len();
    while live > 0 {
        let before = block.progress.get();
        for (warp, slots) in threads.chunks(32).zip(coroutines.chunks_mut(32)) {
            for _ in 0..PASSES_PER_TURN {
                let mut resumed = false;
                for (thread, slot) in warp.iter().zip(slots.iter_mut()) {
                    let Some((coroutine, running)) = slot else { continue };
                    if !can_go_on(block, thread) {
                        continue;
                    }
                    resumed = true;
                    match enter(thread, block, || {
                        catch_unwind(AssertUnwindSafe(|| running.during(|| coroutine.resume(()))))
                    }) {
                        Ok(CoroutineResult::Yield(())) => {}
                        Ok(CoroutineResult::Return(Exit::StackOverflow)) => return Err(overflow(block, thread)),
                        Ok(CoroutineResult::Return(Exit::Returned)) => {
                            thread.wait.set(Wait::Exited);
                            block.bump();
                            live -= 1;
                            if let Some((done, _)) = slot.take() {
                                STACKS.with_borrow_mut(|stacks| stacks.push(done.into_stack()));
                            }
                        }
                        Err(payload) => return Err(fault_of(block, thread, payload)),
                    }
                }
                if !resumed {
                    break;
                }
            }
        }
        if live > 0 && !resolve_active_masks(block, threads) && block.progress.get() == before {
            return Err(deadlock(block, threads));
        }
    }
    Ok(())
}

fn fault_of(block: &BlockCtx, thread: &ThreadCtx, payload: Box<dyn Any + Send>) -> Fault {
    let message = match payload.downcast::<FaultMessage>() {
        Ok(fault) => fault.0,
        Err(payload) => match payload.downcast::<String>() {
            Ok(text) => std::format!("panicked: {text}"),
            Err(payload) => payload
                .downcast::<&str>()
                .map_or("panicked".to_string(), |text| std::format!("panicked: {text}")),
        },
    };
    thread_fault(block, thread, message)
}

/// Explains why no thread of the block can move on.
fn deadlock(block: &BlockCtx, threads: &[ThreadCtx]) -> Fault {
    let count = |w: Wait| threads.iter().filter(|t| t.wait.get() == w).count();
    let at_barrier = count(Wait::Barrier);
    let exited = threads.iter().find(|t| t.wait.get() == Wait::Exited);
    let in_warp = threads.iter().find(|t| matches!(t.wait.get(), Wait::Warp(_)));
    let barrier_site = threads
        .iter()
        .find(|t| t.wait.get() == Wait::Barrier)
        .and_then(|t| t.barrier_site.get())
        .map_or(String::new(), |site| std::format!(" at {site}"));
    let (thread, message) = match (at_barrier, exited, in_warp) {
        (n, Some(gone), _) if n > 0 => (
            gone.thread_idx,
            std::format!(
                "a barrier inside a branch that not every thread takes: {n} of {} threads wait at the __syncthreads{barrier_site}, \
                 {} exited without reaching it (this thread among them)",
                block.threads,
                count(Wait::Exited)
            ),
        ),
        (_, _, Some(t)) => {
            let Wait::Warp(op) = t.wait.get() else {
                unreachable!("matched a warp wait")
            };
            (
                t.thread_idx,
                std::format!(
                    "{op} cannot complete: lanes named in its mask never arrive ({} threads wait at barriers, {} exited)",
                    at_barrier,
                    count(Wait::Exited)
                ),
            )
        }
        _ => (
            threads[0].thread_idx,
            std::format!(
                "threads wait at different barriers ({at_barrier} of {} at one{barrier_site})",
                block.threads
            ),
        ),
    };
    Fault {
        kernel: block.kernel,
        block: block.block_idx,
        thread: Some(thread),
        message,
    }
}
