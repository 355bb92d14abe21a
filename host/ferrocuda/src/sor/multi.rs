//! The multi-GPU solver (thesis Fig. 5.5): one host thread per partition, each driving its
//! GPU; `bs` red-black iterations on a shrinking region between border exchanges; the final
//! grid assembled from every partition's own points. Several partitions may share a GPU, so the
//! whole scheme runs, and is tested, on one GPU or on the simulator (all but the NCCL exchange,
//! which needs one partition per GPU). With the cargo feature `mpi`, `solve_mpi` runs the same
//! loop (`run_rank`) as one MPI process per partition.
use super::domain::{check_extents, check_grid_len, check_omega};
use super::exchange::{BorderExchange, Exchange, ExchangeTimes, Mailboxes, Strategy};
use super::partition::{Area, Decomposition, Partition, Partitioning};
use super::state::{DeviceGrid, SorReal, Variant};
use crate::gpu::{Error, Event, Gpu, NcclComm, Result, Stream};
use gpu_kernels::sor::Region;
use std::sync::Barrier;
use std::time::{Duration, Instant};

/// The solver's entry for one MPI rank (cargo feature `mpi`).
#[cfg(feature = "mpi")]
pub use super::mpi::solve_mpi;

/// How the multi-GPU solver runs.
#[derive(Clone, Copy, Debug)]
pub struct MultiConfig {
    pub decomposition: Decomposition,
    /// Partitions (host threads); partition `r` runs on GPU `r % gpus`.
    pub partitions: usize,
    pub strategy: Strategy,
    /// Update the points neighbours need first and send them while the rest is updated
    /// (asynchronous strategies only).
    pub overlap: bool,
    /// Red-black iterations between exchanges (the thesis's border size `bs`); ghosts are
    /// `2 bs` deep (see `partition`).
    pub border: usize,
    /// The kernels that update each partition (any but [`Variant::Tiled`], which runs on one
    /// GPU only).
    pub variant: Variant,
    pub iterations: usize,
    /// The relaxation factor, in (0, 2).
    pub omega: f64,
}

/// One partition's timings: the thesis's per-thread lines.
#[derive(Clone, Debug)]
pub struct RankReport {
    pub rank: usize,
    /// The index in `solve`'s `gpus` of the device it ran on (`rank % gpus.len()`).
    pub device: usize,
    /// Kernel time of all half-sweeps, CUDA events (MKT = this / iterations).
    pub kernel_ms: f64,
    /// Exchanges made.
    pub exchanges: usize,
    pub times: ExchangeTimes,
    /// The iteration loop, host clock, until the GPU finished.
    pub loop_time: Duration,
}

/// What a multi-GPU solve produced.
#[derive(Clone, Debug)]
pub struct MultiSolution<T> {
    pub grid: Vec<T>,
    pub ranks: Vec<RankReport>,
    /// The thesis's ET: from the first upload to the last download, device selection excluded.
    pub elapsed: Duration,
    /// The slowest partition's iteration loop.
    pub loop_time: Duration,
}

impl<T> MultiSolution<T> {
    /// The thesis's metrics in ms, the max over partitions: (MKT per iteration, MST, MTT and MCT
    /// per exchange).
    pub fn metrics(&self, iterations: usize) -> [f64; 4] {
        let per = |total: f64, n: usize| if n == 0 { 0.0 } else { total / n as f64 };
        let max = |f: &dyn Fn(&RankReport) -> f64| self.ranks.iter().map(f).fold(0.0, f64::max);
        let ms = |d: Duration| d.as_secs_f64() * 1e3;
        [
            max(&|r| per(r.kernel_ms, iterations)),
            max(&|r| per(ms(r.times.sync), r.exchanges)),
            max(&|r| per(ms(r.times.transfer), r.exchanges)),
            max(&|r| per(ms(r.times.sync + r.times.transfer), r.exchanges)),
        ]
    }
}

