//! thesis-comm-model: the thesis's communication model on today's hardware (thesis §5.3, §6.3.1,
//! Table 6.4, Appendix D.2 `timer_reg`): each copy path's latency and bandwidth, the linear model
//! `t = t_startup + n t_word` and the power law `t = a n^b` fitted to them, Table 6.4 with the
//! thesis's static model beside a per-row regression, and the border exchange of strip and block
//! partitions predicted from the fits against the same copies performed.
//!
//! The thesis had one path, GPU -> pageable host memory -> GPU through synchronous
//! `cudaMemcpy2D`; pinned `cudaMemcpy2DAsync` and device-to-device copies are extensions.
//!
//! Here: the constants, the models (the border exchanges' too) and the run; the copies and
//! exchanges measured in `comm_model/rig.rs`, the printout and chart in `comm_model/report.rs`.
mod report;
mod rig;

use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::plot_option::PlotOption;
use ferrocuda::footprint::{self, Capacity, Footprint};
use ferrocuda::gpu::{Error, Gpu, Result, device_count};
use ferrocuda::measure::{LinearFit, PowerFit};
use ferrocuda::verify::Check;
use report::{chart, print_exchanges, print_fits, print_table_6_4, print_thesis_comparisons, series};
use rig::Rig;

/// The thesis's matrix side (Table 6.4): 11585 x 11585 f32 = 537 MB (`--size` sets it).
pub const MATRIX_SIDE: usize = 11585;
/// The simulator's side: its copies are host memcpys, so only the data path is of interest.
pub const SIMULATOR_SIDE: usize = 1024;
/// Row length of the strided copies (Table 6.4's 5792 x 5).
pub const STRIDE_WIDTH: usize = 5;
/// One-element copies averaged for `timer_reg`'s second figure.
pub const SMALL_COPIES: usize = 1000;
/// The largest copy from which the fits must grow with size: 1 MiB, past the latency-bound range.
pub const MIN_FIT_BYTES: usize = 1 << 20;
/// Seed of the held-out sizes.
pub const SEED: u64 = 2009;
/// Held-out sizes per path.
pub const HELD_OUT: usize = 6;
/// Default ghost depth: red-black SOR needs one ghost layer per colour half-sweep.
pub const DEFAULT_GHOST: usize = 2;
/// `cudaMallocPitch`'s row alignment on current GPUs, elements of f32 (512 bytes).
pub const PITCH_ALIGN: usize = 128;

/// `cudaMallocPitch`'s pitch for rows of `cols` f32.
fn pitch_of(cols: usize) -> usize {
    cols.div_ceil(PITCH_ALIGN) * PITCH_ALIGN
}

/// The thesis's Table 6.4 (Tesla S1070, CUDA 2.1): `(K, N, measured ms, model ms)`.
pub const THESIS_TABLE_6_4: [(usize, usize, f64, f64); 5] = [
    (1, 0, 0.003, 0.003),
    (1, 1, 0.015, 0.015),
    (5, 11585, 0.145, 3384.557),
    (5, 5792, 0.049, 1692.140),
    (5792, 5, 7.443, 1710.659),
];

/// The copy paths' matrices at side `s`: the pitched source, a destination and the peer's
/// destination on the device; on the host the dense pageable source and destination, the
/// pinned ones, the pitched upload's staging copy, and one destination section read back.
pub fn rig_plan(s: usize) -> Option<Footprint> {
    let dense = footprint::elements(&[s, s])?;
    let pitched = footprint::elements(&[s, pitch_of(s)])?;
    Footprint::NONE
        .device::<f32>(3, pitched)?
        .host::<f32>(5, dense)?
        .host::<f32>(1, pitched)
}

/// The border exchanges' arrays at the largest side `n` (the 2-GPU strip, `n/2 + ghost` rows of
/// `n`, is the largest): the pitched array on the device; its staging copy, the host rows, the
/// mirror and the download compared with it on the host (ghost rows up to `n/4` allowed).
pub fn exchange_plan(n: usize) -> Option<Footprint> {
    let rows = (n / 2).checked_add(n / 4)?;
    let pitched = footprint::elements(&[rows, pitch_of(n)])?;
    Footprint::NONE.device::<f32>(1, pitched)?.host::<f32>(4, pitched)
}

