//! Typed kernel launches with explicit grid, block and shared-memory sizes.
use super::device::DeviceProperties;
use super::error::{Error, Result};
use std::fmt;

const AXES: [&str; 3] = ["x", "y", "z"];

/// Grid, block and dynamic shared memory of one launch, always stated, never defaulted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchShape {
    /// Blocks in x, y, z.
    pub grid: (u32, u32, u32),
    /// Threads per block in x, y, z.
    pub block: (u32, u32, u32),
    /// Dynamic shared memory per block, bytes.
    pub shared_bytes: u32,
}

impl LaunchShape {
    /// `ceil(n / threads)` blocks of `threads` threads: one thread per element of `n`.
    ///
    /// ```
    /// let shape = ferrocuda::LaunchShape::cover_1d(1000, 256)?;
    /// assert_eq!((shape.grid.0, shape.block.0), (4, 256));
    /// # Ok::<(), ferrocuda::Error>(())
    /// ```
    pub fn cover_1d(n: usize, threads: u32) -> Result<Self> {
        if threads == 0 {
            return Err(Error::InvalidArgument("a block needs at least one thread".into()));
        }
        let blocks = n.div_ceil(threads as usize).max(1);
        let blocks = u32::try_from(blocks).map_err(|_| {
            Error::InvalidArgument(format!(
                "{n} elements need {blocks} blocks of {threads}, more than a grid holds"
            ))
        })?;
        Ok(Self::new((blocks, 1, 1), (threads, 1, 1)))
    }

    /// Blocks of `block` threads covering an `nx x ny` array, one thread per element.
    pub fn cover_2d(nx: usize, ny: usize, block: (u32, u32)) -> Result<Self> {
        if block.0 == 0 || block.1 == 0 {
            return Err(Error::InvalidArgument("a block needs at least one thread".into()));
        }
        let gx = u32::try_from(nx.div_ceil(block.0 as usize).max(1));
        let gy = u32::try_from(ny.div_ceil(block.1 as usize).max(1));
        match (gx, gy) {
            (Ok(gx), Ok(gy)) => Ok(Self::new((gx, gy, 1), (block.0, block.1, 1))),
            _ => Err(Error::InvalidArgument(format!(
                "a {nx} x {ny} array needs more blocks than a grid holds"
            ))),
        }
    }

    /// A shape with no dynamic shared memory.
    pub const fn new(grid: (u32, u32, u32), block: (u32, u32, u32)) -> Self {
        Self {
            grid,
            block,
            shared_bytes: 0,
        }
    }

    /// The same shape with `bytes` of dynamic shared memory per block.
    pub const fn with_shared_bytes(mut self, bytes: u32) -> Self {
        self.shared_bytes = bytes;
        self
    }

    /// Threads per block.
    pub fn threads_per_block(&self) -> u32 {
        self.block.0 * self.block.1 * self.block.2
    }

    /// `Err` with why, when `properties`' device cannot run this shape: an empty grid or block,
    /// more threads per block or a larger grid or block than it has, or more dynamic shared
    /// memory than a block may opt in to.
    pub fn check(&self, properties: &DeviceProperties) -> std::result::Result<(), String> {
        let (grid, block) = (
            [self.grid.0, self.grid.1, self.grid.2],
            [self.block.0, self.block.1, self.block.2],
        );
        let threads = block.iter().map(|&d| u64::from(d)).product::<u64>();
        let p = properties;
        if grid.contains(&0) || block.contains(&0) {
            Err("an empty grid or block".into())
        } else if threads > u64::from(p.max_threads_per_block) {
            Err(format!(
                "{threads} threads per block, more than the device's {}",
                p.max_threads_per_block
            ))
        } else if let Some(k) = (0..3).find(|&k| block[k] > p.max_block_dim[k]) {
            Err(format!(
                "a block of {} threads in {}, more than the device's {}",
                block[k], AXES[k], p.max_block_dim[k]
            ))
        } else if let Some(k) = (0..3).find(|&k| grid[k] > p.max_grid_dim[k]) {
            Err(format!(
                "a grid of {} blocks in {}, more than the device's {}",
                grid[k], AXES[k], p.max_grid_dim[k]
            ))
        } else if self.shared_bytes > p.shared_mem_per_block_optin_bytes {
            Err(format!(
                "{} bytes of dynamic shared memory per block, more than the device's {}",
                self.shared_bytes, p.shared_mem_per_block_optin_bytes
            ))
        } else {
            Ok(())
        }
    }

    /// The shape as the simulator takes it.
    pub(super) fn sim_launch(
        &self,
        kernel: &'static str,
        views: Vec<ferrocuda_sim::ViewInfo>,
    ) -> ferrocuda_sim::Launch {
        ferrocuda_sim::Launch {
            kernel,
            grid: [self.grid.0, self.grid.1, self.grid.2],
            block: [self.block.0, self.block.1, self.block.2],
            shared_bytes: self.shared_bytes as usize,
            views,
        }
    }
}

impl fmt::Display for LaunchShape {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (g, b) = (self.grid, self.block);
        write!(f, "grid {}x{}x{}, block {}x{}x{}", g.0, g.1, g.2, b.0, b.1, b.2)?;
        if self.shared_bytes > 0 {
            write!(f, ", {} B shared", self.shared_bytes)?;
        }
        Ok(())
    }
}
