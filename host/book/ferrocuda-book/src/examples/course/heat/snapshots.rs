//! course-heat's output snapshots through streams: the steps run on a compute stream; every
//! `every` steps an event marks the step, a copy stream waits for it and copies the field to
//! pinned host memory, and the compute stream goes on with the next steps meanwhile (the
//! snapshot's buffer is "frozen" until its copy's event, [`super::solver::Fields`]). The host
//! reads the snapshots once the run ends, or earlier when it must reuse a pinned buffer.
//!
//! On the simulator the streams are labels: each launch and copy runs when issued, so the same
//! calls run the same computation synchronously, with no overlap.
use super::problem::Grid;
use super::solver::{Fields, HeatReal, Solver};
use ferrocuda::gpu::{Error, Event, Gpu, PinnedBuffer, Result};

/// Pinned host memory the snapshots may hold at once: beyond it the pinned buffers are reused,
/// and each reuse waits for the device (a "drain").
pub const PINNED_BUDGET_BYTES: usize = 2 << 30;

/// When to take snapshots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// Steps of the whole run.
    pub steps: usize,
    /// Steps between snapshots; the last step is always a snapshot.
    pub every: usize,
}

impl Plan {
    /// The plan, or a sentence saying why not.
    pub fn new(steps: usize, every: usize) -> Result<Self> {
        if steps == 0 || every == 0 {
            return Err(Error::InvalidArgument(format!(
                "--steps and --snapshot-every must be at least 1, not {steps} and {every}"
            )));
        }
        Ok(Self { steps, every })
    }

    /// The steps of the snapshots: `every, 2 every, ...`, and the last step.
    pub fn snapshot_steps(&self) -> Vec<usize> {
        let mut steps: Vec<usize> = (self.every..self.steps).step_by(self.every).collect();
        steps.push(self.steps);
        steps
    }
}

/// The time between two consecutive snapshots, on the compute stream.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub from_step: usize,
    pub to_step: usize,
    pub elapsed_ms: f64,
}

/// What a run did besides its snapshots.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub intervals: Vec<Interval>,
    /// Pinned buffers used.
    pub slots: usize,
    /// Reuses of a pinned buffer, each waiting for the device before the run went on.
    pub drains: usize,
    /// Milliseconds from the first step to the last, on the compute stream.
    pub total_ms: f64,
}

/// Runs `plan` from `initial` with `solver`, handing each snapshot, in step order, to
/// `consume(step, field)`; the snapshots may hold `pinned_budget_bytes` of pinned memory (at
/// least one field's worth is used, whatever the budget; a run gives [`PINNED_BUDGET_BYTES`]).
pub fn run_with_budget<T: HeatReal>(
    gpu: &Gpu,
    solver: Solver,
    grid: &Grid,
    initial: &[T],
    plan: Plan,
    pinned_budget_bytes: usize,
    consume: &mut dyn FnMut(usize, &[T]) -> Result<()>,
) -> Result<Report> {
    let n = grid.points();
    if initial.len() != n {
        return Err(Error::InvalidArgument(format!(
            "the initial field holds {} values, not the grid's {n}",
            initial.len()
        )));
    }
    let snapshot_steps = plan.snapshot_steps();
    let slots = (pinned_budget_bytes / (n * size_of::<T>()).max(1)).clamp(1, snapshot_steps.len());
    let mut pinned: Vec<PinnedBuffer<T>> = (0..slots).map(|_| gpu.pinned(n)).collect::<Result<_>>()?;
    let mut held: Vec<Option<usize>> = vec![None; slots];
    let (compute, copy) = (gpu.new_stream()?, gpu.new_stream()?);
    let mut fields = Fields::upload(gpu, grid, solver, initial)?;
    fields.warm_up(gpu, Some(&compute))?;
    let mut frozen: Option<(usize, Event)> = None;
    let mut marks: Vec<(usize, Event)> = vec![(0, gpu.record_event(Some(&compute))?)];
    let mut drains = 0;
    for (k, &step) in snapshot_steps.iter().enumerate() {
        let done = marks.last().map_or(0, |(s, _)| *s);
        let keep = frozen.as_ref().map(|(b, _)| *b);
        fields.advance(gpu, None, Some(&compute), step - done, keep)?;
        let ready = gpu.record_event(Some(&compute))?;
        let slot = k % slots;
        if let Some(earlier) = held[slot].take() {
            // Reading a pinned buffer waits for all queued work (`PinnedBuffer::as_slice`).
            consume(earlier, pinned[slot].as_slice()?)?;
            drains += 1;
        }
        gpu.stream_wait_event(&copy, &ready)?;
        gpu.download_async(&copy, fields.current(), &mut pinned[slot], 0..n)?;
        let copied = gpu.record_event(Some(&copy))?;
        held[slot] = Some(step);
        // The buffer frozen for the previous snapshot may be written again once its copy is
        // done: later steps on the compute stream wait for that copy's event.
        if let Some((_, previous)) = frozen.replace((fields.current_index(), copied)) {
            gpu.stream_wait_event(&compute, &previous)?;
        }
        marks.push((step, ready));
    }
    let intervals = marks
        .windows(2)
        .map(|pair| {
            Ok(Interval {
                from_step: pair[0].0,
                to_step: pair[1].0,
                elapsed_ms: pair[0].1.elapsed_ms(&pair[1].1)?,
            })
        })
        .collect::<Result<Vec<_>>>()?;
    let total_ms = match (marks.first(), marks.last()) {
        (Some(first), Some(last)) => first.1.elapsed_ms(&last.1)?,
        _ => 0.0,
    };
    gpu.synchronize_stream(&copy)?;
    let mut remaining: Vec<(usize, usize)> = held
        .iter()
        .enumerate()
        .filter_map(|(slot, step)| step.map(|s| (s, slot)))
        .collect();
    remaining.sort_unstable();
    for (step, slot) in remaining {
        consume(step, pinned[slot].as_slice()?)?;
    }
    Ok(Report {
        intervals,
        slots,
        drains,
        total_ms,
    })
}
