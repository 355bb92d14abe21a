//! ch4-transpose-p2p: a matrix transpose over several devices, each holding a horizontal slab,
//! in `nDevices` stages of peer-to-peer tile copies and tile transposes (book §4.1.3 and
//! Appendix D.4.1, `program transposeP2P`; Figures 4.2 and 4.3).
//!
//! Stage 0 transposes each device's diagonal tile; in stage `s` the receiver `r` copies tile `r`
//! of the slab of device `(s + r) mod nDevices` into its receive buffer (`cudaMemcpy2DAsync`)
//! and transposes it, both in the stream `(r, s)`, so the stages' copies and kernels overlap
//! (async mode); the sync mode uses `cudaMemcpy2D` and the default stream.
use super::{DevicesOption, TRANSPOSE_SIZE, any_shared, enable_peer_access, gb_per_s, one_device, pairs, print_layout};
use crate::example::{Example, Outcome, Run, Size};
use ferrocuda::footprint::{self, Footprint, try_vec, try_with_capacity};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, Result, Stream};
use ferrocuda::transpose::{self, SlabLayout, TILE_DIM};
use ferrocuda::verify::{Check, Tolerance};
use std::time::Instant;

/// Seed of the input (the book's `random_number`).
pub const SEED: u64 = 2024;

/// ch4-transpose-p2p.
pub struct Ch4TransposeP2p;

/// ch4-transpose-p2p's options.
#[derive(clap::Args, Clone, Debug)]
pub struct TransposeP2pOptions {
    #[command(flatten)]
    pub devices: DevicesOption,
    /// the book's asyncVersion = .false., .true., or both runs (default: both, as the book reports)
    #[arg(
        long,
        value_name = "sync|async|both",
        default_value = "both",
        hide_default_value = true,
        hide_possible_values = true
    )]
    pub mode: Modes,
    /// rows ny of the matrix, a multiple of 32 x the device count [default: --size, square]
    #[arg(long, value_name = "N", value_parser = crate::cli::positive)]
    pub ny: Option<usize>,
}

/// `--mode`: the book's `asyncVersion`, or both runs.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum Modes {
    Sync,
    Async,
    Both,
}

impl Example for Ch4TransposeP2p {
    const ID: &'static str = "ch4-transpose-p2p";
    const DESCRIPTION: &'static str = "transpose of a matrix in slabs over several devices, staged peer-to-peer copies, sync and async, against a CPU transpose (book 4.1.3)";
    const SIZE: Option<Size> = Some(Size {
        unit: "columns nx of the matrix (and its rows, unless --ny), a multiple of 32 x the device count (64 with 2 devices); logical devices sharing a GPU each need their slabs on it",
        min: 2 * TILE_DIM,
        ..TRANSPOSE_SIZE
    });
    const REPS: bool = true;
    type Args = TransposeP2pOptions;

    /// The run's peak for `--size n` (and `--ny`, each rounded up to the multiple of 32 x the
    /// device count the layout needs, so that the largest size that fits is one the run takes):
    /// on each logical device its input slab, receive buffer and output slab (`nx * ny /
    /// devices` floats each), those of the busiest GPU together (all of them on the simulator),
    /// while logical device 0 also holds the one-device comparison's input and output (the whole
    /// matrix each); on the host the input, the CPU transpose and the gathered output (the whole
    /// matrix each) with one slab being downloaded.
    fn memory(run: &Run<TransposeP2pOptions>, gpu: &Gpu) -> Option<Footprint> {
        let devices = run.args.devices.plan(gpu, 2);
        let multiple = TILE_DIM.checked_mul(devices.logical)?;
        let nx = run.size.checked_next_multiple_of(multiple)?;
        let ny = run
            .args
            .ny
            .map_or(Some(nx), |ny| ny.checked_next_multiple_of(multiple))?;
        let elements = footprint::elements(&[nx, ny])?;
        let slab = elements / devices.logical;
        Footprint::NONE
            .device::<f32>(3 * devices.busiest(devices.logical), slab)?
            .device::<f32>(2, elements)?
            .host::<f32>(3, elements)?
            .host::<f32>(1, slab)
    }

    /// The book's program on the logical devices.
    fn run(gpu: &Gpu, run: &Run<TransposeP2pOptions>) -> Result<Outcome> {
        let modes: &[Mode] = match run.args.mode {
            Modes::Sync => &[Mode::Sync],
            Modes::Async => &[Mode::Async],
            Modes::Both => &[Mode::Sync, Mode::Async],
        };
        let gpus = run.args.devices.open(gpu, 2)?;
        let nx = run.size;
        let ny = run.args.ny.unwrap_or(nx);
        program(&gpus, nx, ny, modes, run.reps)
    }
}

