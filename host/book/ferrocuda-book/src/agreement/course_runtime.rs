//! The course's runtime examples on both backends: `say_hello`'s records (its printed lines
//! cannot be read back on CUDA: `tests/ferrocuda-tests/course_runtime.rs` checks them from a child process),
//! the vector add over managed memory, and over chunks on streams.
use super::{Comparison, ramp_real};
use crate::examples::course::hello_world;
use crate::examples::course::vector_add_common::vector_add;
use crate::examples::course::vector_add_streams::{self, Program, Setup};
use book_kernels::course::hello_world::RECORD_WORDS;
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

/// The rows of course-hello-world, course-vector-add-managed and course-vector-add-streams.
pub(super) fn course_runtime(c: &mut Comparison) -> Result<()> {
    c.compare("say_hello", Tolerance::EXACT, |gpu| {
        let (blocks, threads) = (hello_world::BLOCKS, hello_world::THREADS_PER_BLOCK);
        let mut records_d = gpu.upload(&vec![u32::MAX; blocks * threads * RECORD_WORDS])?;
        // The simulator's lines are captured (and dropped) to keep the table readable; the GPU's
        // reach standard output at the synchronisation.
        gpu.capture_output(|| hello_world::say_hello(gpu, blocks, threads, &mut records_d))?;
        gpu.synchronize_output()?;
        gpu.download(&records_d)
    })?;
    c.compare("vec_add_kernel (managed memory)", Tolerance::EXACT, |gpu| {
        let a = gpu.managed_from(&ramp_real::<f32>(100_003, 5.0))?;
        let b = gpu.managed_from(&ramp_real::<f32>(100_003, 9.0))?;
        let mut out = gpu.managed(100_003)?;
        vector_add(gpu, &a, &b, &mut out)?;
        out.to_vec()
    })?;
    c.compare("vec_add_kernel (7 chunks over 3 streams)", Tolerance::EXACT, |gpu| {
        let mut setup = Setup::new(gpu, 100_003, 3)?;
        let program = Program::Pipelined { chunks: 7, streams: 3 };
        vector_add_streams::timed(gpu, &mut setup, program).map(|(_, c)| c)
    })
}
