//! course-vector-add: vector addition with explicit copies and event timing (IT4I course,
//! hands-on 2a, `vecAddKernel`).
use crate::examples::{Example, Options, Outcome, SIMULATOR_SIZE, Size};
use crate::reference;
use book_kernels::course::vector_add::{VecAddArgs, VecAddKernel};
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result, same_len};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "course-vector-add",
    description: "C = A + B for 10,000,000 floats, ceil(n/256) blocks of 256 (IT4I course, hands-on 2)",
    size: Some(Size {
        unit: "elements per array",
        gpu: N,
        simulator: SIMULATOR_SIZE,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: true,
    flags: &[],
    run,
};

/// The course's `n`.
pub const N: usize = 10_000_000;
/// The course's block size.
pub const THREADS_PER_BLOCK: u32 = 256;

/// The run's peak at `n` elements: A, B and C on the device; on the host A, B, the downloaded C
/// and the reference's C (the NaN fill that initialises C is dropped before those exist).
pub fn memory(_: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    Footprint::NONE.device::<f32>(3, n)?.host::<f32>(4, n)
}

/// `c_d = a_d + b_d`.
pub fn vector_add(
    gpu: &Gpu,
    a_d: &DeviceBuffer<f32>,
    b_d: &DeviceBuffer<f32>,
    c_d: &mut DeviceBuffer<f32>,
) -> Result<()> {
    let n = same_len("vector add", &[a_d.len(), b_d.len(), c_d.len()])?;
    let shape = LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?;
    crate::kernels(gpu)?.launch(
        VecAddKernel,
        shape,
        VecAddArgs {
            a: a_d.view(),
            b: b_d.view(),
            c: c_d.view_mut(),
        },
    )
}

/// The course's program with `A = 1`, `B = 2`, varied by element so a wrong index shows.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = options.size_or(gpu.pick(N, SIMULATOR_SIZE))?;
    let a = try_from_fn(n, |i| 1.0 + (i % 97) as f32)?;
    let b = try_from_fn(n, |i| 2.0 + (i % 89) as f32 * 0.5)?;
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
        "Launching the kernel with {} blocks of {THREADS_PER_BLOCK} threads, n = {n}",
        n.div_ceil(THREADS_PER_BLOCK as usize)
    );
    println!(
        "Kernel time (median of {}): {:.4} ms, {:.1} GB/s",
        options.reps,
        stats.median_ms,
        gb_per_s(3 * n * size_of::<f32>(), stats.median_ms)
    );
    Ok(Outcome { checks: vec![check] })
}