/// The book's `asyncVersion`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// `cudaMemcpy2D` and the default stream: stages run one after another.
    Sync,
    /// `cudaMemcpy2DAsync` and a stream per (device, stage): stages overlap.
    Async,
}

impl Mode {
    /// The book's line: `async mode: F` or `T`.
    pub fn book_label(self) -> &'static str {
        match self {
            Mode::Sync => "F",
            Mode::Async => "T",
        }
    }
}

/// The distributed transpose: each device's input slab, receive buffer, output slab, and its
/// stream per stage (the book's `d_idata`, `d_rdata`, `d_tdata`, `streamID(p, stage)`).
pub struct P2pTranspose<'g> {
    gpus: &'g [Gpu],
    layout: SlabLayout,
    idata: Vec<DeviceBuffer<f32>>,
    rdata: Vec<DeviceBuffer<f32>>,
    tdata: Vec<DeviceBuffer<f32>>,
    streams: Vec<Vec<Stream>>,
}

impl<'g> P2pTranspose<'g> {
    /// Places `input` (`ny` rows of `nx`) on the devices, one slab each, and enables peer
    /// access between every pair that allows it (both ways).
    pub fn new(gpus: &'g [Gpu], layout: SlabLayout, input: &[f32]) -> Result<Self> {
        if gpus.len() != layout.parts() || input.len() != layout.nx() * layout.ny() {
            return Err(Error::InvalidArgument(format!(
                "a transpose over {} devices needs a layout of as many parts and {} input elements",
                gpus.len(),
                layout.nx() * layout.ny()
            )));
        }
        enable_peer_access(gpus)?;
        let mut idata = Vec::new();
        let mut rdata = Vec::new();
        let mut tdata = Vec::new();
        let mut streams = Vec::new();
        for (p, g) in gpus.iter().enumerate() {
            idata.push(g.upload(&input[layout.input_slab(p)])?);
            rdata.push(g.zeros::<f32>(layout.input_slab_len())?);
            tdata.push(g.upload(&try_vec(layout.output_slab_len(), -1.0f32)?)?);
            streams.push(
                (0..layout.parts())
                    .map(|_| g.new_stream())
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        Ok(Self {
            gpus,
            layout,
            idata,
            rdata,
            tdata,
            streams,
        })
    }

    /// Sets every output slab to -1 (the book's initial `d_tdata`), so a tile never written shows.
    pub fn reset_output(&mut self) -> Result<()> {
        let minus_one = try_vec(self.layout.output_slab_len(), -1.0f32)?;
        for (g, t) in self.gpus.iter().zip(&mut self.tdata) {
            g.upload_into(&minus_one, t)?;
        }
        Ok(())
    }

    /// Waits for every device's streams and default stream.
    pub fn synchronize(&self) -> Result<()> {
        for (g, streams) in self.gpus.iter().zip(&self.streams) {
            for s in streams {
                g.synchronize_stream(s)?;
            }
            g.synchronize()?;
        }
        Ok(())
    }

    /// One transpose in `mode`, all stages queued; returns once queued (async) or done (sync).
    /// With `events`, records an event before each copy, after it, and after each kernel, and
    /// returns them per (device, stage).
    fn issue(&mut self, mode: Mode, events: bool) -> Result<Vec<[Option<ferrocuda::gpu::Event>; 3]>> {
        let p = self.layout.parts();
        let mut marks = Vec::new();
        for stage in 0..p {
            for r in 0..p {
                let s = self.layout.p2p_sender(stage, r);
                let g = &self.gpus[r];
                let stream = match mode {
                    Mode::Async => Some(&self.streams[r][stage]),
                    Mode::Sync => None,
                };
                let record = |on: bool| if on { g.record_event(stream).map(Some) } else { Ok(None) };
                let before_copy = record(events && stage > 0)?;
                let source = if stage == 0 {
                    &self.idata[r]
                } else {
                    let copy = self.layout.peer_copy(r, s);
                    match stream {
                        Some(st) => g.copy_2d_async(st, &self.idata[s], &mut self.rdata[r], copy)?,
                        None => g.copy_2d(&self.idata[s], &mut self.rdata[r], copy)?,
                    }
                    &self.rdata[r]
                };
                let after_copy = record(events)?;
                transpose::cuda_transpose(g, stream, &mut self.tdata[r], source, self.layout.tile_transpose(s))?;
                let after_kernel = record(events)?;
                marks.push([before_copy, after_copy, after_kernel]);
            }
        }
        Ok(marks)
    }

    /// One timed transpose: every device synchronised before and after, wall clock between
    /// (the book's `wallclock()`), seconds.
    pub fn timed(&mut self, mode: Mode) -> Result<f64> {
        self.synchronize()?;
        let start = Instant::now();
        self.issue(mode, false)?;
        self.synchronize()?;
        Ok(start.elapsed().as_secs_f64())
    }

    /// One async transpose with events around each copy and kernel: where the time goes, the
    /// copies' and the kernels' ms summed over streams.
    pub fn stage_times(&mut self) -> Result<(f64, f64)> {
        self.synchronize()?;
        let marks = self.issue(Mode::Async, true)?;
        self.synchronize()?;
        let (mut copy_ms, mut kernel_ms) = (0.0, 0.0);
        for [before_copy, after_copy, after_kernel] in &marks {
            if let (Some(b), Some(a)) = (before_copy, after_copy) {
                copy_ms += b.elapsed_ms(a)?;
            }
            if let (Some(a), Some(k)) = (after_copy, after_kernel) {
                kernel_ms += a.elapsed_ms(k)?;
            }
        }
        Ok((copy_ms, kernel_ms))
    }

    /// The whole transposed matrix (`nx` rows of `ny`): the output slabs in order.
    pub fn gather(&self) -> Result<Vec<f32>> {
        let mut out = try_with_capacity(self.layout.nx() * self.layout.ny())?;
        for (g, t) in self.gpus.iter().zip(&self.tdata) {
            out.extend(g.download(t)?);
        }
        Ok(out)
    }
}

/// The program on `gpus`: an `nx x ny` matrix transposed in each of `modes`, `reps` times.
fn program(gpus: &[Gpu], nx: usize, ny: usize, modes: &[Mode], reps: usize) -> Result<Outcome> {
    let layout = SlabLayout::new(nx, ny, gpus.len())?;
    print_layout(
        &layout,
        layout.tile_transpose(0).shape()?.grid,
        "",
        "nDevices",
        "p2pTileDim",
    );
    let p = gpus.len();
    let staged: Vec<String> = pairs(p)
        .filter(|&(i, j)| !gpus[i].shares_device_with(&gpus[j]) && !gpus[i].is_simulator())
        .filter(|&(i, j)| !gpus[i].can_access_peer(&gpus[j]).unwrap_or(false))
        .map(|(i, j)| format!("{j}-{i}"))
        .collect();
    if gpus[0].is_simulator() && p > 1 {
        println!(
            "The devices are CPU simulators: each stage's copy is a host memory copy and nothing overlaps, so the times say nothing about peer-to-peer transfers"
        );
    } else if any_shared(gpus) {
        println!(
            "Logical devices sharing a GPU copy within it: those stages are copies within one GPU, not peer-to-peer transfers"
        );
    }
    if !staged.is_empty() {
        println!(
            "GPU pairs {} cannot access each other (run ch4-p2p-access; CUDA_VISIBLE_DEVICES picks GPUs): their copies are staged through the host",
            staged.join(", ")
        );
    }

    let input = ferrocuda::random::cpu::uniform::<f32>(SEED, 0, nx * ny)?;
    let gold = transpose::cpu(&input, nx, ny)?;
    let mut plan = P2pTranspose::new(gpus, layout, &input)?;
    let mut checks = Vec::new();
    for &mode in modes {
        plan.reset_output()?;
        plan.timed(mode)?; // warm-up
        let mut seconds = 0.0;
        for _ in 0..reps {
            seconds += plan.timed(mode)?;
        }
        let seconds = seconds / reps as f64;
        let check = Check::compare(
            &format!("transpose, async mode {}", mode.book_label()),
            &plan.gather()?,
            &gold,
            Tolerance::EXACT,
        );
        println!("async mode: {}", mode.book_label());
        if check.passed() {
            println!(
                "  Bandwidth (GB/s): {:.2}   ({:.4} ms, wall clock, mean of {reps})",
                gb_per_s(nx, ny, seconds),
                seconds * 1e3
            );
        } else {
            println!(" *** Failed ***");
        }
        checks.push(check);
        if mode == Mode::Async {
            let (copy_ms, kernel_ms) = plan.stage_times()?;
            println!(
                "  where the time goes (one run, events per stream, summed): copies {copy_ms:.4} ms, kernels {kernel_ms:.4} ms"
            );
        }
    }
    let what = "one device, same kernel, no copies";
    checks.push(one_device(&gpus[0], &input, (nx, ny), &gold, reps, what)?);
    Ok(Outcome { checks })
}