/// Solves on `gpus` (one or more GPUs, or simulators) from the natural `rows x cols` grid
/// `initial`, as `config` says. Refuses omega outside (0, 2), a grid of other than
/// `rows * cols` points, and a configuration the decomposition or the strategy cannot run.
pub fn solve<T: SorReal>(
    gpus: &[&Gpu],
    initial: &[T],
    rows: usize,
    cols: usize,
    config: MultiConfig,
) -> Result<MultiSolution<T>> {
    let partitioning = partition_checked(initial.len(), rows, cols, &config)?;
    if gpus.is_empty() {
        return Err(Error::InvalidArgument(
            "the multi-GPU solver needs at least one GPU".into(),
        ));
    }
    #[cfg(feature = "mpi")]
    if config.strategy == Strategy::Mpi {
        return Err(Error::InvalidArgument(
            "the MPI exchange runs one partition per process: call sor::multi::solve_mpi in every rank, under mpirun"
                .into(),
        ));
    }
    if config.strategy == Strategy::Peer {
        for a in gpus {
            for b in gpus {
                a.enable_peer_access(b)?;
            }
        }
    }
    if let (Strategy::Nccl, Some(why)) = (config.strategy, Strategy::nccl_refused(gpus, config.partitions)) {
        return Err(Error::InvalidArgument(why));
    }
    let gpu_of = |partition: &Partition| gpus[partition.rank % gpus.len()];
    // Each partition's copy stream, made here because NCCL's communicators need all of them.
    let copies = (partitioning.partitions.iter())
        .map(|p| gpu_of(p).new_stream())
        .collect::<Result<Vec<_>>>()?;
    let comms: Vec<Option<NcclComm>> = if config.strategy == Strategy::Nccl {
        let ranks: Vec<_> = partitioning.partitions.iter().map(gpu_of).zip(&copies).collect();
        NcclComm::new_all(&ranks)?.into_iter().map(Some).collect()
    } else {
        copies.iter().map(|_| None).collect()
    };
    let mailboxes = Mailboxes::new(&partitioning.borders);
    let started = Barrier::new(partitioning.partitions.len());
    let clock = Instant::now();
    let results: Vec<Result<(Vec<T>, RankReport)>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (partitioning.partitions.iter().zip(&copies).zip(comms))
            .map(|((partition, copy), comm)| {
                let (partitioning, mailboxes, started) = (&partitioning, &mailboxes, &started);
                let device = partition.rank % gpus.len();
                let gpu = gpus[device];
                scope.spawn(move || {
                    let exchange = |grid: &DeviceGrid<T>| {
                        Exchange::new(config.strategy, partition, &partitioning.borders, mailboxes, grid, comm)
                    };
                    let start = || {
                        started.wait();
                        Ok(())
                    };
                    let rank = Rank {
                        gpu,
                        device,
                        partition,
                        partitioning,
                        copy,
                    };
                    run_rank(&rank, initial, config, exchange, start)
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Err(Error::InvalidArgument("a partition's thread panicked".into())))
            })
            .collect()
    });
    let mut grid = vec![T::default(); rows * cols];
    let mut ranks = Vec::new();
    for (partition, result) in partitioning.partitions.iter().zip(results) {
        let (own, report) = result?;
        place_own(&mut grid, cols, partition, &own);
        ranks.push(report);
    }
    let loop_time = ranks.iter().map(|r| r.loop_time).max().unwrap_or_default();
    Ok(MultiSolution {
        grid,
        ranks,
        elapsed: clock.elapsed(),
        loop_time,
    })
}

