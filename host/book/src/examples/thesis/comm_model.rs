//! thesis-comm-model: the thesis's communication model on today's hardware (thesis §5.3, §6.3.1,
//! Table 6.4, Appendix D.2 `timer_reg`): each copy path's latency and bandwidth, the linear model
//! `t = t_startup + n t_word` and the power law `t = a n^b` fitted to them, Table 6.4 with the
//! thesis's static model beside a per-row regression, and the border exchange of strip and block
//! partitions predicted from the fits against the same copies performed.
//!
//! The thesis had one path, GPU -> pageable host memory -> GPU through synchronous
//! `cudaMemcpy2D`; pinned `cudaMemcpy2DAsync` and device-to-device copies are extensions.
use crate::examples::plot_option;
use crate::examples::{Example, Flag, Options, Outcome, Size};
use crate::plot::{Chart, Series};
use ferrocuda::footprint::{self, Capacity, Footprint, try_vec};
use ferrocuda::gpu::{Copy2d, DeviceBuffer, Error, Gpu, PinnedBuffer, Result, Stream, device_count};
use ferrocuda::measure::{LinearFit, PowerFit, Stats, mean_relative_error, time_reps};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "thesis-comm-model",
    description: "copy latency and bandwidth per path, linear and power-law fits, Table 6.4, border exchange predicted vs measured",
    size: Some(Size {
        unit: "side of the f32 matrix the copy paths are measured on (the border exchanges use their own sides)",
        gpu: MATRIX_SIDE,
        simulator: SIMULATOR_SIDE,
        min: 4 * STRIDE_WIDTH,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: true,
    flags: &[
        plot_option::FLAG,
        Flag {
            name: "--ghost",
            value: Some("N"),
            help: "ghost rows per border of the exchange prediction [default: 2]",
            requires: None,
        },
    ],
    run,
};

/// The thesis's matrix side (Table 6.4): 11585 x 11585 f32 = 537 MB (`--size` sets it).
pub const MATRIX_SIDE: usize = 11585;
/// The simulator's side: its copies are host memcpys, so only the data path is of interest.
pub const SIMULATOR_SIDE: usize = 1024;
/// Row length of the strided copies (Table 6.4's 5792 x 5).
pub const STRIDE_WIDTH: usize = 5;
/// One-element copies averaged for `timer_reg`'s second figure.
pub const SMALL_COPIES: usize = 1000;
/// Seed of the held-out sizes.
pub const SEED: u64 = 2009;
/// Held-out sizes per path.
pub const HELD_OUT: usize = 6;
/// Default ghost depth: red-black SOR needs one ghost layer per colour half-sweep.
pub const DEFAULT_GHOST: usize = 2;
/// `cudaMallocPitch`'s row alignment on current GPUs, elements of f32 (512 bytes).
pub const PITCH_ALIGN: usize = 128;

/// The thesis's Table 6.4 (Tesla S1070, CUDA 2.1): `(K, N, measured ms, model ms)`.
pub const THESIS_TABLE_6_4: [(usize, usize, f64, f64); 5] = [
    (1, 0, 0.003, 0.003),
    (1, 1, 0.015, 0.015),
    (5, 11585, 0.145, 3384.557),
    (5, 5792, 0.049, 1692.140),
    (5792, 5, 7.443, 1710.659),
];

/// The run's peak at `--size s`: the matrices the paths copy between, [`rig_plan`], and the
/// border exchanges' arrays at the simulator's sides. On a GPU the exchanges use larger sides
/// (up to 16384), which do not depend on `--size`: the run checks them itself before they start
/// ([`exchange_plan`]).
pub fn memory(_: &Options, _gpu: &Gpu, s: usize) -> Option<Footprint> {
    rig_plan(s)?.plus(exchange_plan(512)?)
}

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
        match self {
            Path::PageableD2h => "pageable D2H",
            Path::PageableH2d => "pageable H2D",
            Path::PinnedD2h => "pinned D2H",
            Path::PinnedH2d => "pinned H2D",
            Path::DeviceToDevice => "device to device",
        }
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
    /// `(rows, width, ms)` of short-row copies.
    pub strided: Vec<(usize, usize, f64)>,
    /// `(elements, ms)` at seeded random sizes, not fitted.
    pub held_out: Vec<(f64, f64)>,
    pub linear: LinearFit,
    pub power: PowerFit,
    pub rows: RowModel,
    /// Copies whose data came back wrong.
    pub failures: Vec<String>,
}

