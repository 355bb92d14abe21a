//! ch4-mpi-devices: which device each MPI rank uses, seen through free device memory (book
//! §4.2.1, `program mpiDevices`). Each rank prints `[rank] using device: j in compute mode: m`,
//! records its device's free memory, then the ranks allocate `n = 1024*1024` floats one at a
//! time (barriers around each) and after each allocation every rank prints how many such arrays
//! its device has gained: `[r] after allocation on rank: i, device arrays allocated: k`. Ranks on
//! one device see each other's arrays; ranks on different devices do not.
//!
//! Here each rank's device comes from `Mpi::assign_device` (the book's `assignDevice`); with
//! `--device-zero` every rank uses device 0, as the book's program does with no `cudaSetDevice`
//! (in the default compute mode they all share it). Lines are gathered to rank 0 and printed in
//! rank order. On the simulator every rank has its own simulator, which counts its own buffers.
use crate::entry::{RankExample, run_in_process};
use crate::example::{Example, Outcome, Run};
use ferrocuda::gpu::{Gpu, Result};
#[cfg(feature = "mpi")]
use {
    super::mpi_common::{allocate_array, arrays_seen, free_memory_after_barrier, print_on_root},
    ferrocuda::gpu::BackendChoice,
    ferrocuda::mpi::{Mpi, Placement},
    ferrocuda::verify::Check,
};

/// ch4-mpi-devices.
pub struct Ch4MpiDevices;

/// ch4-mpi-devices's options.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct MpiDevicesOptions {
    /// every rank on device 0, as the book's program (no cudaSetDevice): ranks share it
    #[arg(long)]
    pub device_zero: bool,
}

impl Example for Ch4MpiDevices {
    const ID: &'static str = "ch4-mpi-devices";
    const DESCRIPTION: &'static str = "MPI: each rank's device and compute mode, and whose 4 MiB allocations its free memory shows (book 4.2.1); run with `cargo xtask mpirun -np N`";
    type Args = MpiDevicesOptions;

    fn run(gpu: &Gpu, run: &Run<MpiDevicesOptions>) -> Result<Outcome> {
        run_in_process::<Self>(gpu, run)
    }
}

impl RankExample for Ch4MpiDevices {
    /// One rank of the book's program.
    #[cfg(feature = "mpi")]
    fn run_rank(mpi: &Mpi, assigned: &Gpu, placement: &Placement, run: &Run<MpiDevicesOptions>) -> Result<Outcome> {
        let zero;
        let all_on_zero = run.args.device_zero && !assigned.is_simulator();
        let (gpu, device) = if all_on_zero {
            zero = Gpu::open(BackendChoice::Cuda, 0)?.0;
            (&zero, Some(0))
        } else {
            (assigned, placement.device)
        };
        let (rank, size) = (mpi.rank(), mpi.size());
        print_on_root(
            mpi,
            &format!(
                "[{rank}] using device: {} in compute mode: {}",
                device.map_or_else(|| "the CPU simulator".into(), |d| d.to_string()),
                // `cudaDeviceProp%computeMode` (0 default, 1 exclusive thread, 2 prohibited, 3
                // exclusive process).
                ferrocuda::mpi::compute_mode(gpu)?.map_or_else(|| "simulator".into(), |m| m.to_string())
            ),
        );
        let free_before = free_memory_after_barrier(mpi, gpu)?;
        let mut arrays = Vec::new();
        let mut seen_after_own = 0;
        let mut seen = 0;
        for allocating in 0..size {
            mpi.barrier();
            if allocating == rank {
                arrays.push(allocate_array(gpu)?);
            }
            mpi.barrier();
            seen = arrays_seen(gpu, free_before)?;
            if allocating == rank {
                seen_after_own = seen;
            }
            print_on_root(
                mpi,
                &format!("[{rank}] after allocation on rank: {allocating}, device arrays allocated: {seen}"),
            );
        }
        // CUDA's stream-ordered pool (which the library allocates from) maps device memory in
        // steps larger than the book's 4 MiB array.
        if rank == 0 && seen_after_own > 1 {
            println!(
                "(free memory moves in the allocator's steps: CUDA's stream-ordered pool mapped {} MiB for one 4 MiB array, so each array counts as {seen_after_own}; the book's point is whose counts grow together)",
                4 * seen_after_own
            );
        }
        let sharing = ranks_sharing(placement, device, all_on_zero);
        let checks = vec![
            Check::condition("its own array shows in its device's free memory", seen_after_own >= 1),
            Check::condition(
                &format!("after every allocation its device shows the arrays of the {sharing} rank(s) on it"),
                seen >= sharing,
            ),
        ];
        drop(arrays);
        Ok(Outcome { checks })
    }
}

/// How many ranks of this node use `device`: all of them with `--device-zero`, those of
/// its round-robin class otherwise; 1 on the simulator (each rank has its own).
#[cfg(feature = "mpi")]
fn ranks_sharing(placement: &Placement, device: Option<usize>, all_on_zero: bool) -> usize {
    let node = &placement.node;
    match device {
        None => 1,
        Some(_) if all_on_zero => node.local_size,
        Some(d) => (0..node.local_size)
            .filter(|r| r % placement.devices_on_node.max(1) == d)
            .count(),
    }
}