/// The decomposition `config` asks for of a `rows x cols` grid of `len` points, once the
/// grid, omega, the border, the partitions and the kernel are checked.
pub(super) fn partition_checked(len: usize, rows: usize, cols: usize, config: &MultiConfig) -> Result<Partitioning> {
    check_extents(rows, cols)?;
    check_grid_len(len, rows, cols)?;
    if config.partitions == 0 || config.border == 0 {
        return Err(Error::InvalidArgument(
            "the multi-GPU solver needs at least one partition and a border of at least 1".into(),
        ));
    }
    check_omega(config.omega)?;
    if config.border > config.iterations.max(1) {
        return Err(Error::InvalidArgument(format!(
            "the border ({}) can't be greater than the iterations ({}), as the thesis says",
            config.border, config.iterations
        )));
    }
    if !config.variant.runs_partitioned() {
        return Err(Error::InvalidArgument(format!(
            "the {} kernel runs on one GPU only: it updates several half-sweeps per launch out of place",
            config.variant
        )));
    }
    let ghost = 2 * config.border;
    Partitioning::new(config.decomposition, rows, cols, config.partitions, ghost)
}

/// Writes `own`, `partition`'s own points row by row, into their place in the natural
/// `cols`-column grid `grid`.
pub(super) fn place_own<T: Copy>(grid: &mut [T], cols: usize, partition: &Partition, own: &[T]) {
    let width = partition.own.cols.len();
    for (k, r) in partition.own.rows.clone().enumerate() {
        let start = r * cols + partition.own.cols.start;
        grid[start..start + width].copy_from_slice(&own[k * width..(k + 1) * width]);
    }
}

/// The points of `area` of the natural `cols`-column grid `grid`, row by row.
pub(super) fn extract<T: Copy>(grid: &[T], cols: usize, area: &Area) -> Vec<T> {
    area.rows
        .clone()
        .flat_map(|r| {
            grid[r * cols + area.cols.start..r * cols + area.cols.end]
                .iter()
                .copied()
        })
        .collect()
}

/// Timing events around each half-sweep, read once the loop has finished.
struct KernelClock {
    spans: Vec<(Event, Event)>,
}

impl KernelClock {
    fn time<R>(&mut self, gpu: &Gpu, stream: &Stream, work: impl FnOnce() -> Result<R>) -> Result<R> {
        let start = gpu.record_event(Some(stream))?;
        let result = work()?;
        self.spans.push((start, gpu.record_event(Some(stream))?));
        Ok(result)
    }

    fn total_ms(&self) -> Result<f64> {
        self.spans.iter().map(|(a, b)| a.elapsed_ms(b)).sum()
    }
}

/// Where one partition runs: its GPU (`device`, the index reported in [`RankReport`]), its
/// place in the decomposition, and the stream its exchange copies on.
pub(super) struct Rank<'a> {
    pub gpu: &'a Gpu,
    pub device: usize,
    pub partition: &'a Partition,
    pub partitioning: &'a Partitioning,
    pub copy: &'a Stream,
}

