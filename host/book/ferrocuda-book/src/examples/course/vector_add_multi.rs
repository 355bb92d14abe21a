//! course-vector-add-multi: `C = A + B` split over two GPUs (IT4I course, hands-on 3,
//! `03_vector_add_multigpu`), both ways the course writes it:
//! - explicit (task 3a, `vec_add_multi_GPU`): one page-locked host copy of A, B and C
//!   (`cudaHostAlloc`); device `i` allocates its piece, copies its piece of A and B in, launches
//!   and copies its piece of C back;
//! - managed (task 3b, `vec_add_multi_GPU_managed`): A, B and C in one managed allocation each;
//!   device `i` launches on its piece (the course's sub-pointers, here sub-views), the pages
//!   migrating on demand (the course's prefetch is commented out, "think about implications").
//!
//! The split is the course's, `n0 = floor(n/2)`, `n1 = n - n0`; with `--devices D`, piece `i` is
//! `[i n / D, (i + 1) n / D)`. `--devices` as in chapter 4: logical devices round-robin on the
//! GPUs present (by default the GPUs present when at least two, else the course's two on GPU 0
//! or on simulators). Inputs are the course's `A = 1`, `B = 2`; C starts as NaN, so an element
//! no device writes fails the check.
use super::vector_add_common::{A_VALUE, Arrays, B_VALUE, N, THREADS_PER_BLOCK, launch, range_of, vector_add};
use crate::example::{Example, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::examples::logical_devices::DevicesOption;
use crate::reference;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::Stats;
use ferrocuda::verify::{Check, Tolerance};
use std::ops::Range;
use std::time::Instant;

/// course-vector-add-multi.
pub struct CourseVectorAddMulti;

/// The course's device count.
pub const COURSE_DEVICES: usize = 2;

/// Piece `i` of `n` elements over `devices`: `[i n / D, (i + 1) n / D)`; for two devices the
/// course's `n0 = floor(n/2)` and `n1 = n - n0`.
pub fn piece(n: usize, devices: usize, i: usize) -> Range<usize> {
    let at = |k: usize| ((k as u128 * n as u128) / devices as u128) as usize;
    at(i)..at(i + 1)
}

/// Task 3a: one round of explicit copies and launches on every device; returns each device's
/// kernel time (events) and the host's end-to-end time, ms.
fn explicit_round(gpus: &[Gpu], a: &[f32], b: &[f32], c: &mut [f32]) -> Result<(Vec<f64>, f64)> {
    let n = a.len();
    let wall = Instant::now();
    let mut on_device = Vec::with_capacity(gpus.len());
    for (i, gpu) in gpus.iter().enumerate() {
        let range = piece(n, gpus.len(), i);
        let (a_d, b_d) = (gpu.upload(&a[range.clone()])?, gpu.upload(&b[range.clone()])?);
        let mut c_d = gpu.zeros::<f32>(range.len())?;
        let start = gpu.record_event(None)?;
        // Queued: the next device's copies run while this kernel does.
        vector_add(gpu, &a_d, &b_d, &mut c_d)?;
        let stop = gpu.record_event(None)?;
        on_device.push((c_d, start, stop, range));
    }
    let mut kernel_ms = Vec::with_capacity(gpus.len());
    for (gpu, (c_d, start, stop, range)) in gpus.iter().zip(on_device) {
        gpu.download_into(&c_d, &mut c[range])?;
        kernel_ms.push(start.elapsed_ms(&stop)?);
    }
    Ok((kernel_ms, wall.elapsed().as_secs_f64() * 1e3))
}

/// One round of task 3b: the host writes A, B and C (so the pages start on the host, as in the
/// course's program), every device adds its piece, the host reads C; returns each device's
/// kernel time and the end-to-end time, ms, and adds the elements of C that are not `A + B` to
/// `wrong`.
fn managed_round(gpus: &[Gpu], arrays: &mut Arrays, wrong: &mut usize) -> Result<(Vec<f64>, f64)> {
    let n = arrays.a.len();
    arrays.fill()?;
    let wall = Instant::now();
    let mut events = Vec::with_capacity(gpus.len());
    for (i, gpu) in gpus.iter().enumerate() {
        let range = piece(n, gpus.len(), i);
        let start = gpu.record_event(None)?;
        launch(gpu, None, range_of(arrays.args(), &range)?)?;
        events.push((start, gpu.record_event(None)?));
    }
    // The host reads C once every device is done (reading waits only for the device that
    // allocated it).
    for gpu in gpus {
        gpu.synchronize()?;
    }
    *wrong += arrays.wrong()?;
    let end_to_end_ms = wall.elapsed().as_secs_f64() * 1e3;
    let kernel_ms = events
        .iter()
        .map(|(start, stop)| start.elapsed_ms(stop))
        .collect::<Result<_>>()?;
    Ok((kernel_ms, end_to_end_ms))
}

/// A warm-up round and `reps` timed rounds of `round` (each device's kernel time and the
/// end-to-end time, ms); prints their medians as `label`.
fn rounds(label: &str, devices: usize, reps: usize, mut round: impl FnMut() -> Result<(Vec<f64>, f64)>) -> Result<()> {
    let (mut end_to_end, mut kernels) = (Vec::new(), vec![Vec::new(); devices]);
    for rep in 0..=reps {
        let (kernel_ms, wall_ms) = round()?;
        if rep > 0 {
            end_to_end.push(wall_ms);
            kernels.iter_mut().zip(kernel_ms).for_each(|(k, ms)| k.push(ms));
        }
    }
    let per_device: Vec<String> = kernels
        .iter_mut()
        .enumerate()
        .map(|(i, k)| format!("device {i} {:.4} ms", Stats::of(k).median_ms))
        .collect();
    println!(
        " {label}: {:.4} ms end to end (host timer, median of {reps}); kernels (events): {}",
        Stats::of(&mut end_to_end).median_ms,
        per_device.join(", ")
    );
    Ok(())
}

impl Example for CourseVectorAddMulti {
    const ID: &'static str = "course-vector-add-multi";
    const DESCRIPTION: &'static str = "C = A + B on 10,000,000 floats split over two GPUs, explicit copies and managed memory (IT4I course, hands-on 3)";
    const SIZE: Option<Size> = Some(Size::new(
        "elements per array, split over the devices",
        N,
        SIMULATOR_SIZE,
    ));
    const REPS: bool = true;
    type Args = DevicesOption;

    /// The run's peak at `n` elements: A, B and C in managed memory, counted on the device and
    /// on the host (the explicit phase's device pieces and pinned arrays, freed before, are no
    /// larger), and the CPU's C on the host.
    fn memory(run: &Run<DevicesOption>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.mirrored::<f32>(3, run.size)?.host::<f32>(1, run.size)
    }

    /// The course's two programs on `--devices` logical devices, a warm-up round then `reps` timed
    /// rounds of each; C checked exactly after each program's last round.
    fn run(gpu: &Gpu, run: &Run<DevicesOption>) -> Result<Outcome> {
        let n = run.size;
        let gpus = run.args.open(gpu, COURSE_DEVICES)?;
        let pieces: Vec<String> = (0..gpus.len())
            .map(|i| format!("n{i} = {}", piece(n, gpus.len(), i).len()))
            .collect();
        println!(
            "Vector addition on {} devices, n = {n} ({}), A = {A_VALUE}, B = {B_VALUE}, {THREADS_PER_BLOCK} threads per block",
            gpus.len(),
            pieces.join(", ")
        );
        let expected;
        let mut checks = Vec::new();
        {
            // Task 3a, on one page-locked host copy (page-locked for the first device's context;
            // the others copy it as ordinary memory).
            let (mut a, mut b, mut c) = (gpus[0].pinned(n)?, gpus[0].pinned(n)?, gpus[0].pinned(n)?);
            a.as_mut_slice()?.fill(A_VALUE);
            b.as_mut_slice()?.fill(B_VALUE);
            expected = reference::course::vector_add::vector_add(a.as_slice()?, b.as_slice()?)?;
            rounds("explicit copies (vec_add_multi_GPU)", gpus.len(), run.reps, || {
                c.as_mut_slice()?.fill(f32::NAN);
                explicit_round(&gpus, a.as_slice()?, b.as_slice()?, c.as_mut_slice()?)
            })?;
            checks.push(Check::compare(
                "C, explicit copies",
                c.as_slice()?,
                &expected,
                Tolerance::EXACT,
            ));
        }
        let mut arrays = Arrays::new(&gpus[0], n)?;
        let mut wrong_in_rounds = 0;
        let label = "managed memory (vec_add_multi_GPU_managed, pages on demand)";
        rounds(label, gpus.len(), run.reps, || {
            managed_round(&gpus, &mut arrays, &mut wrong_in_rounds)
        })?;
        checks.push(Check::condition(
            "managed memory: every round's C is A + B, counted by the host's read",
            wrong_in_rounds == 0,
        ));
        checks.push(Check::compare(
            "C, managed memory",
            arrays.c.as_slice()?,
            &expected,
            Tolerance::EXACT,
        ));
        Ok(Outcome { checks })
    }
}
