//! The border exchange between MPI processes, one partition per rank (thesis §5.5 and
//! Appendix B.2.5, with the book's MPI of §4.2 in place of the thesis's host threads), and the
//! multi-GPU solver's entry for one rank, [`solve_mpi`].
//!
//! Each exchange, for each phase: the rank's borders packed on its GPU into pinned buffers with
//! the 2-D asynchronous copies of the pinned strategy (ordered after the sweep that finished
//! them, on the copy stream), then, once those copies are done, MPI's nonblocking receives and
//! sends of the phase posted together and waited for, then the received borders unpacked into
//! the ghosts with 2-D copies on the copy stream, which the next sweep waits for. Waiting for a
//! pack waits for its copies only, so with `overlap` the interior update runs on the GPU while
//! the host waits for MPI. Each message's tag names its border and its exchange
//! ([`exchange_tag`]), so a phase or a step can never take another's data.
//!
//! The times ([`ExchangeTimes`]): `sync`, waiting in MPI for the neighbours' borders (which
//! includes MPI's own copy through shared memory or the network); `transfer`, queueing the
//! copies and waiting for the packs to reach host memory.
use super::exchange::{BorderExchange, ExchangeTimes, Strategy, packed_len, packs, unpacks};
use super::multi::{MultiConfig, MultiSolution, Rank, RankReport, partition_checked, place_own, run_rank};
use super::partition::{Area, Border, Partition};
use super::state::{DeviceGrid, Layout, Rect, SorReal};
use crate::gpu::{Error, Event, Gpu, PinnedBuffer, Result, Stream};
use crate::mpi::Mpi;
use crate::mpi::rsmpi::datatype::Equivalence;
use crate::mpi::rsmpi::request;
use crate::mpi::rsmpi::topology::SimpleCommunicator;
use crate::mpi::rsmpi::traits::*;
use std::time::{Duration, Instant};

/// Tags up to this are valid everywhere: MPI guarantees `MPI_TAG_UB >= 32767`.
const TAG_UB: i32 = 32767;
/// The tag of the final gather of the own points on rank 0, above every exchange's.
const GATHER_TAG: i32 = TAG_UB;

/// The MPI tag of the border at `border` in the decomposition's list of `borders`, at exchange
/// `step` (1, 2, ...): `(step mod cycle) * borders + border`, below 32767 (MPI's least
/// `MPI_TAG_UB`), with `cycle = 32767 / borders` exchanges before a tag comes back (each
/// exchange is complete before the next starts, so consecutive ones suffice to tell apart). A
/// border belongs to one phase, so phases never share a tag either. Refuses more borders than
/// leave two exchanges a cycle.
pub fn exchange_tag(border: usize, step: u64, borders: usize) -> Result<i32> {
    let cycle = TAG_UB as usize / borders.max(1);
    if border >= borders || cycle < 2 {
        return Err(Error::InvalidArgument(format!(
            "border {border} of {borders} has no MPI tag: the tags (up to {TAG_UB}) name at most {} borders",
            TAG_UB / 2
        )));
    }
    let tag = (step % cycle as u64) as usize * borders + border;
    Ok(tag as i32)
}

/// The stored rectangle, in each plane of `layout`, of the global `area` in `partition`'s local
/// grid: what one end of a border packs or unpacks.
pub fn border_rect(layout: Layout, partition: &Partition, area: &Area) -> Result<Rect> {
    let local = partition.to_local(area);
    layout.plane_rect(local.rows, local.cols, partition.local.cols.len())
}

/// One end of a border on this rank: its index in the decomposition's list (for its tag), the
/// border, its rectangle in the local grid, and its pinned staging buffer.
struct Staged<T> {
    index: usize,
    border: Border,
    rect: Rect,
    buffer: PinnedBuffer<T>,
}

/// One rank's border exchange over MPI (`Strategy::Mpi`).
pub struct MpiExchange<'c, T> {
    world: &'c SimpleCommunicator,
    /// Borders in the decomposition (the tags' modulus).
    borders: usize,
    sends: Vec<Staged<T>>,
    receives: Vec<Staged<T>>,
    planes: usize,
    times: ExchangeTimes,
}

