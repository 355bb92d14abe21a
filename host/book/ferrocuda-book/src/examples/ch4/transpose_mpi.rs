//! ch4-transpose-mpi: the multi-GPU transpose with one GPU per MPI rank, tiles exchanged through
//! host memory (book §4.2.2, Appendix D.4.2, `program transposeMPI`).
//!
//! As the book: `nx = ny = 2048` (256 on the simulator; `--size`), f32, each rank holding a
//! horizontal slab of the input (`nx x ny/nprocs`) and of the output (`ny x nx/nprocs`, preset
//! to -1), the input `h_idata(i, j) = i + (j-1)*nx`; `nprocs` stages: stage 0 transposes the
//! diagonal tile, stage `s` sends tile `(me - s) mod nprocs` (a 2-D copy from the device into
//! pinned `sTile`, `MPI_Sendrecv`) and receives from `(me + s) mod nprocs` (into pinned `rTile`,
//! copied to `d_rTile`), then transposes it with `cudaTranspose` (`ferrocuda::transpose`).
//! Timed with `MPI_Barrier` + `MPI_Wtime`; each rank checks its output slab exactly; rank 0
//! prints `Bandwidth (GB/s):` (`2 * nx * ny * 4 / time`). Added: one warm-up run and the mean of
//! `--reps` (default 10), each rank's time per part (pack, MPI, unpack, kernel) gathered on rank
//! 0, and the one-GPU `cuda_transpose` bandwidth of the same matrix for comparison.
use super::TRANSPOSE_SIZE;
use crate::entry::{RankExample, run_in_process};
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use ferrocuda::footprint::{self, Footprint};
use ferrocuda::gpu::{Gpu, Result};
#[cfg(feature = "mpi")]
use ferrocuda::mpi::{Mpi, Placement};
use ferrocuda::transpose::TILE_DIM;
/// The two MPI transposes, which differ only in how the tiles travel: with `DEVICE_BUFFERS`
/// false, `cudaMemcpy2D` from the device slab into pinned `sTile`, MPI on host memory,
/// `d_rTile = rTile` (§4.2.2); with it true, the tile packed on the device into `d_sTile`, MPI
/// on the device buffers when the MPI is CUDA-aware, else staged through pinned memory (a
/// contiguous copy each way).
pub struct TransposeMpi<const DEVICE_BUFFERS: bool>;

/// ch4-transpose-mpi.
pub type Ch4TransposeMpi = TransposeMpi<false>;

/// ch4-transpose-mpi-gpuaware, the variant with the tiles packed on the device and MPI on device buffers (book
/// §4.2.3, Appendix D.4.3: MVAPICH, the pack a CUF kernel, `MPI_Sendrecv(d_sTile, ..., d_rTile,
/// ...)`): the pack is a 2-D device-to-device copy, and MPI reads `d_sTile` and writes `d_rTile`
/// itself when it says it is CUDA-aware (`MPIX_Query_cuda_support`, asked at run time);
/// otherwise, and on the simulator, one line says so and the tiles are staged through pinned
/// host memory. The book sets the device from `MV2_COMM_WORLD_LOCAL_RANK` before `MPI_Init`;
/// here, as in every MPI example, from `assignDevice` (`Mpi::assign_device`).
pub type Ch4TransposeMpiGpuaware = TransposeMpi<true>;

impl<const DEVICE_BUFFERS: bool> Example for TransposeMpi<DEVICE_BUFFERS> {
    const ID: &'static str = match DEVICE_BUFFERS {
        false => "ch4-transpose-mpi",
        true => "ch4-transpose-mpi-gpuaware",
    };
    const DESCRIPTION: &'static str = match DEVICE_BUFFERS {
        false => {
            "MPI: transpose of a 2048^2 matrix in slabs over the ranks, tiles staged through pinned host memory, MPI_Sendrecv per stage, GB/s (book 4.2.2); run with `cargo xtask mpirun -np N`"
        }
        true => {
            "MPI: the slab transpose with tiles packed on the device and MPI on device buffers when the MPI is CUDA-aware (else staged), GB/s (book 4.2.3); run with `cargo xtask mpirun -np N`"
        }
    };
    const SIZE: Option<Size> = Some(Size {
        unit: "matrix side n (n x n floats), a multiple of 32 x the rank count; checked in each rank against its own GPU, so ranks sharing a GPU (or, on the simulator, the host) each need their part on it",
        ..TRANSPOSE_SIZE
    });
    const REPS: bool = true;
    type Args = NoOptions;

    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        memory(run.size)
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        run_in_process::<Self>(gpu, run)
    }
}