/// The buffers every path copies between: a pitched device matrix holding [`pattern`], a dense
/// host matrix of the same, and a destination for each path.
struct Rig<'a> {
    gpu: &'a Gpu,
    /// GPU 1, or GPU 0 again when there is one GPU.
    peer: &'a Gpu,
    stream: Stream,
    side: usize,
    pitch: usize,
    a_d: DeviceBuffer<f32>,
    b_d: DeviceBuffer<f32>,
    c_d: DeviceBuffer<f32>,
    host_in: Vec<f32>,
    host_out: Vec<f32>,
    pinned_in: PinnedBuffer<f32>,
    pinned_out: PinnedBuffer<f32>,
    reps: usize,
}

/// The value at `(row, col)` of a matrix `cols` wide: distinct within 2^24 elements, exact in f32.
pub fn pattern(row: usize, col: usize, cols: usize) -> f32 {
    ((row * cols + col) % (1 << 24)) as f32
}

/// `rows x cols` of [`pattern`] stored `pitch` apart (padding 0).
fn matrix(rows: usize, cols: usize, pitch: usize) -> Result<Vec<f32>> {
    let mut m = try_vec(rows * pitch, 0.0)?;
    for (r, row) in m.chunks_mut(pitch).enumerate() {
        for (c, x) in row[..cols].iter_mut().enumerate() {
            *x = pattern(r, c, cols);
        }
    }
    Ok(m)
}

/// A copy of the section `rows x width` at `(row, col)` between two matrices of these pitches.
fn section(src_pitch: usize, dst_pitch: usize, (row, col): (usize, usize), rows: usize, width: usize) -> Copy2d {
    Copy2d {
        src_offset: row * src_pitch + col,
        src_pitch,
        dst_offset: row * dst_pitch + col,
        dst_pitch,
        width,
        height: rows,
    }
}

/// `cudaMallocPitch`'s pitch for rows of `cols` f32.
fn pitch_of(cols: usize) -> usize {
    cols.div_ceil(PITCH_ALIGN) * PITCH_ALIGN
}

impl<'a> Rig<'a> {
    fn new(gpu: &'a Gpu, peer: &'a Gpu, side: usize, reps: usize) -> Result<Self> {
        let pitch = pitch_of(side);
        let host_in = matrix(side, side, side)?;
        let mut pinned_in = gpu.pinned(side * side)?;
        pinned_in.as_mut_slice()?.copy_from_slice(&host_in);
        Ok(Self {
            gpu,
            peer,
            stream: gpu.new_stream()?,
            side,
            pitch,
            a_d: gpu.upload(&matrix(side, side, pitch)?)?,
            b_d: gpu.zeros(side * pitch)?,
            c_d: peer.zeros(side * pitch)?,
            host_out: try_vec(side * side, 0.0)?,
            pinned_out: gpu.pinned(side * side)?,
            host_in,
            pinned_in,
            reps,
        })
    }

    /// The copy of the first `rows x width` elements along `path`.
    fn copy(&self, path: Path, rows: usize, width: usize) -> Copy2d {
        let (d, h) = (self.pitch, self.side);
        match path {
            Path::PageableD2h | Path::PinnedD2h => section(d, h, (0, 0), rows, width),
            Path::PageableH2d | Path::PinnedH2d => section(h, d, (0, 0), rows, width),
            Path::DeviceToDevice => section(d, d, (0, 0), rows, width),
        }
    }

    /// Issues one copy along `path` (the asynchronous ones on the rig's stream).
    fn issue(&mut self, path: Path, c: Copy2d) -> Result<()> {
        let (gpu, s) = (self.gpu, &self.stream);
        match path {
            Path::PageableD2h => gpu.download_2d(&self.a_d, &mut self.host_out, c),
            Path::PageableH2d => gpu.upload_2d(&self.host_in, &mut self.b_d, c),
            Path::PinnedD2h => gpu.download_2d_async(s, &self.a_d, &mut self.pinned_out, c),
            Path::PinnedH2d => gpu.upload_2d_async(s, &self.pinned_in, &mut self.b_d, c),
            Path::DeviceToDevice => gpu.copy_2d_async(s, &self.a_d, &mut self.c_d, c),
        }
    }

