//! ch4-transpose-mpi-gpuaware: the MPI transpose with the tiles packed on the device and MPI
//! called on device buffers (book §4.2.3, Appendix D.4.3: MVAPICH, `d_sTile(i,j) =
//! d_idata(sRank*mpiTileDimX+i, j)` in a CUF kernel, `MPI_Sendrecv(d_sTile, ..., d_rTile, ...)`).
//!
//! The same program as `ch4-transpose-mpi` ([`super::transpose_mpi`]) but for the exchange: the
//! pack is a 2-D device-to-device copy (`cudaMemcpy2D`, what the book's CUF kernel does), and
//! MPI reads `d_sTile` and writes `d_rTile` itself when it says it is CUDA-aware
//! (`MPIX_Query_cuda_support`, asked at run time). Otherwise, and on the simulator, one line says
//! so and the tiles are staged through pinned host memory (one contiguous copy each way). The
//! book sets the device from `MV2_COMM_WORLD_LOCAL_RANK` before `MPI_Init`; here, as in every
//! MPI example, from `assignDevice` (`Mpi::assign_device`), which needs no launcher variables.
use crate::examples::{Example, Options, Outcome};
use ferrocuda::gpu::{Gpu, Result};

/// The id.
pub const ID: &str = "ch4-transpose-mpi-gpuaware";

pub const EXAMPLE: Example = Example {
    id: ID,
    description: "MPI: the slab transpose with tiles packed on the device and MPI on device buffers when the MPI is CUDA-aware (else staged), GB/s (book 4.2.3); run with `cargo xtask mpirun -np N`",
    flags: &[],
    run,
};

fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    super::mpi::in_process(ID, gpu, options)
}

/// One rank.
#[cfg(feature = "mpi")]
pub fn run_rank(
    mpi: &ferrocuda::mpi::Mpi,
    gpu: &Gpu,
    _placement: &ferrocuda::mpi::Placement,
    options: &Options,
) -> Result<Outcome> {
    super::transpose_mpi::run_transpose(mpi, gpu, options, super::transpose_mpi::Exchange::DeviceBuffers)
}
