//! course-hello-world: every thread of a `<<<2, 4>>>` launch prints its thread, block and global
//! index (IT4I course, hands-on 1, `say_hello`), through the device library's `println!`.
//!
//! How it is checked: each thread also writes what it printed (its thread and block index and
//! the launch's extents) to a buffer, compared exactly with the CPU's; on the simulator the
//! printed lines themselves are captured and must be exactly the expected set (their order may
//! vary, as on the GPU). On CUDA the lines go to standard output at synchronisation, where the
//! program cannot read them back; `tests/ferrocuda-tests/course_runtime.rs` runs this example as a child process
//! and checks its output there.
use crate::example::{Example, Outcome, Run};
use crate::reference::course::hello_world as reference;
use book_kernels::course::hello_world::{RECORD_WORDS, SayHello, SayHelloArgs};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};
use std::collections::HashMap;

/// course-hello-world.
pub struct CourseHelloWorld;

/// The launch's shape.
#[derive(clap::Args, Clone, Debug)]
pub struct CourseHelloWorldOptions {
    /// blocks of the launch (default 2, as the course)
    #[arg(long, value_name = "N", default_value_t = BLOCKS, hide_default_value = true)]
    pub blocks: usize,
    /// threads per block (default 4, as the course)
    #[arg(long, value_name = "N", default_value_t = THREADS_PER_BLOCK, hide_default_value = true)]
    pub threads: usize,
}

/// The course's launch: 2 blocks of 4 threads.
pub const BLOCKS: usize = 2;
pub const THREADS_PER_BLOCK: usize = 4;

/// The most threads a launch may have: one line each, about 80 bytes in CUDA's printf buffer
/// (1 MiB by default), so beyond some 13,000 lines the driver drops output. 8192 keeps a margin.
pub const MAX_THREADS: usize = 8192;

/// The launch's shape, or one sentence on why it cannot be.
pub fn shape(blocks: usize, threads: usize) -> Result<LaunchShape> {
    let total = blocks.saturating_mul(threads);
    if blocks == 0 || threads == 0 || threads > 1024 || total > MAX_THREADS {
        return Err(Error::InvalidArgument(format!(
            "hello world launches at least one block of 1 to 1024 threads and at most {MAX_THREADS} threads in all (one printed line each), not {blocks} blocks of {threads}"
        )));
    }
    Ok(LaunchShape::new((blocks as u32, 1, 1), (threads as u32, 1, 1)))
}

/// Launches `say_hello` over `blocks` blocks of `threads` threads, writing each thread's record
/// into `records_d` ([`RECORD_WORDS`] per thread); returns once it is queued.
pub fn say_hello(gpu: &Gpu, blocks: usize, threads: usize, records_d: &mut DeviceBuffer<u32>) -> Result<()> {
    let shape = shape(blocks, threads)?;
    if records_d.len() != blocks * threads * RECORD_WORDS {
        return Err(Error::InvalidArgument(format!(
            "say_hello records {RECORD_WORDS} words for each of {} threads, not {} words",
            blocks * threads,
            records_d.len()
        )));
    }
    let args = SayHelloArgs {
        records: records_d.view_mut(),
    };
    crate::kernels(gpu)?.launch(SayHello, shape, args)
}

/// Compares printed text with the expected lines as sets of lines (each exactly once, any
/// order): the lines missing or extra count as mismatches.
pub fn compare_lines(what: &str, printed: &str, expected: &[String]) -> Check {
    // Each line's count printed minus its count expected: the mismatches are the differences.
    let mut surplus: HashMap<&str, isize> = HashMap::new();
    printed.lines().for_each(|line| *surplus.entry(line).or_default() += 1);
    expected.iter().for_each(|line| *surplus.entry(line).or_default() -= 1);
    let mismatches = surplus.values().map(|n| n.unsigned_abs()).sum();
    Check {
        len: expected.len(),
        mismatches,
        ..Check::condition(what, true)
    }
}

impl Example for CourseHelloWorld {
    const ID: &'static str = "course-hello-world";
    const DESCRIPTION: &'static str =
        "every thread of <<<2,4>>> prints its thread, block and global index (IT4I course, hands-on 1)";
    type Args = CourseHelloWorldOptions;

    /// The course's program: the host's three lines around the kernel's, in the order the GPU
    /// prints them (its lines reach standard output when the host waits for the kernel).
    fn run(gpu: &Gpu, run: &Run<CourseHelloWorldOptions>) -> Result<Outcome> {
        let CourseHelloWorldOptions { blocks, threads } = run.args;
        shape(blocks, threads)?;
        // Words no thread writes stay u32::MAX, which no record holds.
        let mut records_d = gpu.upload(&vec![u32::MAX; blocks * threads * RECORD_WORDS])?;

        println!("Launching the kernel with {blocks} blocks, each with {threads} threads");
        // On the simulator the launch runs (and prints) before it returns: its lines are captured
        // and printed after the synchronisation below, where the GPU's appear.
        let ((), printed) = gpu.capture_output(|| say_hello(gpu, blocks, threads, &mut records_d))?;
        println!("Kernel was launched, waiting for its completion");
        gpu.synchronize_output()?;
        if let Some(text) = &printed {
            print!("{text}");
        }
        println!("Kernel execution completed");

        let mut checks = vec![Check::compare(
            "records (thread, block size, block, grid size)",
            &gpu.download(&records_d)?,
            &reference::records(blocks, threads),
            Tolerance::EXACT,
        )];
        if let Some(text) = &printed {
            checks.push(compare_lines(
                "printed lines (simulator, any order)",
                text,
                &reference::lines(blocks, threads),
            ));
        }
        Ok(Outcome { checks })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_compare_as_sets() {
        let expected = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        assert!(compare_lines("x", "c\na\nb\n", &expected).passed());
        assert_eq!(compare_lines("x", "a\nb\n", &expected).mismatches, 1);
        assert_eq!(compare_lines("x", "a\nb\nc\nc\n", &expected).mismatches, 1);
        assert_eq!(compare_lines("x", "a\nb\nd\n", &expected).mismatches, 2);
        assert_eq!(compare_lines("x", "", &expected).mismatches, 3);
    }

    #[test]
    fn shapes_beyond_the_limits_are_refused() {
        assert!(shape(2, 4).is_ok());
        for (blocks, threads) in [(0, 4), (2, 0), (1, 1025), (9, 1024), (usize::MAX, 2)] {
            assert!(shape(blocks, threads).is_err(), "{blocks} x {threads}");
        }
    }
}
