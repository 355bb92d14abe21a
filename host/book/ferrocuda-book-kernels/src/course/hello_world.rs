//! Hello world: every thread prints where it is (IT4I course, hands-on 1, `say_hello`).
use ferrocuda_device::prelude::*;

/// Words of one thread's record: `[thread, block size, block, grid size]`, from which the host
/// derives the global index and the total as the kernel does.
pub const RECORD_WORDS: usize = 4;

/// Arguments of [`say_hello`].
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct SayHelloArgs<'a> {
    /// [`RECORD_WORDS`] words per thread, at its global index: what it printed, for a check the
    /// host can make on the GPU too (where device output reaches stdout, not the program).
    pub records: SliceMut<'a, u32>,
}

/// Prints "Hello from thread t/T, block b/B, my global index is g/G" and records `t, T, b, B`.
#[kernel]
pub fn say_hello(args: SayHelloArgs<'_>) {
    let thread = thread_idx().x;
    let block_size = block_dim().x;
    let block = block_idx().x;
    let grid_size = grid_dim().x;
    let global = block * block_size + thread;
    let total = block_size * grid_size;
    ferrocuda_device::println!(
        "Hello from thread {thread}/{block_size}, block {block}/{grid_size}, my global index is {global}/{total}"
    );
    let first = global * RECORD_WORDS;
    if first + RECORD_WORDS <= args.records.len() {
        for (k, value) in [thread, block_size, block, grid_size].into_iter().enumerate() {
            args.records.set(first + k, value as u32);
        }
    }
}