impl<'c, T: SorReal + Equivalence> MpiExchange<'c, T> {
    /// Rank `partition.rank`'s side of every border in `borders`, with a pinned buffer on
    /// `gpu`'s host for each end, for the grid `grid`; `world`'s ranks are the partitions.
    pub fn new(
        world: &'c SimpleCommunicator,
        gpu: &Gpu,
        partition: &Partition,
        borders: &[Border],
        grid: &DeviceGrid<T>,
    ) -> Result<Self> {
        if world.size() as usize <= borders.iter().map(|b| b.from.max(b.to)).max().unwrap_or(0) {
            return Err(Error::InvalidArgument(format!(
                "the MPI exchange runs one partition per rank, and {} ranks cannot hold these borders",
                world.size()
            )));
        }
        let planes = grid.planes().len();
        let stage = |index: usize, border: &Border| -> Result<Staged<T>> {
            let rect = border_rect(grid.layout(), partition, &border.area)?;
            Ok(Staged {
                index,
                border: border.clone(),
                buffer: gpu.pinned(packed_len(&rect, planes))?,
                rect,
            })
        };
        let mut sends = Vec::new();
        let mut receives = Vec::new();
        for (index, border) in borders.iter().enumerate() {
            exchange_tag(index, 0, borders.len())?;
            if border.from == partition.rank {
                sends.push(stage(index, border)?);
            }
            if border.to == partition.rank {
                receives.push(stage(index, border)?);
            }
        }
        Ok(Self {
            world,
            borders: borders.len(),
            sends,
            receives,
            planes,
            times: ExchangeTimes::default(),
        })
    }
}

impl<T: SorReal + Equivalence> BorderExchange<T> for MpiExchange<'_, T> {
    fn prepare(&mut self, _gpu: &Gpu) -> Result<()> {
        // The staging buffers were allocated with the exchange.
        Ok(())
    }

    fn has_borders(&self) -> bool {
        !self.sends.is_empty()
    }

    /// Queues the packs of `phase`'s borders into their pinned buffers on `copy`, after
    /// `after`; MPI sends them in [`BorderExchange::receive`], once they have landed.
    fn send(
        &mut self,
        gpu: &Gpu,
        copy: &Stream,
        grid: &DeviceGrid<T>,
        phase: usize,
        _step: u64,
        after: Option<&Event>,
    ) -> Result<()> {
        if let Some(event) = after {
            gpu.stream_wait_event(copy, event)?;
        }
        let started = Instant::now();
        for staged in self.sends.iter_mut().filter(|s| s.border.phase == phase) {
            let copies = packs(&staged.rect, grid.pitch(), self.planes);
            for (plane, c) in grid.planes().iter().zip(copies) {
                gpu.download_2d_async(copy, plane, &mut staged.buffer, c)?;
            }
        }
        self.times.transfer += started.elapsed();
        Ok(())
    }

    /// Waits for `phase`'s packs, exchanges the phase's borders with MPI (every receive and send
    /// posted, then all waited for), and queues the unpacks into the ghosts on `copy`.
    fn receive(&mut self, gpu: &Gpu, copy: &Stream, grid: &mut DeviceGrid<T>, phase: usize, step: u64) -> Result<()> {
        let started = Instant::now();
        let borders = self.borders;
        // Reading a pinned buffer waits for the copies queued with it, and only for them: the
        // packs (and, for a receive buffer, the previous exchange's unpack).
        let outgoing = (self.sends.iter().filter(|s| s.border.phase == phase))
            .map(|s| Ok((s.border.to, exchange_tag(s.index, step, borders)?, s.buffer.as_slice()?)))
            .collect::<Result<Vec<_>>>()?;
        let incoming = (self.receives.iter_mut().filter(|s| s.border.phase == phase))
            .map(|s| {
                let tag = exchange_tag(s.index, step, borders)?;
                Ok((s.border.from, tag, s.buffer.as_mut_slice()?))
            })
            .collect::<Result<Vec<_>>>()?;
        let waited = Instant::now();
        self.times.transfer += waited - started;
        let expected: Vec<usize> = incoming.iter().map(|(.., buffer)| buffer.len()).collect();
        let world = self.world;
        let counts = request::scope(|scope| {
            let mut requests = Vec::with_capacity(incoming.len() + outgoing.len());
            for (from, tag, buffer) in incoming {
                let process = world.process_at_rank(from as i32);
                requests.push(process.immediate_receive_into_with_tag(scope, buffer, tag));
            }
            for (to, tag, buffer) in outgoing {
                let process = world.process_at_rank(to as i32);
                requests.push(process.immediate_send_with_tag(scope, buffer, tag));
            }
            let statuses: Vec<_> = requests.into_iter().map(|r| r.wait()).collect();
            (statuses.iter().take(expected.len()))
                .map(|s| s.count(T::equivalent_datatype()))
                .collect::<Vec<_>>()
        });
        self.times.sync += waited.elapsed();
        if let Some((k, count)) = (counts.iter().enumerate()).find(|&(k, &count)| count as usize != expected[k]) {
            return Err(Error::InvalidArgument(format!(
                "exchange {step}: a border of {count} elements arrived where {} were expected",
                expected[k]
            )));
        }
        let started = Instant::now();
        for staged in self.receives.iter().filter(|s| s.border.phase == phase) {
            let copies = unpacks(&staged.rect, grid.pitch(), self.planes);
            for (c, plane) in copies.zip(grid.planes_mut()) {
                gpu.upload_2d_async(copy, &staged.buffer, plane, c)?;
            }
        }
        self.times.transfer += started.elapsed();
        Ok(())
    }

    fn times(&self) -> ExchangeTimes {
        self.times
    }
}

