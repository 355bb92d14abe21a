//! ch1-increment: one block of threads increments an array (book §1.3.1, `incrementTestGPU`).
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::examples::ch1::increment_launch::{MAX_THREADS_PER_BLOCK, book_memory, book_program, increment_one_block};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};

/// The book's array length.
pub const N: usize = 256;

/// ch1-increment.
pub struct Ch1Increment;

impl Example for Ch1Increment {
    const ID: &'static str = "ch1-increment";
    const DESCRIPTION: &'static str = "one block of n threads adds b to each element of an int array (book 1.3.1)";
    const SIZE: Option<Size> =
        Some(Size::new("array elements, one thread each in one block", N, N).at_most(MAX_THREADS_PER_BLOCK));
    type Args = NoOptions;

    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        book_memory(run.size)
    }

    /// The book's program: `a = 1`, `b = 3`, increment on the GPU, check `a == 4`.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        book_program(gpu, run.size, "increment", |a_d, b| increment_one_block(gpu, a_d, b))
    }
}
