//! The chapter's MPI examples (book §4.2), listed for the runner ([`crate::runner`]), which
//! starts MPI and gives each rank its own device before calling their rank functions. What the
//! examples share is `mpi_common`.
#[cfg(feature = "mpi")]
pub use super::mpi_common::RankRun;
pub use crate::entry::needs_mpi_build;

/// The ids that run one process per GPU under `mpirun`.
pub const IDS: [&str; 4] = [
    super::mpi_devices::ID,
    super::mpi_assign_device::ID,
    super::transpose_mpi::ID,
    super::transpose_mpi::GPUAWARE_ID,
];

/// True for an id of [`IDS`].
pub fn is_mpi(id: &str) -> bool {
    IDS.contains(&id)
}

/// The rank function of the MPI example `id`.
#[cfg(feature = "mpi")]
pub fn find(id: &str) -> Option<RankRun> {
    let runs: [(&str, RankRun); 4] = [
        (super::mpi_devices::ID, super::mpi_devices::run_rank),
        (super::mpi_assign_device::ID, super::mpi_assign_device::run_rank),
        (super::transpose_mpi::ID, super::transpose_mpi::run_rank),
        (
            super::transpose_mpi::GPUAWARE_ID,
            super::transpose_mpi::run_rank_gpuaware,
        ),
    ];
    runs.iter().find(|(i, _)| *i == id).map(|(_, run)| *run)
}
