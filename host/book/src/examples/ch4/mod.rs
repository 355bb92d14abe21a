//! Book chapter 4 (Ruetsch & Fatica, *CUDA Fortran for Scientists and Engineers*): several GPUs
//! driven by one host thread (§4.1), on logical devices.
//!
//! Every example takes `--devices N`: N logical devices placed round-robin on the GPUs present
//! (`Gpu::open_logical`), by default the GPUs present when there are at least two, else the
//! book's device count on GPU 0 (on the simulator, that many independent simulators). Where the
//! book's point needs distinct GPUs (peer access, peer bandwidth) the output says what was
//! measured instead.
//!
//! With MPI (§4.2), one process per GPU: the ids `ch4-mpi-*` and `ch4-transpose-mpi*` ([`mpi`]),
//! started with `cargo xtask mpirun -np N <id>`.
pub mod direct_transfer;
pub mod minimal;
pub mod mpi;
pub mod mpi_assign_device;
pub mod mpi_devices;
pub mod p2p_access;
pub mod p2p_bandwidth;
pub mod transpose_mpi;
pub mod transpose_p2p;

use crate::examples::{Flag, Options};
use ferrocuda::gpu::{BackendChoice, Error, Gpu, Result, device_count};

/// The flag every chapter-4 example takes.
pub const DEVICES: Flag = Flag {
    name: "--devices",
    value: Some("N"),
    help: "logical devices, round-robin on the GPUs present (default: the GPUs present when at least 2, else the book's count on GPU 0)",
    requires: None,
};

/// The peer copies' size per device (`ch4-direct-transfer`, `ch4-p2p-bandwidth`): the book's
/// `N` = 4M floats, 16 MB; on the simulator 256K floats (1 MB).
pub const PEER_COPY_BOOK_N: usize = 4 * 1024 * 1024;
pub const PEER_COPY_SIM_N: usize = 256 * 1024;

/// The distributed transposes' side (`ch4-transpose-p2p`, `ch4-transpose-mpi`): the book's
/// reported `nx = ny = 2048`; on the simulator 256 (tiles of 128 x 128 on two devices, 64 x 64
/// on four).
pub const TRANSPOSE_BOOK_N: usize = 2048;
pub const TRANSPOSE_SIM_N: usize = 256;

/// More logical devices than any example needs; a guard against a mistyped count.
pub const MAX_LOGICAL_DEVICES: usize = 64;

/// Where a run's logical devices put their memory, for its memory plan (`Size::memory`): how
/// many logical devices `open_devices` will open, and on how many GPUs they are placed
/// round-robin (0: on simulators, whose memory is all host memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevicePlan {
    /// Logical devices opened.
    pub logical: usize,
    /// GPUs present, or 0 on the simulator.
    pub physical: usize,
}

impl DevicePlan {
    /// The plan for `options` on `gpu` (`--devices`, else `open_devices`' default for
    /// `book_count`); `None` when `open_devices` refuses `--devices` (0, too many, not a number),
    /// so that its own sentence is the one the user reads.
    pub fn of(options: &Options, gpu: &Gpu, book_count: usize) -> Option<Self> {
        let physical = if gpu.is_simulator() {
            0
        } else {
            device_count().unwrap_or(0)
        };
        let logical = match options.parsed::<usize>("--devices").ok()? {
            Some(n) if (1..=MAX_LOGICAL_DEVICES).contains(&n) => n,
            Some(_) => return None,
            None if physical >= 2 => physical,
            None => book_count,
        };
        Some(Self { logical, physical })
    }

    /// How many of the logical devices `0 .. allocating` share the busiest memory: the GPU that
    /// logical device 0 is placed on (round-robin puts `ceil(allocating / GPUs)` there), or all
    /// of them on simulators, whose device memory is the one host memory.
    pub fn busiest(&self, allocating: usize) -> usize {
        match self.physical {
            0 => allocating,
            gpus => allocating.div_ceil(gpus),
        }
    }
}

