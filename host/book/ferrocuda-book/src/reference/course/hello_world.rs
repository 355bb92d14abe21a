//! What `say_hello` prints and records for a launch of `blocks` blocks of `threads` threads.
use rayon::prelude::*;

/// The line thread `thread` of block `block` prints (the course's C++ `printf` format).
pub fn line(thread: usize, threads: usize, block: usize, blocks: usize) -> String {
    format!(
        "Hello from thread {thread}/{threads}, block {block}/{blocks}, my global index is {}/{}",
        block * threads + thread,
        blocks * threads
    )
}

/// Every thread's line, in global-index order.
pub fn lines(blocks: usize, threads: usize) -> Vec<String> {
    (0..blocks * threads)
        .into_par_iter()
        .map(|global| line(global % threads, threads, global / threads, blocks))
        .collect()
}

/// Every thread's record `[thread, block size, block, grid size]`, in global-index order.
pub fn records(blocks: usize, threads: usize) -> Vec<u32> {
    (0..blocks * threads)
        .into_par_iter()
        .flat_map_iter(|global| [global % threads, threads, global / threads, blocks].map(|v| v as u32))
        .collect()
}