    /// Writes `value` over `path`'s destination section `rows x width` and returns what it then
    /// holds there, densely (`value`, unless `value` is `None`, which only reads).
    fn destination(&mut self, path: Path, rows: usize, width: usize, value: Option<f32>) -> Result<Vec<f32>> {
        let mut out = try_vec(rows * width, value.unwrap_or(0.0))?;
        let dense = section(self.pitch, width, (0, 0), rows, width);
        let host_rows = |m: &mut [f32], side: usize, out: &mut [f32]| {
            for (r, o) in m.chunks_mut(side).zip(out.chunks_mut(width)) {
                match value {
                    Some(v) => r[..width].fill(v),
                    None => o.copy_from_slice(&r[..width]),
                }
            }
        };
        let to_device = Copy2d {
            src_pitch: width,
            dst_pitch: self.pitch,
            ..dense
        };
        let (gpu, peer) = (self.gpu, self.peer);
        match (path, value) {
            (Path::PageableD2h, _) => host_rows(&mut self.host_out, self.side, &mut out),
            (Path::PinnedD2h, _) => host_rows(self.pinned_out.as_mut_slice()?, self.side, &mut out),
            (Path::DeviceToDevice, Some(_)) => peer.upload_2d(&out, &mut self.c_d, to_device)?,
            (Path::DeviceToDevice, None) => peer.download_2d(&self.c_d, &mut out, dense)?,
            (_, Some(_)) => gpu.upload_2d(&out, &mut self.b_d, to_device)?,
            (_, None) => gpu.download_2d(&self.b_d, &mut out, dense)?,
        }
        Ok(out)
    }

    /// Times `rows x width` along `path` (median of `reps` after a warm-up), after one copy
    /// into a poisoned destination whose result must equal the source section.
    fn measure(&mut self, path: Path, rows: usize, width: usize, failures: &mut Vec<String>) -> Result<Stats> {
        let c = self.copy(path, rows, width);
        self.destination(path, rows, width, Some(-1.0))?;
        self.issue(path, c)?;
        let got = self.destination(path, rows, width, None)?;
        let want: Vec<f32> = (0..rows * width)
            .map(|i| pattern(i / width, i % width, self.side))
            .collect();
        let check = Check::compare("", &got, &want, Tolerance::EXACT);
        if !check.passed() {
            failures.push(format!("{} {rows}x{width}", path.name()));
        }
        let gpu = self.gpu;
        time_reps(gpu, self.reps, || self.issue(path, c))
    }

    /// The mean of [`SMALL_COPIES`] one-element copies, timed together.
    fn small_mean(&mut self, path: Path) -> Result<f64> {
        let c = self.copy(path, 1, 1);
        let gpu = self.gpu;
        let ms = gpu.time_ms(|| (0..SMALL_COPIES).try_for_each(|_| self.issue(path, c)))?;
        Ok(ms / SMALL_COPIES as f64)
    }

    /// Every measurement of `path`, and its fits.
    fn report(&mut self, path: Path) -> Result<PathReport> {
        let n = self.side;
        let mut failures = Vec::new();
        let single_ms = self.measure(path, 1, 1, &mut failures)?.median_ms;
        let small_mean_ms = self.small_mean(path)?;
        let mut contiguous = Vec::new();
        for k in powers_of_4_to(n).chain([n]) {
            contiguous.push(((k * n) as f64, self.measure(path, k, n, &mut failures)?.median_ms));
        }
        let mut strided = Vec::new();
        for k in powers_of_4_to(n / 2) {
            let ms = self.measure(path, k, STRIDE_WIDTH, &mut failures)?.median_ms;
            strided.push((k, STRIDE_WIDTH, ms));
        }
        let mut held_out = Vec::new();
        for k in held_out_rows(n)? {
            held_out.push(((k * n) as f64, self.measure(path, k, n, &mut failures)?.median_ms));
        }
        let linear = LinearFit::fit(&contiguous);
        Ok(PathReport {
            path,
            single_ms,
            small_mean_ms,
            power: PowerFit::fit(&contiguous),
            rows: RowModel::fit(linear, &strided),
            linear,
            contiguous,
            strided,
            held_out,
            failures,
        })
    }
}