impl<const DEVICE_BUFFERS: bool> RankExample for TransposeMpi<DEVICE_BUFFERS> {
    #[cfg(feature = "mpi")]
    fn run_rank(mpi: &Mpi, gpu: &Gpu, _placement: &Placement, run: &Run<NoOptions>) -> Result<Outcome> {
        rank::run_transpose(mpi, gpu, run, DEVICE_BUFFERS)
    }
}

/// The peak of rank 0, the largest of any rank, for `--size n` (rounded up to the multiple of
/// 32 x ranks the layout needs, so that the largest size that fits is one the run takes): on its
/// device the input and output slabs (`n * n / ranks` floats each), the send and receive tiles
/// (`n * n / ranks^2` each) and the one-GPU comparison's input and output (the whole matrix
/// each); on the host the input and expected slabs, the pinned tiles, and the whole matrix, its
/// CPU transpose and the comparison's download. The rank count is MPI's, once started (the
/// runner checks each rank after `MPI_Init`); 1 otherwise.
pub fn memory(n: usize) -> Option<Footprint> {
    let ranks = ranks();
    let n = n.checked_next_multiple_of(TILE_DIM.checked_mul(ranks)?)?;
    let elements = footprint::elements(&[n, n])?;
    let slab = elements / ranks;
    let tile = slab / ranks;
    Footprint::NONE
        .mirrored::<f32>(2, slab)?
        .mirrored::<f32>(2, tile)?
        .device::<f32>(2, elements)?
        .host::<f32>(3, elements)
}

/// The job's ranks, when MPI has started in this process; else 1 (and always in a build without
/// MPI, which refuses the MPI examples anyway).
fn ranks() -> usize {
    #[cfg(feature = "mpi")]
    {
        use ferrocuda::mpi::rsmpi::{environment, topology::SimpleCommunicator, traits::Communicator};
        if environment::is_initialized() && !environment::is_finalized() {
            return usize::try_from(SimpleCommunicator::world().size()).unwrap_or(1).max(1);
        }
    }
    1
}

