//! A simulated thread that overflows its stack ends its launch with a fault naming the kernel,
//! the stack size and the fix, and the process goes on: the next launch, on the same host
//! threads and recycled stacks, runs normally. Without the simulator's guard each of these tests
//! dies of `SIGSEGV`.
use ferrocuda_sim::{self as sim, Launch, SimError, barrier, block_idx};
use std::hint::black_box;

/// Recursion that keeps 4 KiB of each frame live, so `depth` frames need `depth * 4 KiB`.
fn deep(depth: u32) -> u64 {
    let frame = black_box([depth as u8; 4096]);
    if depth == 0 {
        return u64::from(frame[0]);
    }
    deep(depth - 1) + u64::from(black_box(frame)[4095])
}

/// Block `args.0` recurses `args.1` frames deep; the others do not.
fn deep_in_one_block(args: (u32, u32)) {
    let depth = if block_idx()[0] == args.0 { args.1 } else { 1 };
    black_box(deep(depth));
}

/// As [`deep_in_one_block`], after a barrier: its blocks run with a coroutine per thread.
fn deep_after_barrier(args: (u32, u32)) {
    barrier(std::panic::Location::caller());
    deep_in_one_block(args);
}

fn launch_of(kernel: &'static str) -> Launch {
    Launch {
        kernel,
        grid: [8, 1, 1],
        block: [32, 1, 1],
        shared_bytes: 0,
        views: Vec::new(),
    }
}

/// Frames enough to overflow the default stack (1 MiB) several times over.
const TOO_DEEP: u32 = 2048;

fn expect_overflow(result: Result<(), SimError>, kernel: &str, block: u32) {
    let Err(SimError::Fault(fault)) = result else {
        panic!("an overflow must fault its launch, got {result:?}")
    };
    assert_eq!(fault.kernel, kernel);
    assert_eq!(fault.block, [block, 0, 0]);
    let message = fault.to_string();
    for part in [
        "overflowed its 1024 KiB simulator stack",
        "FERROCUDA_SIM_STACK",
        "--release",
    ] {
        assert!(message.contains(part), "{message}");
    }
}

#[test]
fn an_overflow_in_a_block_of_plain_calls_faults_its_launch() {
    let launch = launch_of("deep_in_one_block");
    // SAFETY: the arguments are two numbers.
    unsafe {
        // Block 0 runs with coroutines (it overflows there), block 5 as plain calls on a rayon
        // thread's simulator stack.
        expect_overflow(
            sim::launch(&launch, deep_in_one_block, (0, TOO_DEEP)),
            "deep_in_one_block",
            0,
        );
        expect_overflow(
            sim::launch(&launch, deep_in_one_block, (5, TOO_DEEP)),
            "deep_in_one_block",
            5,
        );
        sim::launch(&launch, deep_in_one_block, (5, 16)).expect("a shallow launch after the overflows runs");
    }
}

#[test]
fn an_overflow_in_a_cooperative_block_faults_its_launch() {
    let launch = launch_of("deep_after_barrier");
    // SAFETY: as above.
    unsafe {
        expect_overflow(
            sim::launch(&launch, deep_after_barrier, (3, TOO_DEEP)),
            "deep_after_barrier",
            3,
        );
        sim::launch(&launch, deep_after_barrier, (3, 16)).expect("a shallow launch after the overflow runs");
    }
}

#[test]
fn a_deep_but_bounded_recursion_fits_the_default_stack() {
    let launch = launch_of("deep_in_one_block");
    // 32 frames of 4 KiB live data each (a debug build's frames hold two or three copies).
    // SAFETY: as above.
    unsafe { sim::launch(&launch, deep_in_one_block, (2, 32)) }.expect("32 frames of 4 KiB fit in 1 MiB");
}
