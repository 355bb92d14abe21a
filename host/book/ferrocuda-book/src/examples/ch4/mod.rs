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
pub mod mpi_common;
pub mod mpi_devices;
pub mod p2p_access;
pub mod p2p_bandwidth;
pub mod transpose_mpi;
pub mod transpose_p2p;

pub use crate::examples::logical_devices::{DEVICES, DevicePlan, MAX_LOGICAL_DEVICES, open_devices};
use ferrocuda::gpu::{Error, Gpu, Result};

/// The peer copies' size per device (`ch4-direct-transfer`, `ch4-p2p-bandwidth`): the book's
/// `N` = 4M floats, 16 MB; on the simulator 256K floats (1 MB).
pub const PEER_COPY_BOOK_N: usize = 4 * 1024 * 1024;
pub const PEER_COPY_SIM_N: usize = 256 * 1024;

/// The distributed transposes' side (`ch4-transpose-p2p`, `ch4-transpose-mpi`): the book's
/// reported `nx = ny = 2048`; on the simulator 256 (tiles of 128 x 128 on two devices, 64 x 64
/// on four).
pub const TRANSPOSE_BOOK_N: usize = 2048;
pub const TRANSPOSE_SIM_N: usize = 256;

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
