//! One error type for everything the host library does on a GPU.
use cudarc::driver::DriverError;
use std::fmt;

/// Result of a host-library call.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// What went wrong, naming the call or kernel and the CUDA error.
#[derive(Debug)]
pub enum Error {
    /// `libcuda` could not be loaded: no NVIDIA driver on this machine.
    NoDriver,
    /// The driver found no GPU.
    NoDevice,
    /// The requested device ordinal is not present.
    NoSuchDevice { ordinal: usize, count: usize },
    /// A kernel set carries no PTX the device can run.
    NoPtxForDevice {
        kernels: &'static str,
        compute_capability: u32,
        built: String,
    },
    /// A CUDA call failed: `call` says which, and for what.
    Cuda { call: String, error: DriverError },
    /// An argument the caller chose is out of range (a size, an option).
    InvalidArgument(String),
    /// A launch shape the device cannot run (too many threads per block, too much shared
    /// memory), refused before it reached the driver or the simulator: CUDA's invalid
    /// configuration.
    InvalidLaunch(String),
    /// A CUDA library (cuRAND, cuBLAS, NCCL) call failed: `call` says which.
    Library { call: String, error: String },
    /// A file, a compiler or another program the call needed failed.
    Io(String),
    /// The CPU simulator refused a launch, or a simulated kernel faulted.
    Simulator(ferrocuda_sim::SimError),
    /// The call needs a CUDA device, and this `Gpu` is the simulator.
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

fn error_name(error: &DriverError) -> String {
    error
        .error_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|_| format!("{:?}", error.0))
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::NoDriver => write!(
                f,
                "no NVIDIA driver found (libcuda.so could not be loaded): run on a machine with an NVIDIA GPU and its driver, or on the CPU simulator (`Gpu::simulator()`, or `Gpu::from_env` with FERROCUDA_BACKEND=sim or auto)"
            ),
            Error::NoDevice => write!(f, "the NVIDIA driver reports no GPU on this machine"),
            Error::NoSuchDevice { ordinal, count } => write!(
                f,
                "there is no device {ordinal}: this machine has {count} GPU(s), numbered from 0"
            ),
            Error::NoPtxForDevice {
                kernels,
                compute_capability,
                built,
            } => write!(
                f,
                "the kernels `{kernels}` were built for {built} only, newer than this compute capability {}.{} GPU: rebuild with FERROCUDA_ARCHS=sm_{compute_capability}",
                compute_capability / 10,
                compute_capability % 10
            ),
            Error::Cuda { call, error } => {
                let text = error
                    .error_string()
                    .map(|s| s.to_string_lossy().into_owned())
                    .unwrap_or_default();
                write!(f, "{call} failed: {} ({text})", error_name(error))
            }
            Error::Library { call, error } => write!(f, "{call} failed: {error}"),
            Error::InvalidArgument(message) | Error::InvalidLaunch(message) | Error::Io(message) => {
                f.write_str(message)
            }
            Error::Simulator(e) => write!(f, "simulator: {e}"),
            Error::NeedsCuda(what) => write!(f, "{what} needs a CUDA device, and this run uses the CPU simulator"),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Error::Cuda { error, .. } => Some(error),
            Error::Simulator(e) => Some(e),
            _ => None,
        }
    }
}