/// Refuses `partitions` other than `ranks`: the MPI exchange runs one partition per rank.
pub fn check_partitions(partitions: usize, ranks: usize) -> Result<()> {
    if partitions != ranks {
        return Err(Error::InvalidArgument(format!(
            "the MPI exchange runs one partition per rank: {partitions} partition(s) asked for, and {ranks} rank(s) started (mpirun -np {ranks})"
        )));
    }
    Ok(())
}

/// The numbers of a [`RankReport`] that travel to rank 0: device, kernel ms, exchanges, and
/// the sync, transfer and loop times in seconds.
const REPORT_FIELDS: usize = 6;

fn report_fields(report: &RankReport) -> [f64; REPORT_FIELDS] {
    [
        report.device as f64,
        report.kernel_ms,
        report.exchanges as f64,
        report.times.sync.as_secs_f64(),
        report.times.transfer.as_secs_f64(),
        report.loop_time.as_secs_f64(),
    ]
}

fn report_from_fields(rank: usize, f: &[f64]) -> RankReport {
    let time = |s: f64| Duration::from_secs_f64(s.max(0.0));
    RankReport {
        rank,
        device: f[0] as usize,
        kernel_ms: f[1],
        exchanges: f[2] as usize,
        times: ExchangeTimes {
            sync: time(f[3]),
            transfer: time(f[4]),
        },
        loop_time: time(f[5]),
    }
}