/// Opens the logical devices `--devices` asks for, or the default (the GPUs present when at
/// least two, else `book_count` on GPU 0 or on simulators, said in one line), and prints where
/// each runs.
pub fn open_devices(gpu: &Gpu, options: &Options, book_count: usize) -> Result<Vec<Gpu>> {
    let physical = if gpu.is_simulator() { 0 } else { device_count()? };
    let n = match options.parsed::<usize>("--devices")? {
        Some(0) => {
            return Err(Error::InvalidArgument(
                "--devices must be at least 1: a program needs a device to run on".into(),
            ));
        }
        Some(n) if n > MAX_LOGICAL_DEVICES => {
            return Err(Error::InvalidArgument(format!(
                "--devices {n} is more than the {MAX_LOGICAL_DEVICES} logical devices an example opens"
            )));
        }
        Some(n) => n,
        None if physical >= 2 => physical,
        None if physical == 1 => {
            println!(
                "One GPU present: {book_count} logical devices share GPU 0, as the book's {book_count} GPUs (--devices N for another count)"
            );
            book_count
        }
        None => {
            println!(
                "No GPU: {book_count} logical devices, each its own CPU simulator, as the book's {book_count} GPUs (--devices N for another count)"
            );
            book_count
        }
    };
    let choice = if gpu.is_simulator() {
        BackendChoice::Sim
    } else {
        BackendChoice::Cuda
    };
    let gpus = Gpu::open_logical(choice, n)?;
    for g in &gpus {
        println!("  {}", g.placement());
    }
    Ok(gpus)
}

/// What a copy between logical devices `a` and `b` really is, when it is not a peer-to-peer
/// transfer between two GPUs: one sentence, or `None` for two distinct GPUs.
pub fn pair_note(a: &Gpu, b: &Gpu) -> Option<String> {
    let (i, j) = (a.logical_index(), b.logical_index());
    if a.shares_device_with(b) {
        let ordinal = a.physical_ordinal().unwrap_or_default();
        Some(format!(
            "logical devices {i} and {j} share GPU {ordinal}: this is a copy within one GPU, not a peer-to-peer transfer"
        ))
    } else if a.is_simulator() {
        Some(format!(
            "logical devices {i} and {j} are two CPU simulators: this is a host memory copy, not a peer-to-peer transfer"
        ))
    } else {
        None
    }
}

/// Refuses fewer than two logical devices with the book's sentence.
pub fn require_two(gpus: &[Gpu]) -> Result<()> {
    if gpus.len() < 2 {
        return Err(Error::InvalidArgument(format!(
            "This program requires at least two GPUs (logical devices), and --devices gives {}",
            gpus.len()
        )));
    }
    Ok(())
}

/// Mutable `items[i]` and shared `items[j]` at once (`i != j`).
pub fn one_mut_one_shared<T>(items: &mut [T], i: usize, j: usize) -> (&mut T, &T) {
    assert_ne!(i, j, "one_mut_one_shared needs two different indices");
    if i < j {
        let (low, high) = items.split_at_mut(j);
        (&mut low[i], &high[0])
    } else {
        let (low, high) = items.split_at_mut(i);
        (&mut high[0], &low[j])
    }
}

// What the distributed transposes (P2P and MPI) share.

/// The one-device transpose of the same matrix (same kernel, no copies), ms per transpose
/// (events), and its check against `gold`.
pub fn one_device(
    gpu: &Gpu,
    input: &[f32],
    nx: usize,
    ny: usize,
    gold: &[f32],
    reps: usize,
) -> Result<(f64, ferrocuda::verify::Check)> {
    let idata = gpu.upload(input)?;
    let mut odata = gpu.zeros::<f32>(input.len())?;
    let tile = ferrocuda::transpose::TransposeTile::whole(nx, ny);
    ferrocuda::transpose::cuda_transpose(gpu, None, &mut odata, &idata, tile)?; // warm-up
    let ms = gpu.time_ms(|| {
        for _ in 0..reps {
            ferrocuda::transpose::cuda_transpose(gpu, None, &mut odata, &idata, tile)?;
        }
        Ok(())
    })? / reps as f64;
    let check = ferrocuda::verify::Check::compare(
        "one-device cuda_transpose",
        &gpu.download(&odata)?,
        gold,
        ferrocuda::verify::Tolerance::EXACT,
    );
    Ok((ms, check))
}

/// `2 * nx * ny * 4` bytes over `seconds`, GB/s: the book's bandwidth.
pub fn gb_per_s(nx: usize, ny: usize, seconds: f64) -> f64 {
    2.0 * (nx * ny * size_of::<f32>()) as f64 / (1e9 * seconds)
}
