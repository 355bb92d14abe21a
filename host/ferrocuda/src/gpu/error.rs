//! One error type for everything the host library does on a GPU.
use cudarc::driver::DriverError;

/// Result of a host-library call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, naming the call or kernel and the CUDA error; the cause (a driver error, a
/// simulator fault) stays reachable through [`std::error::Error::source`].
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// `libcuda` could not be loaded: no NVIDIA driver on this machine.
    #[error(
        "no NVIDIA driver found (libcuda.so could not be loaded): run on a machine with an NVIDIA GPU and its driver, or on the CPU simulator (`Gpu::simulator()`, or `Gpu::from_env` with FERROCUDA_BACKEND=sim or auto)"
    )]
    NoDriver,
    /// The driver found no GPU.
    #[error("the NVIDIA driver reports no GPU on this machine")]
    NoDevice,
    /// The requested device ordinal is not present.
    #[error("there is no device {ordinal}: this machine has {count} GPU(s), numbered from 0")]
    NoSuchDevice { ordinal: usize, count: usize },
    /// A kernel set carries no PTX the device can run.
    #[error(
        "the kernels `{kernels}` were built for {built} only, newer than this compute capability {}.{} GPU: rebuild with FERROCUDA_ARCHS=sm_{compute_capability}",
        compute_capability / 10,
        compute_capability % 10
    )]
    NoPtxForDevice {
        kernels: &'static str,
        compute_capability: u32,
        built: String,
    },
    /// A CUDA call failed: `call` says which, and for what.
    #[error("{call} failed: {} ({})", error_name(error), error_text(error))]
    Cuda {
        call: String,
        #[source]
        error: DriverError,
    },
    /// An argument the caller chose is out of range (a size, an option).
    #[error("{0}")]
    InvalidArgument(String),
    /// A launch shape the device cannot run (too many threads per block, too much shared
    /// memory), refused before it reached the driver or the simulator: CUDA's invalid
    /// configuration.
    #[error("{0}")]
    InvalidLaunch(String),
    /// A run or a buffer does not fit in the memory the device or the host has left, refused
    /// before allocating ([`crate::footprint`]) or by a fallible host allocation.
    #[error("{0}")]
    OutOfMemory(String),
    /// A CUDA library (cuRAND, cuBLAS, NCCL) call failed: `call` says which.
    #[error("{call} failed: {error}")]
    Library { call: String, error: String },
    /// Kernel sets whose PTX uses a function or variable that none of the sets loaded with it
    /// defines, or that the driver's linker refused (the link log, as one sentence).
    #[error("{0}")]
    Link(String),
    /// A file, a compiler or another program the call needed failed.
    #[error("{0}")]
    Io(String),
    /// The CPU simulator refused a launch, or a simulated kernel faulted.
    #[error("simulator: {0}")]
    Simulator(#[source] ferrocuda_sim::SimError),
    /// The call needs a CUDA device, and this `Gpu` is the simulator.
    #[error("{0} needs a CUDA device, and this run uses the CPU simulator")]
    NeedsCuda(String),
}

impl Error {
    /// Wraps a CUDA error with the call it came from.
    pub fn cuda(call: impl Into<String>) -> impl FnOnce(DriverError) -> Self {
        let call = call.into();
        move |error| Error::Cuda { call, error }
    }

    /// True for a launch the device refused (too many threads per block, say): CUDA's
    /// `CUDA_ERROR_INVALID_VALUE`, or the simulator's equivalent.
    pub fn is_invalid_launch(&self) -> bool {
        match self {
            Error::Cuda { error, .. } => error.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_INVALID_VALUE,
            Error::Simulator(ferrocuda_sim::SimError::InvalidLaunch(_)) | Error::InvalidLaunch(_) => true,
            _ => false,
        }
    }

    /// The CUDA error code name (`CUDA_ERROR_INVALID_VALUE`), when this is a CUDA error.
    pub fn cuda_error_name(&self) -> Option<String> {
        match self {
            Error::Cuda { error, .. } => Some(error_name(error)),
            _ => None,
        }
    }
}

/// The driver's text for `error` (`invalid argument`), or nothing.
fn error_text(error: &DriverError) -> String {
    error
        .error_string()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

fn error_name(error: &DriverError) -> String {
    error
        .error_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", error.0))
}