/// A copy path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Path {
    PageableD2h,
    PageableH2d,
    PinnedD2h,
    PinnedH2d,
    DeviceToDevice,
}

impl Path {
    pub const ALL: [Path; 5] = [
        Path::PageableD2h,
        Path::PageableH2d,
        Path::PinnedD2h,
        Path::PinnedH2d,
        Path::DeviceToDevice,
    ];

    /// Its name in the output.
    pub fn name(self) -> &'static str {
        [
            "pageable D2H",
            "pageable H2D",
            "pinned D2H",
            "pinned H2D",
            "device to device",
        ][self as usize]
    }
}

/// A 2-D copy of `K` rows of `w` elements: `t_startup + K (t_row + w t_word)`, the linear fit
/// plus a start-up per row.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowModel {
    pub linear: LinearFit,
    pub t_row_ms: f64,
}

impl RowModel {
    /// `t_row` by least squares through the origin of what the linear fit leaves unexplained in
    /// `(rows, width, ms)` copies of many short rows.
    pub fn fit(linear: LinearFit, strided: &[(usize, usize, f64)]) -> Self {
        let (kr, kk) = strided.iter().fold((0.0, 0.0), |(kr, kk), &(k, w, t)| {
            let k = k as f64;
            let residual = t - linear.predict(k * w as f64);
            (kr + k * residual, kk + k * k)
        });
        Self {
            linear,
            t_row_ms: kr / kk,
        }
    }

    /// Predicted ms for `rows` rows of `width` elements.
    pub fn predict(&self, rows: usize, width: usize) -> f64 {
        let rows = rows as f64;
        self.linear.t_startup_ms + rows * (self.t_row_ms + width as f64 * self.linear.t_word_ms)
    }
}

/// The thesis's (5.1) and (5.2): per-iteration exchange time of end strips, middle strips and
/// 2x2 blocks, for side `n`, `k` ghost layers, one transfer per row.
pub fn thesis_exchange_ms(n: f64, k: f64, t_startup: f64, t_word: f64) -> [f64; 3] {
    let strip = k * (t_startup + n * t_word);
    let block = 4.0 * k * (t_startup + n / 2.0 * t_word) + 4.0 * (n / 2.0 + k) * (t_startup + k * t_word);
    [4.0 * strip, 8.0 * strip, block]
}

/// (5.5) and (5.6): blocks are slower than end strips iff `t_startup` exceeds the first
/// threshold, slower than middle strips iff it exceeds the second (tending to `2k t_word`, 5.7).
pub fn block_thresholds(n: f64, k: f64, t_word: f64) -> [f64; 2] {
    [-2.0 * k * k / (n + 2.0 * k) * t_word, 2.0 * k * (n - k) / n * t_word]
}

/// A partition's device array and the busiest GPU's borders: `(sent section, ghost section)`,
/// each `((row, col), rows, width)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    pub rows: usize,
    pub cols: usize,
    pub borders: Vec<(Section, Section)>,
}

/// `((row, col), rows, width)` of a partition's array.
pub type Section = ((usize, usize), usize, usize);

/// The busiest GPU's exchange for side `n`, `gpus` GPUs, `d` ghost rows: strips send `d x n`
/// per interior border (a middle GPU has two); 2x2 blocks send `d x n/2` vertically, then
/// `(n/2 + d) x d` horizontally, ghost corner included (thesis §5.3, eqs 5.1, 5.2).
pub fn busiest_exchange(n: usize, gpus: usize, blocks: bool, d: usize) -> Exchange {
    let h = n / if blocks { 2 } else { gpus };
    if blocks {
        let vertical = (((h - d, 0), d, h), ((h, 0), d, h));
        let horizontal = (((0, h - d), h + d, d), ((0, h), h + d, d));
        Exchange {
            rows: h + d,
            cols: h + d,
            borders: vec![vertical, horizontal],
        }
    } else if gpus == 2 {
        Exchange {
            rows: h + d,
            cols: n,
            borders: vec![(((h - d, 0), d, n), ((h, 0), d, n))],
        }
    } else {
        let north = (((d, 0), d, n), ((0, 0), d, n));
        let south = (((h, 0), d, n), ((h + d, 0), d, n));
        Exchange {
            rows: h + 2 * d,
            cols: n,
            borders: vec![north, south],
        }
    }
}

