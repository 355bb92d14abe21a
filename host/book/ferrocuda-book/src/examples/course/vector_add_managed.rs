//! course-vector-add-managed: `C = A + B` on 10,000,000 floats in managed memory (IT4I course,
//! hands-on 2b, `vec_add_managed`, and the lecture on unified memory: `cudaMallocManaged`,
//! `cudaMemPrefetchAsync`), run twice: with the pages migrating on demand, and prefetched.
//!
//! Each run starts with the host writing A = 1, B = 2 (and C = NaN, so an element the kernel
//! misses shows), which puts every page in host memory, as in the course's program. Then:
//! - on demand: the kernel's first touch of each page faults and migrates it to the GPU while
//!   the kernel runs; the host's read of C migrates it back;
//! - prefetched: A, B and C are prefetched to the GPU before the launch, and C back to the host
//!   after it, so the kernel runs on resident pages and the host reads local ones.
//!
//! The kernel is timed with CUDA events around the launch alone; "end to end" is host time from
//! the first prefetch (or the launch) to the host having read every element of C (a pass that
//! counts the elements that are not 3). C must equal 3 exactly.
use super::vector_add_common::{A_VALUE, Arrays, B_VALUE, N, THREADS_PER_BLOCK, launch};
use crate::example::{Example, NoOptions, Outcome, Run, SIMULATOR_SIZE, Size};
use crate::reference;
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::{Stats, gb_per_s};
use ferrocuda::verify::{Check, Tolerance};
use std::time::Instant;

/// course-vector-add-managed.
pub struct CourseVectorAddManaged;

/// How the pages reach the GPU and come back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Migration {
    /// Page faults move them as the kernel and the host touch them.
    OnDemand,
    /// `cudaMemPrefetchAsync` to the GPU before the launch, and of C to the host after it.
    Prefetch,
}

impl Migration {
    pub const ALL: [Migration; 2] = [Migration::OnDemand, Migration::Prefetch];

    /// How the output names it.
    pub fn label(self) -> &'static str {
        match self {
            Migration::OnDemand => "without prefetch (pages migrate on first touch)",
            Migration::Prefetch => "with prefetch (to the GPU before the launch, C to the host before the check)",
        }
    }
}

/// The times of one run, ms.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Timing {
    pub kernel_ms: f64,
    pub end_to_end_ms: f64,
    /// Elements of C that are not `A_VALUE + B_VALUE`, counted in the timed pass.
    pub wrong: usize,
}

/// One run of the course's program on `arrays`: the host initialises them, then `migration`
/// moves the pages around the kernel, and the host reads C.
pub fn run_once(gpu: &Gpu, arrays: &mut Arrays, migration: Migration) -> Result<Timing> {
    arrays.fill()?;
    let wall = Instant::now();
    if migration == Migration::Prefetch {
        for array in [&arrays.a, &arrays.b, &arrays.c] {
            array.prefetch_to_device()?;
        }
    }
    let start = gpu.record_event(None)?;
    launch(gpu, None, arrays.args())?;
    let stop = gpu.record_event(None)?;
    if migration == Migration::Prefetch {
        arrays.c.prefetch_to_host()?;
    }
    // Waits for the device (kernel and prefetches), then reads every element in place.
    let wrong = arrays.wrong()?;
    let end_to_end_ms = wall.elapsed().as_secs_f64() * 1e3;
    Ok(Timing {
        kernel_ms: start.elapsed_ms(&stop)?,
        end_to_end_ms,
        wrong,
    })
}

impl Example for CourseVectorAddManaged {
    const ID: &'static str = "course-vector-add-managed";
    const DESCRIPTION: &'static str = "C = A + B on 10,000,000 floats in managed memory: pages migrating on demand vs prefetched (IT4I course, hands-on 2b)";
    const SIZE: Option<Size> = Some(Size::new("elements per array", N, SIMULATOR_SIZE));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak at `n` elements: A, B and C in managed memory, counted on the device and
    /// on the host (the host initialises and reads them, so their pages live on either side),
    /// and the CPU reference's A, B and C on the host.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.mirrored::<f32>(3, run.size)?.host::<f32>(3, run.size)
    }

    /// The course's program, on demand and prefetched: a warm-up of each, then `reps` rounds of
    /// both; prints the medians and their ratios.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let mut arrays = Arrays::new(gpu, n)?;
        let modes: Vec<Migration> = if arrays.a.can_prefetch() {
            Migration::ALL.to_vec()
        } else {
            println!(
                " This device has no concurrent managed access, so nothing can be prefetched: on-demand runs only."
            );
            vec![Migration::OnDemand]
        };
        for &mode in &modes {
            run_once(gpu, &mut arrays, mode)?;
        }
        let mut kernel = vec![Vec::new(); modes.len()];
        let mut end_to_end = vec![Vec::new(); modes.len()];
        let mut wrong = vec![0; modes.len()];
        for _ in 0..run.reps {
            for (k, &mode) in modes.iter().enumerate() {
                let t = run_once(gpu, &mut arrays, mode)?;
                kernel[k].push(t.kernel_ms);
                end_to_end[k].push(t.end_to_end_ms);
                wrong[k] += t.wrong;
            }
        }

        println!(
            "Vector addition of {n} floats in managed memory, {} blocks of {THREADS_PER_BLOCK} threads",
            n.div_ceil(THREADS_PER_BLOCK as usize)
        );
        println!(
            " medians of {} runs; kernel: {}; end to end: host clock, from the first prefetch or the launch to the host's read of all of C",
            run.reps,
            gpu.timing_label()
        );
        let mut medians = Vec::new();
        for (k, &mode) in modes.iter().enumerate() {
            let (kernel_ms, wall_ms) = (
                Stats::of(&mut kernel[k]).median_ms,
                Stats::of(&mut end_to_end[k]).median_ms,
            );
            println!(
                " {}: kernel {kernel_ms:.4} ms ({:.1} GB/s), end to end {wall_ms:.3} ms",
                mode.label(),
                gb_per_s(3 * n * size_of::<f32>(), kernel_ms)
            );
            medians.push((kernel_ms, wall_ms));
        }
        if let [(kernel_demand, wall_demand), (kernel_prefetch, wall_prefetch)] = medians[..] {
            println!(
                " prefetching makes the kernel {:.1}x and the whole run {:.2}x faster",
                kernel_demand / kernel_prefetch,
                wall_demand / wall_prefetch
            );
        }
        if gpu.is_simulator() {
            println!(
                " (On the simulator managed memory is host memory: nothing migrates, so both take the same time.)"
            );
        }

        // The last run's C, against the CPU's sum of the course's inputs, and every run's count.
        let expected = reference::course::vector_add::vector_add(&try_vec(n, A_VALUE)?, &try_vec(n, B_VALUE)?)?;
        let mut checks = vec![Check::compare(
            "C = 3 (last run)",
            arrays.c.as_slice()?,
            &expected,
            Tolerance::EXACT,
        )];
        for (k, &mode) in modes.iter().enumerate() {
            checks.push(Check {
                len: n * run.reps,
                mismatches: wrong[k],
                ..Check::condition(&format!("C = 3 in every run {}", mode.label()), true)
            });
        }
        Ok(Outcome { checks })
    }
}
