//! ch4-mpi-assign-device: the book's `assignDevice` (§4.2.1, `module mpiDeviceUtil` and its test
//! `program main`): every rank's host name gathered and sorted, one colour per host,
//! `MPI_Comm_split`, and the rank within its node is its device, whatever the compute mode.
//! Each rank prints `[r] host: <name>, device: d` (gathered to rank 0, in rank order), then
//! allocates the book's `n = 1024*1024` floats and prints `[r] device arrays allocated: k`, what
//! its device's free memory shows (1 when every rank has a device of its own).
use crate::entry::{RankExample, run_in_process};
use crate::example::{Example, NoOptions, Outcome, Run};
use ferrocuda::gpu::{Gpu, Result};
#[cfg(feature = "mpi")]
use {
    super::mpi_common::{allocate_array, arrays_seen, free_memory_after_barrier, print_on_root},
    ferrocuda::mpi::{Mpi, Placement},
    ferrocuda::verify::Check,
};

/// ch4-mpi-assign-device.
pub struct Ch4MpiAssignDevice;

impl Example for Ch4MpiAssignDevice {
    const ID: &'static str = "ch4-mpi-assign-device";
    const DESCRIPTION: &'static str = "MPI: each rank's device from its host name (gathered, sorted, MPI_Comm_split), `[r] host: ..., device: d` (book 4.2.1); run with `cargo xtask mpirun -np N`";
    type Args = NoOptions;

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        run_in_process::<Self>(gpu, run)
    }
}

impl RankExample for Ch4MpiAssignDevice {
    /// One rank: its placement line and its allocation line, gathered to rank 0; checks that
    /// its device is its rank on its node (round-robin when the node has fewer GPUs) and that its
    /// array landed there.
    #[cfg(feature = "mpi")]
    fn run_rank(mpi: &Mpi, gpu: &Gpu, placement: &Placement, _run: &Run<NoOptions>) -> Result<Outcome> {
        print_on_root(mpi, &placement.to_string());
        let free_before = free_memory_after_barrier(mpi, gpu)?;
        let array = allocate_array(gpu)?;
        mpi.barrier();
        let seen = arrays_seen(gpu, free_before)?;
        print_on_root(mpi, &format!("[{}] device arrays allocated: {seen}", mpi.rank()));
        if mpi.rank() == 0 && seen > 1 {
            println!(
                "(more than the book's 1: ranks sharing a GPU see each other's arrays, and CUDA's stream-ordered pool maps memory in steps larger than one 4 MiB array; ch4-mpi-devices shows the step)"
            );
        }
        drop(array);
        let expected = (placement.devices_on_node > 0).then(|| placement.node.local_rank % placement.devices_on_node);
        let checks = vec![
            Check::condition(
                "device = rank on its node (round-robin over the node's GPUs)",
                placement.device == expected,
            ),
            Check::condition("its array shows in its device's free memory", seen >= 1),
        ];
        Ok(Outcome { checks })
    }
}