/// Predicted ms of `exchange` through pageable memory (D2H then H2D of every border).
pub fn predict_exchange(exchange: &Exchange, d2h: &RowModel, h2d: &RowModel) -> f64 {
    let each = |&(_, rows, width): &Section| d2h.predict(rows, width) + h2d.predict(rows, width);
    exchange.borders.iter().map(|(sent, _)| each(sent)).sum()
}

/// One path's measurements and fits.
#[derive(Clone, Debug)]
pub struct PathReport {
    pub path: Path,
    /// `timer_reg`'s start-up: one one-element copy (median), ms.
    pub single_ms: f64,
    /// The mean of [`SMALL_COPIES`] one-element copies, ms.
    pub small_mean_ms: f64,
    /// `(elements, ms)` of full-row copies.
    pub contiguous: Vec<(f64, f64)>,
    /// `(elements, ms)` at seeded random sizes, not fitted.
    pub held_out: Vec<(f64, f64)>,
    pub linear: LinearFit,
    pub power: PowerFit,
    pub rows: RowModel,
    /// Copies whose data came back wrong.
    pub failures: Vec<String>,
}

/// The value at `(row, col)` of a matrix `cols` wide: distinct within 2^24 elements, exact in f32.
pub fn pattern(row: usize, col: usize, cols: usize) -> f32 {
    ((row * cols + col) % (1 << 24)) as f32
}

/// [`HELD_OUT`] row counts in `1..=n`, log-uniform from the seeded Philox stream.
pub fn held_out_rows(n: usize) -> Result<Vec<usize>> {
    Ok(ferrocuda::random::cpu::uniform::<f32>(SEED, 0, HELD_OUT)?
        .into_iter()
        .map(|u| ((n as f64).powf(f64::from(u)).round() as usize).clamp(1, n))
        .collect())
}

/// thesis-comm-model.
pub struct ThesisCommModel;

/// thesis-comm-model's options.
#[derive(clap::Args, Clone, Debug)]
pub struct CommModelOptions {
    #[command(flatten)]
    pub plot: PlotOption,
    /// ghost rows per border of the exchange prediction [default: 2]
    #[arg(long, value_name = "N", default_value_t = DEFAULT_GHOST, hide_default_value = true)]
    pub ghost: usize,
}

impl Example for ThesisCommModel {
    const ID: &'static str = "thesis-comm-model";
    const DESCRIPTION: &'static str = "copy latency and bandwidth per path, linear and power-law fits, Table 6.4, border exchange predicted vs measured";
    const SIZE: Option<Size> = Some(
        Size::new(
            "side of the f32 matrix the copy paths are measured on (the border exchanges use their own sides)",
            MATRIX_SIDE,
            SIMULATOR_SIDE,
        )
        .at_least(4 * STRIDE_WIDTH),
    );
    const REPS: bool = true;
    type Args = CommModelOptions;

    /// The run's peak at `--size s`: the matrices the paths copy between, [`rig_plan`], and the
    /// border exchanges' arrays at the simulator's sides. On a GPU the exchanges use larger
    /// sides (up to 16384), which do not depend on `--size`: the run checks them itself before
    /// they start ([`exchange_plan`]).
    fn memory(run: &Run<CommModelOptions>, _gpu: &Gpu) -> Option<Footprint> {
        rig_plan(run.size)?.plus(exchange_plan(512)?)
    }

