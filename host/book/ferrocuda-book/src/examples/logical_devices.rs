//! Logical devices, as chapter 4 of the book and the IT4I course's two-GPU vector add use them:
//! `--devices N` opens N logical devices placed round-robin on the GPUs present
//! (`Gpu::open_logical`), by default the GPUs present when there are at least two, else the
//! source's device count on GPU 0 (on the simulator, that many independent simulators), so that
//! every multi-GPU path also runs on one GPU and on the simulator.
use crate::defaults::Pick;
use ferrocuda::gpu::{BackendChoice, Gpu, Result, device_count};

/// `--devices N`, flattened into the options of every multi-GPU example; 0 and more than
/// [`MAX_LOGICAL_DEVICES`] are refused when the command line is parsed.
#[derive(clap::Args, Clone, Copy, Debug, Default)]
pub struct DevicesOption {
    /// logical devices, round-robin on the GPUs present (default: the GPUs present when at least 2, else the source's count on GPU 0)
    #[arg(long, value_name = "N", value_parser = device_count_arg)]
    pub devices: Option<usize>,
}

/// A `--devices` value: from 1 to [`MAX_LOGICAL_DEVICES`].
fn device_count_arg(value: &str) -> std::result::Result<usize, String> {
    match value.parse::<usize>().map_err(|e| e.to_string())? {
        0 => Err("--devices must be at least 1: a program needs a device to run on".into()),
        n if n > MAX_LOGICAL_DEVICES => Err(format!(
            "--devices {n} is more than the {MAX_LOGICAL_DEVICES} logical devices an example opens"
        )),
        n => Ok(n),
    }
}

impl DevicesOption {
    /// Where the logical devices of a run with `source_count` devices in its source put their
    /// memory (`--devices`, else [`DevicesOption::open`]'s default), with `physical` GPUs present.
    fn plan_on(&self, physical: usize, source_count: usize) -> DevicePlan {
        let logical = match self.devices {
            Some(n) => n,
            None if physical >= 2 => physical,
            None => source_count,
        };
        DevicePlan { logical, physical }
    }

    /// The plan for `source_count` sources on the GPUs present (none on the simulator).
    pub fn plan(&self, gpu: &Gpu, source_count: usize) -> DevicePlan {
        let physical = if gpu.is_simulator() { Ok(0) } else { device_count() };
        self.plan_on(physical.unwrap_or(0), source_count)
    }

    /// Opens the logical devices `--devices` asks for, or the default (the GPUs present when at
    /// least two, else `source_count` on GPU 0 or on simulators, said in one line), and prints
    /// where each runs.
    pub fn open(&self, gpu: &Gpu, source_count: usize) -> Result<Vec<Gpu>> {
        let physical = if gpu.is_simulator() { 0 } else { device_count()? };
        let n = self.plan_on(physical, source_count).logical;
        match (self.devices, physical) {
            (Some(_), _) | (None, 2..) => {}
            (None, 1) => println!(
                "One GPU present: {source_count} logical devices share GPU 0, as the source's {source_count} GPUs (--devices N for another count)"
            ),
            (None, _) => println!(
                "No GPU: {source_count} logical devices, each its own CPU simulator, as the source's {source_count} GPUs (--devices N for another count)"
            ),
        }
        let gpus = Gpu::open_logical(gpu.pick(BackendChoice::Cuda, BackendChoice::Sim), n)?;
        for g in &gpus {
            println!("  {}", g.placement());
        }
        Ok(gpus)
    }
}

/// More logical devices than any example needs; a guard against a mistyped count.
pub const MAX_LOGICAL_DEVICES: usize = 64;

/// Where a run's logical devices put their memory, for its memory plan (`Example::memory`): how
/// many logical devices [`DevicesOption::open`] opens, and on how many GPUs they are placed
/// round-robin (0: on simulators, whose memory is all host memory).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevicePlan {
    /// Logical devices opened.
    pub logical: usize,
    /// GPUs present, or 0 on the simulator.
    pub physical: usize,
}

impl DevicePlan {
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
