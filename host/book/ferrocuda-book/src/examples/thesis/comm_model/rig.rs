//! thesis-comm-model's measurements: the pitched matrices and buffers every copy path copies
//! between, each path's copies checked and timed, the fits of those times, and the border
//! exchanges performed.
use super::{Exchange, Path, PathReport, RowModel, SMALL_COPIES, STRIDE_WIDTH, held_out_rows, pattern, pitch_of};
use ferrocuda::footprint::{try_from_fn, try_vec};
use ferrocuda::gpu::{Copy2d, DeviceBuffer, Gpu, PinnedBuffer, Result, Stream};
use ferrocuda::measure::{LinearFit, PowerFit, Stats, time_reps};
use ferrocuda::verify::{Check, Tolerance};

/// The buffers every path copies between: a pitched device matrix holding [`pattern`], a dense
/// host matrix of the same, and a destination for each path.
pub(super) struct Rig<'a> {
    gpu: &'a Gpu,
    /// GPU 1, or GPU 0 again when there is one GPU.
    peer: &'a Gpu,
    stream: Stream,
    pub(super) side: usize,
    pub(super) pitch: usize,
    a_d: DeviceBuffer<f32>,
    b_d: DeviceBuffer<f32>,
    c_d: DeviceBuffer<f32>,
    host_in: Vec<f32>,
    host_out: Vec<f32>,
    pinned_in: PinnedBuffer<f32>,
    pinned_out: PinnedBuffer<f32>,
    reps: usize,
}

/// `rows x cols` of [`pattern`] stored `pitch` apart (padding 0).
pub(super) fn matrix(rows: usize, cols: usize, pitch: usize) -> Result<Vec<f32>> {
    try_from_fn(rows * pitch, |i| match i % pitch {
        c if c < cols => pattern(i / pitch, c, cols),
        _ => 0.0,
    })
}

/// A copy of the section `rows x width` at `(row, col)` between two matrices of these pitches.
pub(super) fn section(
    src_pitch: usize,
    dst_pitch: usize,
    (row, col): (usize, usize),
    rows: usize,
    width: usize,
) -> Copy2d {
    Copy2d {
        src_offset: row * src_pitch + col,
        src_pitch,
        dst_offset: row * dst_pitch + col,
        dst_pitch,
        width,
        height: rows,
    }
}

impl<'a> Rig<'a> {
    pub(super) fn new(gpu: &'a Gpu, peer: &'a Gpu, side: usize, reps: usize) -> Result<Self> {
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
            (Path::DeviceToDevice, Some(_)) => {
                // From pageable memory `cuMemcpy2D` returns once the bytes are staged: wait for
                // the poison to land, or it may land after GPU 0's copy (another device's stream).
                peer.upload_2d(&out, &mut self.c_d, to_device)?;
                peer.synchronize()?
            }
            (Path::DeviceToDevice, None) => peer.download_2d(&self.c_d, &mut out, dense)?,
            (_, Some(_)) => gpu.upload_2d(&out, &mut self.b_d, to_device)?,
            (_, None) => gpu.download_2d(&self.b_d, &mut out, dense)?,
        }
        Ok(out)
    }

    /// Times `rows x width` along `path` (median of `reps` after a warm-up), after one copy
    /// into a poisoned destination whose result must equal the source section.
    pub(super) fn measure(
        &mut self,
        path: Path,
        rows: usize,
        width: usize,
        failures: &mut Vec<String>,
    ) -> Result<Stats> {
        let c = self.copy(path, rows, width);
        self.destination(path, rows, width, Some(-1.0))?;
        self.issue(path, c)?;
        // The device-to-device copy is queued on GPU 0's stream and read back through GPU 1,
        // whose stream does not wait for GPU 0's: wait for the copy first.
        self.gpu.synchronize_stream(&self.stream)?;
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
    pub(super) fn report(&mut self, path: Path) -> Result<PathReport> {
        let n = self.side;
        let mut failures = Vec::new();
        let single_ms = self.measure(path, 1, 1, &mut failures)?.median_ms;
        let small_mean_ms = self.small_mean(path)?;
        let mut ms = |rows, width| Ok(self.measure(path, rows, width, &mut failures)?.median_ms);
        let contiguous: Vec<_> = powers_of_4_to(n)
            .chain([n])
            .map(|k| Ok(((k * n) as f64, ms(k, n)?)))
            .collect::<Result<_>>()?;
        let strided: Vec<_> = powers_of_4_to(n / 2)
            .map(|k| Ok((k, STRIDE_WIDTH, ms(k, STRIDE_WIDTH)?)))
            .collect::<Result<_>>()?;
        let held_out: Vec<_> = held_out_rows(n)?
            .into_iter()
            .map(|k| Ok(((k * n) as f64, ms(k, n)?)))
            .collect::<Result<_>>()?;
        let linear = LinearFit::fit(&contiguous);
        Ok(PathReport {
            path,
            single_ms,
            small_mean_ms,
            power: PowerFit::fit(&contiguous),
            rows: RowModel::fit(linear, &strided),
            linear,
            contiguous,
            held_out,
            failures,
        })
    }
}

/// Performs `exchange` with synchronous pageable `cudaMemcpy2D`: the median ms over `reps`,
/// and whether, after one exchange, the device array equals a CPU mirror of it.
pub(super) fn measure_exchange(gpu: &Gpu, exchange: &Exchange, reps: usize) -> Result<(f64, bool)> {
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

/// 1, 4, 16, ... below `n`.
fn powers_of_4_to(n: usize) -> impl Iterator<Item = usize> {
    std::iter::successors(Some(1usize), |k| k.checked_mul(4)).take_while(move |&k| k < n)
}
