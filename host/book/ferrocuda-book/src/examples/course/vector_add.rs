//! course-vector-add: vector addition with explicit copies and event timing (IT4I course,
//! hands-on 2a, `vecAddKernel`), on the course's inputs `A = 1`, `B = 2`; `--inputs varied`
//! varies them by element, so that a wrong index cannot give the right sum.
use super::vector_add_common::{A_VALUE, B_VALUE, N, THREADS_PER_BLOCK, varied, vector_add};
use crate::example::{Example, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

/// course-vector-add.
pub struct CourseVectorAdd;

/// course-vector-add's own option.
#[derive(clap::Args, Clone, Debug)]
pub struct CourseVectorAddOptions {
    /// course (every A = 1, B = 2, as the course) or varied (A and B varied by element, so a wrong index shows)
    #[arg(long, value_name = "I", value_enum, default_value_t = Inputs::Course, hide_possible_values = true)]
    pub inputs: Inputs,
}

/// The inputs A and B.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// The course's `h_A[i] = 1.0f`, `h_B[i] = 2.0f`.
    Course,
    /// [`varied`].
    Varied,
}

impl Inputs {
    /// Element `i` of A and of B.
    pub fn element(self, i: usize) -> (f32, f32) {
        match self {
            Inputs::Course => (A_VALUE, B_VALUE),
            Inputs::Varied => varied(i),
        }
    }
}

impl Example for CourseVectorAdd {
    const ID: &'static str = "course-vector-add";
    const DESCRIPTION: &'static str =
        "C = A + B for 10,000,000 floats, ceil(n/256) blocks of 256 (IT4I course, hands-on 2)";
    const SIZE: Option<Size> = Some(Size::new("elements per array", N, SIMULATOR_SIZE));
    const REPS: bool = true;
    type Args = CourseVectorAddOptions;

    /// The run's peak at `n` elements: A, B and C on the device; on the host A, B, the
    /// downloaded C and the reference's C (the NaN fill that initialises C is dropped before
    /// those exist).
    fn memory(run: &Run<CourseVectorAddOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<f32>(3, run.size)?.host::<f32>(4, run.size)
    }

    /// The course's program with `A = 1`, `B = 2` (or varied inputs); C starts as NaN, so an
    /// element the kernel misses fails the check.
    fn run(gpu: &Gpu, run: &Run<CourseVectorAddOptions>) -> Result<Outcome> {
        let (inputs, n) = (run.args.inputs, run.size);
        let a = try_from_fn(n, |i| inputs.element(i).0)?;
        let b = try_from_fn(n, |i| inputs.element(i).1)?;
        let (a_d, b_d) = (gpu.upload(&a)?, gpu.upload(&b)?);
        let mut c_d = gpu.upload(&try_vec(n, f32::NAN)?)?;
        let stats = time_reps(gpu, run.reps, || vector_add(gpu, &a_d, &b_d, &mut c_d))?;
        let check = Check::compare(
            "C",
            &gpu.download(&c_d)?,
            &reference::course::vector_add::vector_add(&a, &b)?,
            Tolerance::EXACT,
        );
        println!(
            "Launching the kernel with {} blocks of {THREADS_PER_BLOCK} threads, n = {n}, {}",
            n.div_ceil(THREADS_PER_BLOCK as usize),
            match inputs {
                Inputs::Course => "A = 1, B = 2",
                Inputs::Varied => "A and B varied by element",
            }
        );
        println!(
            "Kernel time (median of {}): {:.4} ms, {:.1} GB/s",
            run.reps,
            stats.median_ms,
            gb_per_s(3 * n * size_of::<f32>(), stats.median_ms)
        );
        Ok(Outcome { checks: vec![check] })
    }
}
