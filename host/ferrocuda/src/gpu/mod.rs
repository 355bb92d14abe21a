//! The host runtime. Every call into cudarc goes through this module, which is also the only home
//! of the `unsafe` kernel launch.
//!
//! Layers, as in cudarc: cudarc's `result`/`sys` (raw driver calls) below, then this safe layer:
//! [`Gpu`] (a device, on one of two backends: [`CudaDevice`], or the CPU simulator, which runs the
//! same kernel code on the host), kernel sets ([`KernelSet`], loaded by [`Gpu::load`] as
//! [`LoadedKernels`], through which every typed launch goes) and [`LaunchShape`]s, device buffers and
//! their kernel views ([`memory`]), pinned host buffers, streams with their events and
//! asynchronous copies ([`Stream`]), several devices in one process (logical devices, memory
//! information, peer access and peer copies: [`Gpu::open_logical`]), timing, cuRAND's host generators ([`Curand`]), cuFFT's plans ([`Cufft`]), cuBLAS's
//! SGEMM (`Cublas`, with the feature `cublas`), NCCL's send and receive ([`NcclComm`]) and a kernel set's constant bank
//! ([`LoadedKernels::write_constant`]), device variables ([`LoadedKernels::write_variable`]), kernel sets linked
//! into one module (separate compilation: [`Gpu::link`]), managed memory ([`ManagedBuffer`]) and the kernels' printed
//! output ([`Gpu::synchronize_output`], [`Gpu::capture_output`]).
mod cache_config;
mod constant;
#[cfg(feature = "cublas")]
mod cublas;
mod cuda;
mod cufft;
mod curand;
mod device;
mod element;
mod error;
pub(crate) mod host_memory;
mod kernels;
mod launch;
mod link;
mod managed;
pub mod memory;
mod nccl;
mod occupancy;
mod output;
mod peer;
mod simulator;
mod stream;
mod tensor_map;
mod timing;
mod transfer;
mod variable;

pub use cache_config::{CARVEOUT_DEFAULT, CachePreference};
#[cfg(feature = "cublas")]
pub use cublas::{Cublas, GemmOperand, TensorInputs};
pub use cuda::{CudaDevice, Module};
pub use cufft::{Cufft, CufftFloat, CufftKind};
pub use curand::{Curand, CurandFloat, CurandGenerator, CurandOrdering};
pub use device::{DeviceProperties, device_count, driver_version};
pub use error::{Error, Result};
pub use kernels::{KernelSet, LoadedKernels, PtxModule};
pub use launch::LaunchShape;
pub use managed::{Advice, ManagedBuffer};
pub use memory::{DeviceBuffer, Element, KernelView, PinnedBuffer, Repr, same_len};
pub use nccl::{NcclComm, NcclElement};
pub use stream::{Copy2d, Event, Stream};
pub use tensor_map::{TensorElement, TensorMap};
pub use timing::Timer;

use simulator::SimDevice;
use std::str::FromStr;

/// Which backend runs the kernels.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    /// CUDA when a GPU is present, the simulator otherwise.
    #[default]
    Auto,
    /// CUDA; an error without a GPU.
    Cuda,
    /// The CPU simulator.
    Sim,
}

impl BackendChoice {
    /// The environment variable that chooses the backend of tests and programs that ask for it.
    pub const ENV: &'static str = "FERROCUDA_BACKEND";

    /// The choice in `FERROCUDA_BACKEND` (`auto` when unset or empty); an error naming the
    /// variable for any other value than `auto`, `cuda` or `sim`, and for one that is not UTF-8.
    pub fn from_env() -> Result<Self> {
        match std::env::var(Self::ENV) {
            // Set but empty (`FERROCUDA_BACKEND= cmd`) is taken as unset, as shells mean it.
            Ok(value) if value.is_empty() => Ok(Self::Auto),
            Ok(value) => value.parse(),
            Err(std::env::VarError::NotPresent) => Ok(Self::Auto),
            Err(std::env::VarError::NotUnicode(_)) => Err(Error::InvalidArgument(format!(
                "{} is not valid UTF-8: give auto, cuda or sim",
                Self::ENV
            ))),
        }
    }
}

impl FromStr for BackendChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "auto" => Ok(Self::Auto),
            "cuda" => Ok(Self::Cuda),
            "sim" => Ok(Self::Sim),
            other => Err(Error::InvalidArgument(format!(
                "the backend is auto, cuda or sim, not `{other}`"
            ))),
        }
    }
}

enum Backend {
    Cuda(CudaDevice),
    Sim(SimDevice),
}

