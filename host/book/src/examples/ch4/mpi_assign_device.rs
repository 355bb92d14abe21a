//! ch4-mpi-assign-device: the book's `assignDevice` (§4.2.1, `module mpiDeviceUtil` and its test
//! `program main`): every rank's host name gathered and sorted, one colour per host,
//! `MPI_Comm_split`, and the rank within its node is its device, whatever the compute mode.
//! Each rank prints `[r] host: <name>, device: d` (gathered to rank 0, in rank order).
use crate::examples::{Example, Options, Outcome};
use ferrocuda::gpu::{Gpu, Result};

/// The id.
pub const ID: &str = "ch4-mpi-assign-device";

pub const EXAMPLE: Example = Example {
    id: ID,
    description: "MPI: each rank's device from its host name (gathered, sorted, MPI_Comm_split), `[r] host: ..., device: d` (book 4.2.1); run with `cargo xtask mpirun -np N`",
    flags: &[],
    run,
};

fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    super::mpi::in_process(ID, gpu, options)
}

#[cfg(feature = "mpi")]
pub use rank::run_rank;

#[cfg(feature = "mpi")]
mod rank {
    use crate::examples::{Options, Outcome};
    use ferrocuda::gpu::{Gpu, Result};
    use ferrocuda::mpi::{Mpi, Placement};
    use ferrocuda::verify::Check;

    /// One rank: its placement line, gathered to rank 0; checks that the ranks of one node got
    /// distinct devices when the node has a GPU for each.
    pub fn run_rank(mpi: &Mpi, _gpu: &Gpu, placement: &Placement, _options: &Options) -> Result<Outcome> {
        if let Some(lines) = mpi.gather_text(&placement.to_string()) {
            lines.iter().for_each(|line| println!("{line}"));
        }
        let expected = (placement.devices_on_node > 0).then(|| placement.node.local_rank % placement.devices_on_node);
        let check = Check::condition(
            "device = rank on its node (round-robin over the node's GPUs)",
            placement.device == expected,
        );
        Ok(Outcome { checks: vec![check] })
    }
}
