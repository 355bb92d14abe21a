//! Logical devices, as chapter 4 of the book and the IT4I course's two-GPU vector add use them:
//! `--devices N` opens N logical devices placed round-robin on the GPUs present
//! (`Gpu::open_logical`), by default the GPUs present when there are at least two, else the
//! source's device count on GPU 0 (on the simulator, that many independent simulators), so that
//! every multi-GPU path also runs on one GPU and on the simulator.
use crate::example::{Flag, Options};
use ferrocuda::gpu::{BackendChoice, Error, Gpu, Result, device_count};

/// The flag every multi-GPU example takes.
pub const DEVICES: Flag = Flag {
    name: "--devices",
    value: Some("N"),
    help: "logical devices, round-robin on the GPUs present (default: the GPUs present when at least 2, else the source's count on GPU 0)",
    requires: None,
};

/// More logical devices than any example needs; a guard against a mistyped count.
pub const MAX_LOGICAL_DEVICES: usize = 64;

/// Where a run's logical devices put their memory, for its memory plan (`Example::memory`): how
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
    /// `source_count`); `None` when `open_devices` refuses `--devices` (0, too many, not a number),
    /// so that its own sentence is the one the user reads.
    pub fn of(options: &Options, gpu: &Gpu, source_count: usize) -> Option<Self> {
        let physical = if gpu.is_simulator() {
            0
        } else {
            device_count().unwrap_or(0)
        };
        let logical = match options.parsed::<usize>("--devices").ok()? {
            Some(n) if (1..=MAX_LOGICAL_DEVICES).contains(&n) => n,
            Some(_) => return None,
            None if physical >= 2 => physical,
            None => source_count,
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
/// least two, else `source_count` on GPU 0 or on simulators, said in one line), and prints where
/// each runs.
pub fn open_devices(gpu: &Gpu, options: &Options, source_count: usize) -> Result<Vec<Gpu>> {
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
                "One GPU present: {source_count} logical devices share GPU 0, as the source's {source_count} GPUs (--devices N for another count)"
            );
            source_count
        }
        None => {
            println!(
                "No GPU: {source_count} logical devices, each its own CPU simulator, as the source's {source_count} GPUs (--devices N for another count)"
            );
            source_count
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