/// 1, 4, 16, ... below `n`.
fn powers_of_4_to(n: usize) -> impl Iterator<Item = usize> {
    std::iter::successors(Some(1usize), |k| k.checked_mul(4)).take_while(move |&k| k < n)
}

/// [`HELD_OUT`] row counts in `1..=n`, log-uniform from the seeded Philox stream.
pub fn held_out_rows(n: usize) -> Result<Vec<usize>> {
    Ok(ferrocuda::random::cpu::uniform::<f32>(SEED, 0, HELD_OUT)?
        .into_iter()
        .map(|u| ((n as f64).powf(f64::from(u)).round() as usize).clamp(1, n))
        .collect())
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

/// Performs `exchange` with synchronous pageable `cudaMemcpy2D`: the median ms over `reps`,
/// and whether, after one exchange, the device array equals a CPU mirror of it.
pub fn measure_exchange(gpu: &Gpu, exchange: &Exchange, reps: usize) -> Result<(f64, bool)> {
    let (cols, pitch) = (exchange.cols, pitch_of(exchange.cols));
    let mut a_d = gpu.upload(&matrix(exchange.rows, cols, pitch)?)?;
    let mut host = try_vec(exchange.rows * cols, 0.0f32)?;
    let mut mirror = matrix(exchange.rows, cols, pitch)?;
    let once = |a_d: &mut DeviceBuffer<f32>, host: &mut Vec<f32>| -> Result<()> {
        for &((at, rows, width), (ghost, _, _)) in &exchange.borders {
            gpu.download_2d(a_d, host, section(pitch, cols, at, rows, width))?;
            let back = section(cols, pitch, at, rows, width);
            let to_ghost = Copy2d {
                dst_offset: ghost.0 * pitch + ghost.1,
                ..back
            };
            gpu.upload_2d(host, a_d, to_ghost)?;
        }
        Ok(())
    };
    once(&mut a_d, &mut host)?;
    for &((at, rows, width), (ghost, _, _)) in &exchange.borders {
        for r in 0..rows {
            let from = (at.0 + r) * pitch + at.1;
            mirror.copy_within(from..from + width, (ghost.0 + r) * pitch + ghost.1);
        }
    }
    let exact = gpu.download(&a_d)? == mirror;
    let stats = time_reps(gpu, reps, || once(&mut a_d, &mut host))?;
    Ok((stats.median_ms, exact))
}

/// Measures every path, prints the fits, Table 6.4, the exchange predictions and the thesis's
/// comparisons, and draws the chart.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let side = options.size_or(gpu.pick(MATRIX_SIDE, SIMULATOR_SIDE))?;
    let ghost = options.parsed::<usize>("--ghost")?.unwrap_or(DEFAULT_GHOST);
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
    plot_option::check_path(options)?;
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
    let mut rig = Rig::new(gpu, peer, side, options.reps)?;
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
    let exchange_ok = print_exchanges(gpu, sides, ghost, &reports, options.reps)?;
    print_thesis_comparisons(&reports[0], *sides.last().unwrap_or(&side), ghost);
    println!(
        " (medians of {} copies after a warm-up, {})",
        options.reps,
        gpu.timing_label()
    );
    plot_option::write_if_asked(options, &chart(gpu), &series(&reports))?;

    let mut checks = vec![Check::condition(
        &match failures.is_empty() {
            true => "every copy returned its source section, bit for bit".to_string(),
            false => format!("copies returned wrong data: {}", failures.join(", ")),
        },
        failures.is_empty(),
    )];
    checks.push(Check::condition(
        "every exchange left the device array equal to its CPU mirror",
        exchange_ok,
    ));
    for r in &reports {
        // Modern copies are latency-bound up to hundreds of kilobytes, so b falls well below
        // the thesis's 0.99 at small sizes; what must hold is that both fits grow with size.
        let sane = r.power.b > 0.0 && r.linear.t_word_ms > 0.0;
        checks.push(Check::condition(
            &format!("{} fits sane (b = {:.3} > 0, t_word > 0)", r.path.name(), r.power.b),
            sane,
        ));
    }
    Ok(Outcome { checks })
}