/// Solves as [`super::multi::solve`] does, one partition per MPI rank: call it in every rank of
/// `mpi`, each with its own `gpu` (from [`Mpi::assign_device`]), the same whole natural
/// `rows x cols` grid `initial` (each rank uploads its local part) and the same `config`, whose
/// strategy is `Strategy::Mpi` and whose partitions are the ranks. Rank 0 gets the final grid
/// and every rank's [`RankReport`] (its `device` is the rank's device ordinal); the others get
/// `None`. The refusals (those of `solve`, and partitions other than ranks) are the same in
/// every rank; an error past them leaves the other ranks waiting, so end each rank's work with
/// [`Mpi::finish`], which ends the job.
///
/// ```no_run
/// use ferrocuda::mpi::Mpi;
/// use ferrocuda::sor::exchange::Strategy;
/// use ferrocuda::sor::multi::{MultiConfig, solve_mpi};
/// use ferrocuda::sor::partition::Decomposition;
/// use ferrocuda::sor::{Problem, Variant};
/// let mpi = Mpi::init()?;
/// let result = (|| {
///     let (gpu, _) = mpi.assign_device(ferrocuda::BackendChoice::Auto)?;
///     let (rows, cols) = (130, 130);
///     let initial: Vec<f32> = Problem::Thesis.initial(rows, cols)?;
///     let config = MultiConfig {
///         decomposition: Decomposition::Strips,
///         partitions: mpi.size(),
///         strategy: Strategy::Mpi,
///         overlap: true,
///         border: 1,
///         variant: Variant::Split,
///         iterations: 100,
///         omega: 1.8,
///     };
///     if let Some(solution) = solve_mpi(&mpi, &gpu, &initial, rows, cols, config)? {
///         println!("{:?}", solution.metrics(100)); // rank 0
///     }
///     Ok(())
/// })();
/// mpi.finish(result)?;
/// # Ok::<(), ferrocuda::Error>(())
/// ```
pub fn solve_mpi<T: SorReal + Equivalence>(
    mpi: &Mpi,
    gpu: &Gpu,
    initial: &[T],
    rows: usize,
    cols: usize,
    config: MultiConfig,
) -> Result<Option<MultiSolution<T>>> {
    if config.strategy != Strategy::Mpi {
        return Err(Error::InvalidArgument(format!(
            "solve_mpi exchanges the borders with MPI, so its strategy is mpi, not {}",
            config.strategy
        )));
    }
    let ranks = mpi.size();
    check_partitions(config.partitions, ranks)?;
    let partitioning = partition_checked(initial.len(), rows, cols, &config)?;
    if let Some(p) = (partitioning.partitions.iter()).find(|p| i32::try_from(p.own.len()).is_err()) {
        return Err(Error::InvalidArgument(format!(
            "partition {} owns {} points, more than one MPI message holds ({}): use more ranks",
            p.rank,
            p.own.len(),
            i32::MAX
        )));
    }
    let world = mpi.world();
    let partition = &partitioning.partitions[mpi.rank()];
    let copy = gpu.new_stream()?;
    world.barrier();
    let clock = Instant::now();
    let rank = Rank {
        gpu,
        device: gpu.properties().ordinal,
        partition,
        partitioning: &partitioning,
        copy: &copy,
    };
    let exchange = |grid: &DeviceGrid<T>| MpiExchange::new(world, gpu, partition, &partitioning.borders, grid);
    let start = || {
        world.barrier();
        Ok(())
    };
    let (own, report) = run_rank(&rank, initial, config, exchange, start)?;
    let root = world.process_at_rank(0);
    let fields = report_fields(&report);
    if mpi.rank() != 0 {
        root.gather_into(&fields[..]);
        root.send_with_tag(&own[..], GATHER_TAG);
        return Ok(None);
    }
    let mut all = vec![0.0; REPORT_FIELDS * ranks];
    root.gather_into_root(&fields[..], &mut all[..]);
    let mut grid = vec![T::default(); rows * cols];
    place_own(&mut grid, cols, partition, &own);
    for p in &partitioning.partitions[1..] {
        let mut points = vec![T::default(); p.own.len()];
        let status = (world.process_at_rank(p.rank as i32)).receive_into_with_tag(&mut points[..], GATHER_TAG);
        let count = status.count(T::equivalent_datatype());
        if count as usize != points.len() {
            return Err(Error::InvalidArgument(format!(
                "rank {} sent {count} points where it owns {}",
                p.rank,
                points.len()
            )));
        }
        place_own(&mut grid, cols, p, &points);
    }
    let ranks: Vec<RankReport> = (all.chunks(REPORT_FIELDS).enumerate())
        .map(|(rank, f)| report_from_fields(rank, f))
        .collect();
    let loop_time = ranks.iter().map(|r| r.loop_time).max().unwrap_or_default();
    Ok(Some(MultiSolution {
        grid,
        ranks,
        elapsed: clock.elapsed(),
        loop_time,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sor::partition::{Decomposition, Partitioning};

    #[test]
    fn tags_tell_borders_and_consecutive_steps_apart() {
        let borders = 8;
        let mut seen = std::collections::HashSet::new();
        for step in 1..=3 {
            for border in 0..borders {
                let tag = exchange_tag(border, step, borders).unwrap();
                assert!((0..TAG_UB).contains(&tag));
                assert!(seen.insert(tag), "tag {tag} twice");
            }
        }
        // Tags come back after a cycle, never below the gather's.
        let cycle = (TAG_UB as usize / borders) as u64;
        assert_eq!(
            exchange_tag(3, 1, borders).unwrap(),
            exchange_tag(3, 1 + cycle, borders).unwrap()
        );
        assert!(exchange_tag(7, cycle - 1, borders).unwrap() < GATHER_TAG);
        assert!(exchange_tag(8, 1, borders).is_err());
        assert!(exchange_tag(0, 1, TAG_UB as usize).is_err());
    }

    #[test]
    fn both_ends_of_each_border_stage_the_same_extents() {
        for (decomposition, parts, rows, cols) in [
            (Decomposition::Strips, 2, 33, 31),
            (Decomposition::Strips, 4, 130, 130),
            (Decomposition::Blocks, 4, 40, 31),
            (Decomposition::Blocks, 4, 66, 66),
        ] {
            for ghost in [2, 4] {
                let p = Partitioning::new(decomposition, rows, cols, parts, ghost).unwrap();
                for layout in [Layout::Natural, Layout::Split] {
                    for border in &p.borders {
                        let from = border_rect(layout, &p.partitions[border.from], &border.area).unwrap();
                        let to = border_rect(layout, &p.partitions[border.to], &border.area).unwrap();
                        let planes = layout.planes();
                        assert_eq!(
                            packed_len(&from, planes),
                            packed_len(&to, planes),
                            "{border:?} {layout:?}"
                        );
                        // Natural: the area itself; split: its stored columns in each plane
                        // (local grids start on even columns, as the global one).
                        let expected = match layout {
                            Layout::Natural => border.area.len(),
                            Layout::Split => {
                                let c = &border.area.cols;
                                2 * border.area.rows.len() * (c.end.div_ceil(2) - c.start / 2)
                            }
                        };
                        assert_eq!(packed_len(&from, planes), expected, "{border:?} {layout:?}");
                    }
                }
            }
        }
    }
}