/// One partition's work, the same in a thread of [`solve`] and in an MPI rank: upload, iterate
/// and exchange through the exchange `exchange` builds on the uploaded grid, download its own
/// points. `start` is called once everything is allocated, before the clock of the loop starts
/// (a barrier with the other partitions).
pub(super) fn run_rank<T: SorReal, E: BorderExchange<T>>(
    rank: &Rank,
    initial: &[T],
    config: MultiConfig,
    exchange: impl FnOnce(&DeviceGrid<T>) -> Result<E>,
    start: impl FnOnce() -> Result<()>,
) -> Result<(Vec<T>, RankReport)> {
    let Rank {
        gpu,
        device,
        partition,
        partitioning,
        copy,
    } = *rank;
    let compute = gpu.new_stream()?;
    let (rows, cols) = (partitioning.rows, partitioning.cols);
    let local = &partition.local;
    let mut grid = DeviceGrid::upload(
        gpu,
        config.variant,
        &extract(initial, cols, local),
        local.rows.len(),
        local.cols.len(),
        partition.parity(),
    )?;
    let mut exchange = exchange(&grid)?;
    exchange.prepare(gpu)?;
    gpu.synchronize()?;
    start()?;
    let loop_start = Instant::now();
    let omega = T::from_f64(config.omega);
    let overlap = config.overlap && config.strategy.is_async() && exchange.has_borders();
    let mut clock = KernelClock { spans: Vec::new() };
    let (mut done, mut step) = (0, 0u64);
    while done < config.iterations {
        let iterations = config.border.min(config.iterations - done);
        done += iterations;
        let exchange_follows = done < config.iterations && exchange.has_borders();
        for h in 0..2 * iterations {
            let region = partition.region(partitioning.ghost - 1 - h, (rows, cols));
            let color = (h % 2) as u32;
            let last = h == 2 * iterations - 1;
            if last && exchange_follows && overlap {
                let (edges, center) = split_edges(region, partition, partitioning.ghost);
                clock.time(gpu, &compute, || {
                    edges
                        .iter()
                        .try_for_each(|&e| grid.half_sweep(gpu, Some(&compute), e, color, omega))
                })?;
                let edges_done = gpu.record_event(Some(&compute))?;
                step += 1;
                exchange.send(gpu, copy, &grid, 0, step, Some(&edges_done))?;
                clock.time(gpu, &compute, || {
                    grid.half_sweep(gpu, Some(&compute), center, color, omega)
                })?;
            } else {
                clock.time(gpu, &compute, || {
                    grid.half_sweep(gpu, Some(&compute), region, color, omega)
                })?;
            }
        }
        if exchange_follows {
            let swept = gpu.record_event(Some(&compute))?;
            if !overlap {
                step += 1;
            }
            for phase in 0..partitioning.phases() {
                if phase > 0 || !overlap {
                    exchange.send(gpu, copy, &grid, phase, step, Some(&swept))?;
                }
                exchange.receive(gpu, copy, &mut grid, phase, step)?;
            }
            let received = gpu.record_event(Some(copy))?;
            gpu.stream_wait_event(&compute, &received)?;
        }
    }
    gpu.synchronize_stream(&compute)?;
    gpu.synchronize_stream(copy)?;
    let loop_time = loop_start.elapsed();
    let local_grid = grid.download(gpu)?;
    let own = partition.to_local(&partition.own);
    let own_points = extract(&local_grid, local.cols.len(), &own);
    Ok((
        own_points,
        RankReport {
            rank: partition.rank,
            device,
            kernel_ms: clock.total_ms()?,
            exchanges: step as usize,
            times: exchange.times(),
            loop_time,
        },
    ))
}

/// `region` cut into the bands within `depth` of the sides that have neighbours (which the
/// exchange sends) and the rest.
fn split_edges(region: Region, partition: &Partition, depth: usize) -> (Vec<Region>, Region) {
    let (own, local) = (&partition.own, &partition.local);
    let band = |has: bool| if has { depth as u32 } else { 0 };
    let (r0, r1, c0, c1) = (region.row_begin, region.row_end, region.col_begin, region.col_end);
    let north = band(own.rows.start > local.rows.start).min(r1 - r0);
    let south = band(own.rows.end < local.rows.end).min(r1 - r0 - north);
    let (mr0, mr1) = (r0 + north, r1 - south);
    let west = band(own.cols.start > local.cols.start).min(c1 - c0);
    let east = band(own.cols.end < local.cols.end).min(c1 - c0 - west);
    let (mc0, mc1) = (c0 + west, c1 - east);
    let rect = |row_begin, row_end, col_begin, col_end| Region {
        row_begin,
        row_end,
        col_begin,
        col_end,
    };
    let edges = vec![
        rect(r0, mr0, c0, c1),
        rect(mr1, r1, c0, c1),
        rect(mr0, mr1, c0, mc0),
        rect(mr0, mr1, mc1, c1),
    ];
    (
        edges.into_iter().filter(|e| !e.is_empty()).collect(),
        rect(mr0, mr1, mc0, mc1),
    )
}