/// One line per path: `timer_reg`'s figures, both fits and their held-out errors.
fn print_fits(reports: &[PathReport]) {
    println!();
    println!(
        " Per path: timer_reg (one 1-element copy: the smallest 2-D copy, as width 0 is refused), the linear fit t = t_startup + n t_word and the power law t = a n^b over full-row copies, the per-row start-up from short-row copies, and the mean relative error of each fit at {HELD_OUT} held-out random sizes (seed {SEED}):"
    );
    println!(
        " {:<17} {:>10} {:>10} {:>11} {:>10} {:>8} {:>10} {:>6} {:>10} {:>8} {:>8}",
        "path", "1 copy ms", "mean 1000", "t_start ms", "t_word ns", "GB/s", "a", "b", "t_row us", "err lin", "err pow"
    );
    for r in reports {
        println!(
            " {:<17} {:>10} {:>10} {:>11} {:>10} {:>8.2} {:>10.3e} {:>6.3} {:>10} {:>7.1}% {:>7.1}%",
            r.path.name(),
            sig(r.single_ms),
            sig(r.small_mean_ms),
            sig(r.linear.t_startup_ms),
            sig(r.linear.t_word_ms * 1e6),
            4.0 / (r.linear.t_word_ms * 1e6),
            r.power.a,
            r.power.b,
            sig(r.rows.t_row_ms * 1e3),
            100.0 * mean_relative_error(|n| r.linear.predict(n), &r.held_out),
            100.0 * mean_relative_error(|n| r.power.predict(n), &r.held_out),
        );
    }
}

/// Table 6.4 for pageable D2H: measured, the thesis's static model from the two small copies,
/// the per-row regression, and the thesis's numbers.
fn print_table_6_4(rig: &mut Rig, d2h: &PathReport, failures: &mut Vec<String>) -> Result<()> {
    let n = rig.side;
    let t_startup = d2h.single_ms;
    let t_word = d2h.small_mean_ms - d2h.single_ms;
    println!();
    println!(
        " Table 6.4, pageable D2H from a pitched {n} x {n} matrix. Static model (the thesis's): t_startup = one 1-element copy = {} ms, t_word = mean of {SMALL_COPIES} 1-element copies - t_startup = {} ms. Row model: t_startup + K (t_row + N t_word) from the fits.",
        sig(t_startup),
        sig(t_word)
    );
    if t_word <= 0.0 {
        println!(
            " (timer_reg's t_word is not positive here: our smallest copy already moves one element, so the difference is noise)"
        );
    }
    println!(
        " {:>5} {:>6} {:>10} {:>16} {:>12} | thesis (Tesla S1070, CUDA 2.1): {:>6} {:>5} {:>9} {:>10}",
        "K", "N", "measured", "K(ts + N tw)", "row model", "K", "N", "measured", "model"
    );
    let rows = [(1, 0), (1, 1), (5, n), (5, n / 2), (n / 2, STRIDE_WIDTH)];
    for ((k, width), thesis) in rows.into_iter().zip(THESIS_TABLE_6_4) {
        let ms = match width {
            0 => d2h.single_ms,
            1 => d2h.small_mean_ms,
            w => rig.measure(Path::PageableD2h, k, w, failures)?.median_ms,
        };
        let label = if width == 0 {
            "0 (1)".to_string()
        } else {
            width.to_string()
        };
        println!(
            " {:>5} {:>6} {:>10} {:>16} {:>12} | {:>38} {:>5} {:>9.3} {:>10.3}",
            k,
            label,
            sig(ms),
            sig(k as f64 * (t_startup + width as f64 * t_word)),
            sig(d2h.rows.predict(k, width.max(1))),
            thesis.0,
            thesis.1,
            thesis.2,
            thesis.3,
        );
    }
    println!(
        " (\"0 (1)\": our smallest copy moves one element; the row 1 x 1 is the mean of {SMALL_COPIES} such copies)"
    );
    Ok(())
}

