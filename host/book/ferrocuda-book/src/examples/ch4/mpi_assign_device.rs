//! ch4-mpi-assign-device: the book's `assignDevice` (§4.2.1, `module mpiDeviceUtil` and its test
//! `program main`): every rank's host name gathered and sorted, one colour per host,
//! `MPI_Comm_split`, and the rank within its node is its device, whatever the compute mode.
//! Each rank prints `[r] host: <name>, device: d` (gathered to rank 0, in rank order), then
//! allocates the book's `n = 1024*1024` floats and prints `[r] device arrays allocated: k`, what
//! its device's free memory shows (1 when every rank has a device of its own).
use crate::example::{LegacyExample, Options, Outcome};
use ferrocuda::gpu::{Gpu, Result};

/// The id.
pub const ID: &str = "ch4-mpi-assign-device";

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: ID,
    description: "MPI: each rank's device from its host name (gathered, sorted, MPI_Comm_split), `[r] host: ..., device: d` (book 4.2.1); run with `cargo xtask mpirun -np N`",
    size: None,
    f64: false,
    reps: false,
    flags: &[],
    run,
};

#[cfg(feature = "mpi")]
fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    super::mpi_common::in_process(run_rank, gpu, options)
}

#[cfg(not(feature = "mpi"))]
fn run(_gpu: &Gpu, _options: &Options) -> Result<Outcome> {
    Err(crate::entry::needs_mpi_build(ID))
}

#[cfg(feature = "mpi")]
pub use rank::run_rank;

#[cfg(feature = "mpi")]
mod rank {
    use crate::example::{Options, Outcome};
    use crate::examples::ch4::mpi_common::ARRAY_N as N;
    use crate::examples::ch4::mpi_common::{arrays_seen, print_on_root};
    use ferrocuda::gpu::{Gpu, Result};
    use ferrocuda::mpi::{Mpi, Placement};
    use ferrocuda::verify::Check;

    /// One rank: its placement line and its allocation line, gathered to rank 0; checks that
    /// its device is its rank on its node (round-robin when the node has fewer GPUs) and that its
    /// array landed there.
    pub fn run_rank(mpi: &Mpi, gpu: &Gpu, placement: &Placement, _options: &Options) -> Result<Outcome> {
        print_on_root(mpi, &placement.to_string());
        // Every rank's context exists before any rank reads its free memory.
        mpi.barrier();
        let free_before = gpu.memory_info()?.0;
        let array = gpu.zeros::<f32>(N)?;
        // Stream-ordered allocations (cuMemAllocAsync) have surely happened after this.
        gpu.synchronize()?;
        mpi.barrier();
        let seen = arrays_seen(gpu, free_before, N * size_of::<f32>())?;
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
