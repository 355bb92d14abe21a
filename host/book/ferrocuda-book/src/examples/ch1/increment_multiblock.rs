//! ch1-increment-multiblock: many blocks and a bounds test (book §1.3.2).
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::examples::ch1::increment_launch::{THREADS_PER_BLOCK, book_memory, book_program, increment};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};

/// ch1-increment-multiblock: the book's program at n = 1024*1024.
pub struct Ch1IncrementMultiblock;

impl Example for Ch1IncrementMultiblock {
    const ID: &'static str = "ch1-increment-multiblock";
    const DESCRIPTION: &'static str = "ceil(n/256) blocks of 256 threads add b to 1024*1024 ints (book 1.3.2)";
    const SIZE: Option<Size> = Some(Size::new("array elements (ints)", 1024 * 1024, 1024 * 1024));
    type Args = NoOptions;

    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        book_memory(run.size)
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        book_program(gpu, run.size, "increment_multiblock", |a_d, b| {
            increment(gpu, a_d, b, THREADS_PER_BLOCK)
        })
    }
}
