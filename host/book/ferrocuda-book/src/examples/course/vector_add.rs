//! course-vector-add: vector addition with explicit copies and event timing (IT4I course,
//! hands-on 2a, `vecAddKernel`), on the course's inputs `A = 1`, `B = 2`; `--inputs varied`
//! varies them by element, so that a wrong index cannot give the right sum.
use super::vector_add_common::{N, THREADS_PER_BLOCK, vector_add};
use crate::defaults::Pick;
use crate::example::{Flag, LegacyExample, LegacySize, Options, Outcome, SIMULATOR_SIZE};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};
use std::str::FromStr;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "course-vector-add",
    description: "C = A + B for 10,000,000 floats, ceil(n/256) blocks of 256 (IT4I course, hands-on 2)",
    size: Some(LegacySize {
        unit: "elements per array",
        gpu: N,
        simulator: SIMULATOR_SIZE,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: true,
    flags: &[INPUTS_FLAG],
    run,
};

/// `--inputs`.
pub const INPUTS_FLAG: Flag = Flag::value(
    "--inputs",
    "I",
    "course (every A = 1, B = 2, as the course) or varied (A and B varied by element, so a wrong index shows) [default: course]",
);

/// The inputs A and B.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Inputs {
    /// The course's `h_A[i] = 1.0f`, `h_B[i] = 2.0f`.
    Course,
    /// `A = 1 + (i mod 97)`, `B = 2 + (i mod 89) / 2`.
    Varied,
}

impl FromStr for Inputs {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "course" => Ok(Inputs::Course),
            "varied" => Ok(Inputs::Varied),
            other => Err(Error::InvalidArgument(format!(
                "--inputs takes course or varied, not `{other}`"
            ))),
        }
    }
}

impl Inputs {
    /// `--inputs`, else the course's.
    pub fn of(options: &Options) -> Result<Self> {
        Ok(options.parsed("--inputs")?.unwrap_or(Inputs::Course))
    }

    /// Element `i` of A and of B.
    pub fn element(self, i: usize) -> (f32, f32) {
        match self {
            Inputs::Course => (1.0, 2.0),
            Inputs::Varied => (1.0 + (i % 97) as f32, 2.0 + (i % 89) as f32 * 0.5),
        }
    }
}

/// The run's peak at `n` elements: A, B and C on the device; on the host A, B, the downloaded C
/// and the reference's C (the NaN fill that initialises C is dropped before those exist).
pub fn memory(_: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    Footprint::NONE.device::<f32>(3, n)?.host::<f32>(4, n)
}

/// The course's program with `A = 1`, `B = 2` (or varied inputs); C starts as NaN, so an element
/// the kernel misses fails the check.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let inputs = Inputs::of(options)?;
    let n = options.size_or(gpu.pick(N, SIMULATOR_SIZE))?;
    let a = try_from_fn(n, |i| inputs.element(i).0)?;
    let b = try_from_fn(n, |i| inputs.element(i).1)?;
    let (a_d, b_d) = (gpu.upload(&a)?, gpu.upload(&b)?);
    let mut c_d = gpu.upload(&try_vec(n, f32::NAN)?)?;
    let stats = time_reps(gpu, options.reps, || vector_add(gpu, &a_d, &b_d, &mut c_d))?;
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
        options.reps,
        stats.median_ms,
        gb_per_s(3 * n * size_of::<f32>(), stats.median_ms)
    );
    Ok(Outcome { checks: vec![check] })
}