    /// Measures every path, prints the fits, Table 6.4, the exchange predictions and the
    /// thesis's comparisons, and draws the chart.
    fn run(gpu: &Gpu, run: &Run<CommModelOptions>) -> Result<Outcome> {
        let side = run.size;
        let ghost = run.args.ghost;
        let sides: &[usize] = gpu.pick(&[4096, 8192, 16384], &[256, 512]);
        if side < 4 * STRIDE_WIDTH {
            return Err(Error::InvalidArgument(format!(
                "--size must be at least {} so that Table 6.4's strided copy fits",
                4 * STRIDE_WIDTH
            )));
        }
        if ghost == 0 || ghost.checked_mul(4).is_none_or(|g| g > sides[0]) {
            return Err(Error::InvalidArgument(format!(
                "--ghost must be between 1 and {}, a quarter of the smallest exchange side",
                sides[0] / 4
            )));
        }
        let peer_gpu = match gpu.is_simulator() || device_count()? < 2 {
            true => None,
            false => Some(Gpu::new(usize::from(gpu.properties().ordinal == 0))?),
        };
        let peer = peer_gpu.as_ref().unwrap_or(gpu);
        let peer_access = peer_gpu.as_ref().map(|p| gpu.enable_peer_access(p)).transpose()?;
        // The exchanges' sides are not --size's: their plan is checked here, before anything runs.
        let largest = sides.iter().copied().max().unwrap_or(0);
        let plan = rig_plan(side)
            .and_then(|rig| rig.plus(exchange_plan(largest)?))
            .ok_or_else(|| Error::InvalidArgument(format!("--size {side}: the matrices' bytes overflow")))?;
        Capacity::of(gpu)?.check(
            &format!("--size {side} with the border exchanges up to {largest}"),
            plan,
        )?;
        let mut rig = Rig::new(gpu, peer, side, run.reps)?;
        let reports = Path::ALL
            .map(|path| rig.report(path))
            .into_iter()
            .collect::<Result<Vec<_>>>()?;

        println!(
            " Device: {}; matrix {side} x {side} f32, device pitch {} elements",
            gpu.properties().name,
            rig.pitch
        );
        match peer_access {
            Some(on) => println!(
                " device to device: GPU {} -> GPU {} (peer access {})",
                gpu.properties().ordinal,
                peer.properties().ordinal,
                if on { "on" } else { "off: staged by the driver" }
            ),
            None => println!(" device to device: within one GPU (only one available)"),
        }
        print_fits(&reports);
        let mut failures: Vec<String> = reports.iter().flat_map(|r| r.failures.clone()).collect();
        print_table_6_4(&mut rig, &reports[0], &mut failures)?;
        let exchange_ok = print_exchanges(gpu, sides, ghost, &reports, run.reps)?;
        print_thesis_comparisons(&reports[0], *sides.last().unwrap_or(&side), ghost);
        println!(
            " (medians of {} copies after a warm-up, {})",
            run.reps,
            gpu.timing_label()
        );
        run.args.plot.write(&chart(gpu), &series(&reports))?;

        let mut checks = vec![
            Check::condition(
                &match failures.is_empty() {
                    true => "every copy returned its source section, bit for bit".to_string(),
                    false => format!("copies returned wrong data: {}", failures.join(", ")),
                },
                failures.is_empty(),
            ),
            Check::condition(
                "every exchange left the device array equal to its CPU mirror",
                exchange_ok,
            ),
        ];
        // Modern copies are latency-bound up to hundreds of kilobytes, so b falls well below the
        // thesis's 0.99 at small sizes; what must hold is that both fits grow with size, once
        // the largest copy is past that range (below it, the slope is the timer's noise).
        let largest_bytes = side * side * size_of::<f32>();
        match largest_bytes >= MIN_FIT_BYTES {
            true => checks.extend(reports.iter().map(|r| {
                Check::condition(
                    &format!("{} fits sane (b = {:.3} > 0, t_word > 0)", r.path.name(), r.power.b),
                    r.power.b > 0.0 && r.linear.t_word_ms > 0.0,
                )
            })),
            false => println!(
                " (the fits' growth is not checked: the largest copy, {largest_bytes} bytes, is below {MIN_FIT_BYTES}, where copies are latency-bound)"
            ),
        }
        Ok(Outcome { checks })
    }
}
