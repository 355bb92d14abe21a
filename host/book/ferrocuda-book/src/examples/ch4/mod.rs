//! Book chapter 4 (Ruetsch & Fatica, *CUDA Fortran for Scientists and Engineers*): several GPUs
//! driven by one host thread (§4.1), on logical devices.
//!
//! Every example takes `--devices N`: N logical devices placed round-robin on the GPUs present
//! (`Gpu::open_logical`), by default the GPUs present when there are at least two, else the
//! book's device count on GPU 0 (on the simulator, that many independent simulators). Where the
//! book's point needs distinct GPUs (peer access, peer bandwidth) the output says what was
//! measured instead.
//!
//! With MPI (§4.2), one process per GPU: the ids `ch4-mpi-*` and `ch4-transpose-mpi*`
//! ([`crate::entry::RankExample`]), started with `cargo xtask mpirun -np N <id>`.
pub mod direct_transfer;
pub mod minimal;
pub mod mpi_assign_device;
#[cfg(feature = "mpi")]
pub mod mpi_common;
pub mod mpi_devices;
pub mod p2p_access;
pub mod p2p_bandwidth;
pub mod transpose_mpi;
pub mod transpose_p2p;

use crate::example::Size;
pub use crate::examples::logical_devices::{DevicePlan, DevicesOption};
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::transpose::{CUDA_BLOCK_ROWS, SlabLayout, TILE_DIM, TransposeTile, cuda_transpose};
use ferrocuda::verify::{Check, Tolerance};

/// The peer copies' size per device (`ch4-direct-transfer`, `ch4-p2p-bandwidth`, each with its
/// own unit): the book's `N` = 4M floats, 16 MB; on the simulator 256K floats (1 MB).
pub const PEER_COPY_SIZE: Size = Size::new("", 4 * 1024 * 1024, 256 * 1024);

/// The distributed transposes' side (`ch4-transpose-p2p`, `ch4-transpose-mpi`, each with its
/// own unit and minimum): the book's reported `nx = ny = 2048`; on the simulator 256 (tiles of
/// 128 x 128 on two devices, 64 x 64 on four).
pub const TRANSPOSE_SIZE: Size = Size::new("", 2048, 256).at_least(TILE_DIM);

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

/// Every pair `(i, j)` of `n` devices with `j < i`, row by row.
pub fn pairs(n: usize) -> impl Iterator<Item = (usize, usize)> {
    (0..n).flat_map(|i| (0..i).map(move |j| (i, j)))
}

/// True when two of `gpus` are logical devices of one GPU.
pub fn any_shared(gpus: &[Gpu]) -> bool {
    pairs(gpus.len()).any(|(i, j)| gpus[i].shares_device_with(&gpus[j]))
}

/// Peer access between every two of `gpus` that allow it, both ways.
pub fn enable_peer_access(gpus: &[Gpu]) -> Result<()> {
    for (i, j) in pairs(gpus.len()) {
        gpus[i].enable_peer_access(&gpus[j])?;
        gpus[j].enable_peer_access(&gpus[i])?;
    }
    Ok(())
}

/// The check that `what` held for every pair: passed when `failed` is empty, else naming them
/// (`what (not for 0->1, 2->3)` with `except` = `not for`).
pub fn none_failed(what: &str, except: &str, failed: &[String]) -> Check {
    let what = match failed {
        [] => what.to_string(),
        _ => format!("{what} ({except} {})", failed.join(", ")),
    };
    Check::condition(&what, failed.is_empty())
}

// What the distributed transposes (P2P and MPI) share.

/// The book's lines on a distributed transpose of `layout`: the matrix, the CUDA block, tile and
/// grid (`grid`, then `gap`: the MPI program's blank line), each of the `parts` (`nDevices` or
/// `nprocs`) with its slab, and the tile each receives (`p2pTileDim` or `mpiTileDim`).
pub fn print_layout(layout: &SlabLayout, grid: (u32, u32, u32), gap: &str, parts: &str, tile: &str) {
    let (nx, ny, (tile_nx, tile_ny)) = (layout.nx(), layout.ny(), layout.tile_extents());
    println!("\nArray size: {nx}x{ny}\n");
    println!("CUDA block size: {TILE_DIM}x{CUDA_BLOCK_ROWS}, CUDA tile size: {TILE_DIM}x{TILE_DIM}");
    println!(
        "dimGrid: {}x{}x{}, dimBlock: {TILE_DIM}x{CUDA_BLOCK_ROWS}x1{gap}",
        grid.0, grid.1, grid.2
    );
    println!("{parts}: {}, Local input array size: {nx}x{tile_ny}", layout.parts());
    println!("{tile}: {tile_nx}x{tile_ny}\n");
}

/// The one-device transpose of the same matrix (same kernel, no copies), timed with events over
/// `reps` and printed after `what` as the book's bandwidth; its check against `gold`.
pub fn one_device(
    gpu: &Gpu,
    input: &[f32],
    (nx, ny): (usize, usize),
    gold: &[f32],
    reps: usize,
    what: &str,
) -> Result<Check> {
    let idata = gpu.upload(input)?;
    let mut odata = gpu.zeros::<f32>(input.len())?;
    let tile = TransposeTile::whole(nx, ny);
    cuda_transpose(gpu, None, &mut odata, &idata, tile)?; // warm-up
    let ms =
        gpu.time_ms(|| (0..reps).try_for_each(|_| cuda_transpose(gpu, None, &mut odata, &idata, tile)))? / reps as f64;
    println!(
        "{what}: Bandwidth (GB/s): {:.2}   ({ms:.4} ms, {}, mean of {reps})",
        gb_per_s(nx, ny, ms / 1e3),
        gpu.timing_label()
    );
    let got = gpu.download(&odata)?;
    Ok(Check::compare(
        "one-device cuda_transpose",
        &got,
        gold,
        Tolerance::EXACT,
    ))
}

/// `2 * nx * ny * 4` bytes over `seconds`, GB/s: the book's bandwidth.
pub fn gb_per_s(nx: usize, ny: usize, seconds: f64) -> f64 {
    2.0 * (nx * ny * size_of::<f32>()) as f64 / (1e9 * seconds)
}