/// One GPU, or the CPU simulator standing in for one: its kernels, buffers, launches and timing.
///
/// ```
/// use ferrocuda::Gpu;
/// // Device 0 when there is a GPU, else the simulator (FERROCUDA_BACKEND=cuda|sim decides otherwise).
/// let gpu = Gpu::from_env(0)?;
/// println!("{} (sm_{})", gpu.properties().name, gpu.properties().compute_capability_number());
/// # Ok::<(), ferrocuda::Error>(())
/// ```
pub struct Gpu {
    backend: Backend,
    properties: DeviceProperties,
    /// This handle's index among the logical devices it was opened with ([`Gpu::open_logical`]).
    logical_index: usize,
}

impl Gpu {
    /// Opens CUDA device `ordinal` (0-based) and loads the library's kernels for its architecture.
    ///
    /// Fails with one clear error when there is no driver, no such GPU, or no PTX that runs on it.
    pub fn new(ordinal: usize) -> Result<Self> {
        let properties = DeviceProperties::query(ordinal)?;
        let cuda = CudaDevice::open(&properties)?;
        let gpu = Self {
            backend: Backend::Cuda(cuda),
            properties,
            logical_index: 0,
        };
        // The library's own kernels load now, so a device no module runs on is refused here.
        gpu.library()?;
        Ok(gpu)
    }

    /// Opens device `ordinal` on the backend `FERROCUDA_BACKEND` names: `cuda`, `sim`, or `auto`
    /// (the default: CUDA when a GPU is present, the simulator otherwise).
    pub fn from_env(ordinal: usize) -> Result<Self> {
        Self::open(BackendChoice::from_env()?, ordinal).map(|(gpu, _)| gpu)
    }

    /// The CPU simulator, which runs the same kernels on the host's cores (see `ferrocuda_sim`).
    pub fn simulator() -> Self {
        Self {
            backend: Backend::Sim(SimDevice::default()),
            properties: DeviceProperties::simulator(),
            logical_index: 0,
        }
    }

    /// [`Gpu::simulator`], once `FERROCUDA_SIM_CHECKS` and `FERROCUDA_SIM_STACK` are known to be
    /// valid: a bad value is an error naming it here, not a panic at the first launch.
    pub(crate) fn simulator_checked() -> Result<Self> {
        ferrocuda_sim::checks_from_env().map_err(Error::InvalidArgument)?;
        ferrocuda_sim::stack_bytes_from_env().map_err(Error::InvalidArgument)?;
        Ok(Self::simulator())
    }

    /// Opens a backend as `choice` says. For `Auto`, the second value is why CUDA was not used
    /// when the simulator was chosen.
    pub fn open(choice: BackendChoice, ordinal: usize) -> Result<(Self, Option<Error>)> {
        let simulator = |why| match ordinal {
            0 => Self::simulator_checked().map(|gpu| (gpu, why)),
            _ => Err(Error::InvalidArgument(format!(
                "there is no device {ordinal} on the CPU simulator, which is one device, numbered 0"
            ))),
        };
        match choice {
            BackendChoice::Cuda => Ok((Self::new(ordinal)?, None)),
            BackendChoice::Sim => simulator(None),
            BackendChoice::Auto => match Self::new(ordinal) {
                Ok(gpu) => Ok((gpu, None)),
                Err(e @ (Error::NoDriver | Error::NoDevice)) => simulator(Some(e)),
                Err(e) => Err(e),
            },
        }
    }

    /// The device's properties.
    pub fn properties(&self) -> &DeviceProperties {
        &self.properties
    }

    /// True when this is the CPU simulator.
    pub fn is_simulator(&self) -> bool {
        matches!(self.backend, Backend::Sim(_))
    }

    /// The CUDA device, for streams, PTX modules and what this library does not wrap; an error on
    /// the simulator.
    pub fn cuda(&self, what: &str) -> Result<&CudaDevice> {
        match &self.backend {
            Backend::Cuda(cuda) => Ok(cuda),
            Backend::Sim(_) => Err(Error::NeedsCuda(what.to_string())),
        }
    }

    /// The library's own kernels (`gpu-kernels`), loaded when the device was opened.
    pub(crate) fn library(&self) -> Result<LoadedKernels<'_>> {
        self.load(&crate::ptx::LIBRARY)
    }

    /// Waits until all work queued so far has finished; a fault of a kernel surfaces here,
    /// named with the kernel.
    pub fn synchronize(&self) -> Result<()> {
        match &self.backend {
            Backend::Cuda(cuda) => {
                let call = match cuda.last_launched() {
                    Some(name) => format!("synchronizing after kernel `{name}`"),
                    None => "synchronizing the stream".to_string(),
                };
                cuda.stream.synchronize().map_err(Error::cuda(call))
            }
            Backend::Sim(sim) => sim.take_fault(),
        }
    }

    /// On the simulator, the fault of an earlier launch, which copies report as CUDA's do.
    fn check_simulator_fault(&self) -> Result<()> {
        match &self.backend {
            Backend::Sim(sim) => sim.take_fault(),
            Backend::Cuda(_) => Ok(()),
        }
    }
}