/// Predicted against measured exchange per iteration, busiest GPU; returns whether every
/// exchange's data was right.
fn print_exchanges(gpu: &Gpu, sides: &[usize], ghost: usize, reports: &[PathReport], reps: usize) -> Result<bool> {
    println!();
    println!(
        " Border exchange per iteration, busiest GPU, {ghost} ghost rows, GPU -> pageable host -> GPU (cudaMemcpy2D), ms:"
    );
    println!(
        " {:>6} {:>5} {:>7} {:>12} {:>14} {:>10}",
        "N", "GPUs", "layout", "row model", "linear only", "measured"
    );
    let mut exact = true;
    let (d2h, h2d) = (&reports[0].rows, &reports[1].rows);
    let linear_only = |e: &Exchange| {
        let words = |&(_, rows, width): &Section| (rows * width) as f64;
        e.borders
            .iter()
            .map(|(s, _)| d2h.linear.predict(words(s)) + h2d.linear.predict(words(s)))
            .sum::<f64>()
    };
    for &n in sides {
        for (gpus, blocks) in [(2, false), (4, false), (4, true)] {
            let exchange = busiest_exchange(n, gpus, blocks, ghost);
            let (ms, ok) = measure_exchange(gpu, &exchange, reps)?;
            exact &= ok;
            let layout = if blocks { "2x2" } else { "strips" };
            let predicted = predict_exchange(&exchange, d2h, h2d);
            let row = [predicted, linear_only(&exchange), ms].map(sig);
            println!(
                " {n:>6} {gpus:>5} {layout:>7} {:>12} {:>14} {:>10}",
                row[0], row[1], row[2]
            );
        }
    }
    Ok(exact)
}

/// (5.1), (5.2) and the conclusions (5.5)-(5.7), with the static and the fitted parameters.
fn print_thesis_comparisons(d2h: &PathReport, n: usize, k: usize) {
    println!();
    println!(" The thesis's analytic comparison (5.1)-(5.7) at n = {n}, k = {k}, ms:");
    let static_word = d2h.small_mean_ms - d2h.single_ms;
    let sets = [
        ("static (timer_reg)", d2h.single_ms, static_word),
        ("fitted (t_row, t_word)", d2h.rows.t_row_ms, d2h.linear.t_word_ms),
    ];
    for (name, ts, tw) in sets {
        let (nf, kf) = (n as f64, k as f64);
        let [end, mid, block] = thesis_exchange_ms(nf, kf, ts, tw);
        let [t_end, t_mid] = block_thresholds(nf, kf, tw);
        let verdict = |slower: bool| if slower { "strips win" } else { "blocks win" };
        println!(
            "  {name}: t_startup {ts:.3e}, t_word {tw:.3e}; strip end {}, strip middle {}, block {}; end GPUs: {} (t_startup > {t_end:.3e}), middle GPUs: {} (t_startup > {t_mid:.3e}; n -> inf: > {:.3e})",
            sig(end),
            sig(mid),
            sig(block),
            verdict(ts > t_end),
            verdict(ts > t_mid),
            2.0 * kf * tw,
        );
    }
}

/// `x` with four significant digits: times span microseconds (simulator) to tens of ms.
fn sig(x: f64) -> String {
    let magnitude = if x == 0.0 || !x.is_finite() {
        0
    } else {
        x.abs().log10().floor() as i32
    };
    let digits = (3 - magnitude).clamp(0, 12) as usize;
    format!("{x:.digits$}")
}

/// The chart's frame: log-log, time as log10(ms) as the chart's y axis is linear.
fn chart(gpu: &Gpu) -> Chart {
    Chart::new(
        format!("2-D copy time and fits, {}", gpu.properties().name),
        "bytes",
        "log10(time, ms)",
    )
    .log_x()
}

/// Per path: the measured full-row copies, the linear fit and the power law (where positive).
fn series(reports: &[PathReport]) -> Vec<Series> {
    let mut out = Vec::new();
    for r in reports {
        let at = |f: &dyn Fn(f64) -> f64| {
            let points = r.contiguous.iter().map(|&(n, _)| (4.0 * n, f(n).log10()));
            points.filter(|p| p.1.is_finite()).collect()
        };
        let name = r.path.name();
        out.push(Series::new(
            name,
            r.contiguous.iter().map(|&(n, t)| (4.0 * n, t.log10())).collect(),
        ));
        out.push(Series::new(format!("{name} linear"), at(&|n| r.linear.predict(n))));
        out.push(Series::new(format!("{name} power"), at(&|n| r.power.predict(n))));
    }
    out
}
