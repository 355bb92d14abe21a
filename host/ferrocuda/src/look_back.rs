//! The temporary state of the library's single-pass primitives (`scan`, `select`): one descriptor
//! per tile and a ticket counter, stamped with a launch's epoch so that the next launch needs no
//! zeroing pass (see `ferrocuda_device::collective::grid`).
use crate::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result, Stream};
use ferrocuda_device::collective::grid::{MAX_EPOCH, SCAN_THREADS, SCAN_TILE};
use gpu_kernels::scan::{ScanInit, ScanInitArgs};

/// Tiles of a launch over `n` elements: at least one, so that a plan always has a descriptor.
pub(crate) fn tiles(n: usize) -> usize {
    n.div_ceil(SCAN_TILE).max(1)
}

/// The launch shape over `n` elements: a block of [`SCAN_THREADS`] per tile, `shared_bytes` of
/// dynamic shared memory.
pub(crate) fn shape(n: usize, shared_bytes: usize) -> Result<LaunchShape> {
    let tiles = u32::try_from(tiles(n))
        .map_err(|_| Error::InvalidArgument(format!("{n} elements make more tiles than a grid holds")))?;
    Ok(LaunchShape::new((tiles, 1, 1), (SCAN_THREADS as u32, 1, 1)).with_shared_bytes(shared_bytes as u32))
}

/// Tile descriptors and the ticket counter, with the epoch and tickets of the launches so far.
pub(crate) struct TileStatus {
    pub status: DeviceBuffer<u64>,
    pub counter: DeviceBuffer<u32>,
    /// The last launch's epoch (0: none since the buffers were zeroed).
    epoch: u32,
    /// Tickets the blocks of the launches since then have taken: `counter`'s value once they ran.
    tickets: u32,
}

/// What one launch stamps its descriptors with and counts its tickets from.
pub(crate) struct Stamp {
    pub epoch: u32,
    pub ticket_base: u32,
}

impl TileStatus {
    /// Zeroed state for launches of up to `capacity` elements.
    pub fn new(gpu: &Gpu, capacity: usize) -> Result<Self> {
        Ok(Self {
            status: gpu.zeros(tiles(capacity))?,
            counter: gpu.zeros(1)?,
            epoch: 0,
            tickets: 0,
        })
    }

    /// The next launch's stamp, zeroing the buffers first (on `stream`) when the epochs ran out.
    pub fn next(&mut self, kernels: &LoadedKernels, stream: Option<&Stream>) -> Result<Stamp> {
        if self.epoch == MAX_EPOCH {
            self.restart(kernels, stream)?;
        }
        Ok(Stamp {
            epoch: self.epoch + 1,
            ticket_base: self.tickets,
        })
    }

    /// Counts a launch of `blocks` blocks queued with the stamp `next` gave.
    pub fn launched(&mut self, blocks: u32) {
        self.epoch += 1;
        self.tickets = self.tickets.wrapping_add(blocks);
    }

    /// Zeroes the descriptors and the counter on `stream` (`scan_init`) and starts the epochs
    /// again. `kernels` is any set loaded on the buffers' GPU.
    pub fn restart(&mut self, kernels: &LoadedKernels, stream: Option<&Stream>) -> Result<()> {
        let init_shape = LaunchShape::cover_1d(self.status.len(), 256)?;
        let init = ScanInitArgs {
            tile_status: self.status.view_mut(),
            tile_counter: self.counter.view_mut(),
        };
        // The init kernel is the library's, whichever crate's kernel the plan launches.
        kernels
            .gpu()
            .library()?
            .launch_maybe_on(stream, ScanInit, init_shape, init)?;
        self.epoch = 0;
        self.tickets = 0;
        Ok(())
    }
}