#[cfg(feature = "mpi")]
mod rank {
    use crate::example::{NoOptions, Outcome, Run};
    use crate::examples::ch4::mpi_common::print_on_root;
    use crate::examples::ch4::{gb_per_s, one_device, print_layout};
    use ferrocuda::footprint::{try_from_fn, try_vec};
    use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, PinnedBuffer, Result};
    use ferrocuda::mpi::rsmpi::point_to_point::send_receive_into_with_tags;
    use ferrocuda::mpi::rsmpi::traits::Communicator;
    use ferrocuda::mpi::{CudaAware, Mpi};
    use ferrocuda::transpose::{self, SlabLayout};
    use ferrocuda::verify::{Check, Tolerance};

    /// Seconds one transpose spends, per part, on one rank (`MPI_Wtime`).
    #[derive(Clone, Copy, Debug, Default)]
    struct PartTimes {
        pack: f64,
        mpi: f64,
        unpack: f64,
        kernel: f64,
    }

    /// One rank's buffers: the book's `d_idata`, `d_tdata`, `d_sTile`, `d_rTile` and pinned
    /// `sTile`, `rTile`.
    struct RankSlab {
        layout: SlabLayout,
        me: usize,
        device_buffers: bool,
        device_mpi: bool,
        idata: DeviceBuffer<f32>,
        tdata: DeviceBuffer<f32>,
        d_s_tile: DeviceBuffer<f32>,
        d_r_tile: DeviceBuffer<f32>,
        s_tile: PinnedBuffer<f32>,
        r_tile: PinnedBuffer<f32>,
    }

    impl RankSlab {
        /// One whole transpose, every stage; adds each part's seconds to `times`.
        fn transpose(&mut self, mpi: &Mpi, gpu: &Gpu, times: &mut PartTimes) -> Result<()> {
            let layout = self.layout;
            let me = self.me;
            let mut clock = Mpi::wtime();
            let mut lap = |into: &mut f64| {
                let now = Mpi::wtime();
                *into += now - clock;
                clock = now;
            };
            transpose::cuda_transpose(gpu, None, &mut self.tdata, &self.idata, layout.tile_transpose(me))?;
            gpu.synchronize()?;
            lap(&mut times.kernel);
            for stage in 1..layout.parts() {
                let send_to = layout.mpi_send_to(stage, me);
                let receive_from = layout.mpi_receive_from(stage, me);
                mpi.barrier();
                lap(&mut times.mpi);
                let (to, from) = (
                    mpi.world().process_at_rank(send_to as i32),
                    mpi.world().process_at_rank(receive_from as i32),
                );
                // Every path but MPI on device buffers packs the tile into pinned `sTile` first.
                let staged = match (self.device_buffers, self.device_mpi) {
                    (false, _) => {
                        gpu.download_2d(&self.idata, self.s_tile.as_mut_slice()?, layout.pack_copy(send_to))?;
                        true
                    }
                    (true, false) => {
                        gpu.copy_2d(&self.idata, &mut self.d_s_tile, layout.pack_copy(send_to))?;
                        gpu.download_pinned(&self.d_s_tile, &mut self.s_tile)?;
                        true
                    }
                    (true, true) => {
                        gpu.copy_2d(&self.idata, &mut self.d_s_tile, layout.pack_copy(send_to))?;
                        lap(&mut times.pack);
                        mpi.sendrecv_device(
                            &self.d_s_tile,
                            send_to,
                            me as i32,
                            &mut self.d_r_tile,
                            receive_from,
                            receive_from as i32,
                        )?;
                        lap(&mut times.mpi);
                        false
                    }
                };
                if staged {
                    let s_tile = self.s_tile.as_slice()?; // waits for the copy
                    lap(&mut times.pack);
                    send_receive_into_with_tags(
                        s_tile,
                        &to,
                        me as i32,
                        self.r_tile.as_mut_slice()?,
                        &from,
                        receive_from as i32,
                    );
                    lap(&mut times.mpi);
                    gpu.upload_pinned(&self.r_tile, &mut self.d_r_tile)?;
                    gpu.synchronize()?;
                    lap(&mut times.unpack);
                }
                transpose::cuda_transpose(
                    gpu,
                    None,
                    &mut self.tdata,
                    &self.d_r_tile,
                    layout.packed_transpose(receive_from),
                )?;
                gpu.synchronize()?;
                lap(&mut times.kernel);
            }
            Ok(())
        }
    }

    /// The book's input element at row `y`, column `x` (0-based): `h_idata(i, j) = i +
    /// (j-1)*nx` with `i = x + 1`, `j = y + 1`.
    fn input_value(nx: usize, y: usize, x: usize) -> f32 {
        (x + 1 + y * nx) as f32
    }

    /// One rank of either transpose.
    pub(super) fn run_transpose(mpi: &Mpi, gpu: &Gpu, run: &Run<NoOptions>, device_buffers: bool) -> Result<Outcome> {
        let (me, nprocs) = (mpi.rank(), mpi.size());
        let n = run.size;
        let layout = SlabLayout::new(n, n, nprocs)?;
        if !mpi.all_same(n as u64) {
            return Err(Error::InvalidArgument(
                "the ranks were given different --size values; every rank needs the same matrix".into(),
            ));
        }
        let device_mpi = device_buffers && !gpu.is_simulator() && mpi.cuda_aware() == CudaAware::Yes;
        if me == 0 {
            print_layout(
                &layout,
                layout.packed_transpose(0).shape()?.grid,
                "\n",
                "nprocs",
                "mpiTileDim",
            );
            if device_buffers {
                println!("{}", exchange_line(mpi, gpu, device_mpi));
            }
        }
        let slab = layout.input_slab(me);
        let input = try_from_fn(slab.len(), |k| {
            let i = slab.start + k;
            input_value(n, i / n, i % n)
        })?;
        // Output row x (of this rank's slab), column y: input element (y, x).
        let out_rows = layout.output_slab(me);
        let gold = try_from_fn(out_rows.len(), |k| {
            let i = out_rows.start + k;
            input_value(n, i % n, i / n)
        })?;
        let tile_len = layout.tile_len();
        let mut rank = RankSlab {
            layout,
            me,
            device_buffers,
            device_mpi,
            idata: gpu.upload(&input)?,
            tdata: gpu.upload(&try_vec(layout.output_slab_len(), -1.0f32)?)?,
            d_s_tile: gpu.zeros(tile_len)?,
            d_r_tile: gpu.zeros(tile_len)?,
            s_tile: gpu.pinned(tile_len)?,
            r_tile: gpu.pinned(tile_len)?,
        };
        rank.transpose(mpi, gpu, &mut PartTimes::default())?; // warm-up
        let reps = run.reps;
        let mut times = PartTimes::default();
        mpi.barrier();
        let start = Mpi::wtime();
        for _ in 0..reps {
            rank.transpose(mpi, gpu, &mut times)?;
        }
        mpi.barrier();
        let seconds = (Mpi::wtime() - start) / reps as f64;
        let check = Check::compare(
            &format!(
                "rank {me}'s output slab ({} x {n}) against the transpose of h_idata",
                layout.tile_extents().0
            ),
            &gpu.download(&rank.tdata)?,
            &gold,
            Tolerance::EXACT,
        );
        let all_passed = mpi.all_true(check.passed());
        if !check.passed() {
            println!("[{me}] *** Failed ***");
        }
        if me == 0 && all_passed {
            println!(
                "Bandwidth (GB/s): {:.2}   ({:.4} ms per transpose, MPI_Wtime, mean of {reps})",
                gb_per_s(n, n, seconds),
                seconds * 1e3
            );
        }
        let ms = |s: f64| s * 1e3 / reps as f64;
        if me == 0 {
            println!("where the time goes, per transpose (MPI_Wtime; MPI includes the barriers' waits):");
        }
        print_on_root(
            mpi,
            &format!(
                "  [{me}] pack {:.4} ms, MPI {:.4} ms, unpack {:.4} ms, kernel {:.4} ms",
                ms(times.pack),
                ms(times.mpi),
                ms(times.unpack),
                ms(times.kernel)
            ),
        );
        let mut checks = vec![check];
        if me == 0 {
            let whole = try_from_fn(n * n, |i| input_value(n, i / n, i % n))?;
            let whole_gold = transpose::cpu(&whole, n, n)?;
            let what = "one GPU, same kernel, no MPI";
            checks.push(one_device(gpu, &whole, (n, n), &whole_gold, reps, what)?);
        }
        Ok(Outcome { checks })
    }

    /// The GPU-aware variant's line on how tiles travel.
    fn exchange_line(mpi: &Mpi, gpu: &Gpu, device_mpi: bool) -> String {
        if device_mpi {
            "MPI is CUDA-aware: MPI_Sendrecv on the device buffers d_sTile, d_rTile".into()
        } else if gpu.is_simulator() {
            "The simulator's device buffers are host memory: the tiles are staged through pinned buffers".into()
        } else {
            format!(
                "This MPI is not CUDA-aware (MPIX_Query_cuda_support: {:?}): the device tiles are staged through pinned host memory",
                mpi.cuda_aware()
            )
        }
    }
}
