//! Memory plans: what a run needs on the device and on the host, counted with overflow-safe
//! arithmetic and checked against what this machine has *before* anything is allocated, so that
//! a size too large is refused in one sentence instead of ending in the host's OOM killer or an
//! allocation abort; and host buffers allocated fallibly, so that an allocation that still fails
//! is an [`Error`], not an abort.
//!
//! ```
//! use ferrocuda::footprint::{Capacity, Footprint};
//! // Three f32 arrays of n elements on the device, and their host copies.
//! let plan = |n: usize| Footprint::NONE.device::<f32>(3, n)?.host::<f32>(3, n);
//! let gpu = ferrocuda::Gpu::simulator();
//! let capacity = Capacity::of(&gpu)?;
//! assert!(capacity.fits(plan(1000).unwrap()));
//! assert!(plan(usize::MAX).is_none()); // overflows: refused, never wrapped
//! # Ok::<(), ferrocuda::Error>(())
//! ```
pub use crate::gpu::host_memory::{Bytes, host_available_bytes, try_from_fn, try_vec, try_with_capacity};
use crate::gpu::{Error, Gpu, Result};

/// Bytes a run needs on the device and on the host at once (its peak).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Footprint {
    pub device_bytes: u64,
    pub host_bytes: u64,
}

impl Footprint {
    /// Nothing.
    pub const NONE: Self = Self {
        device_bytes: 0,
        host_bytes: 0,
    };

    /// With `count` device arrays of `elements` `T`s more; `None` when the bytes overflow.
    pub fn device<T>(self, count: usize, elements: usize) -> Option<Self> {
        Some(Self {
            device_bytes: self.device_bytes.checked_add(array_bytes::<T>(count, elements)?)?,
            ..self
        })
    }

    /// With `count` host arrays of `elements` `T`s more; `None` when the bytes overflow.
    pub fn host<T>(self, count: usize, elements: usize) -> Option<Self> {
        Some(Self {
            host_bytes: self.host_bytes.checked_add(array_bytes::<T>(count, elements)?)?,
            ..self
        })
    }

    /// With `count` arrays of `elements` `T`s on the device *and* as many on the host (a device
    /// array with its host copy); `None` when the bytes overflow.
    pub fn mirrored<T>(self, count: usize, elements: usize) -> Option<Self> {
        self.device::<T>(count, elements)?.host::<T>(count, elements)
    }

    /// The sum of two plans (both alive at once); `None` when the bytes overflow.
    pub fn plus(self, other: Self) -> Option<Self> {
        Some(Self {
            device_bytes: self.device_bytes.checked_add(other.device_bytes)?,
            host_bytes: self.host_bytes.checked_add(other.host_bytes)?,
        })
    }

    /// The larger of two plans, field by field (phases that run one after the other).
    pub fn max(self, other: Self) -> Self {
        Self {
            device_bytes: self.device_bytes.max(other.device_bytes),
            host_bytes: self.host_bytes.max(other.host_bytes),
        }
    }
}

/// `count * elements * size_of::<T>()` bytes; `None` when it overflows.
fn array_bytes<T>(count: usize, elements: usize) -> Option<u64> {
    let bytes = count.checked_mul(elements)?.checked_mul(size_of::<T>())?;
    u64::try_from(bytes).ok()
}

/// The product of a grid's extents (`[rows, cols]`, `[nx, ny, nz]`); `None` when it overflows.
pub fn elements(extents: &[usize]) -> Option<usize> {
    extents.iter().try_fold(1usize, |n, &e| n.checked_mul(e))
}

/// What this machine can give a run now: the device's free memory and the host's available
/// memory, each less a margin for what the run does not count (the CUDA context, library
/// workspaces, the program itself).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Capacity {
    /// The device's free memory (`cuMemGetInfo`), less [`Capacity::DEVICE_MARGIN_BYTES`].
    pub device_bytes: u64,
    /// The host's available memory, less [`Capacity::HOST_MARGIN_BYTES`]: the smallest of
    /// `MemAvailable`, the cgroup's limit less its use, and the address-space limit
    /// (`ulimit -v`) less this process's mappings.
    pub host_bytes: u64,
    /// True on the simulator, whose device memory is the host's: a plan's two figures then
    /// draw on the one host figure.
    pub unified: bool,
}

impl Capacity {
    /// Kept free on the device: the context, cuFFT/cuBLAS workspaces, the allocator's rounding.
    pub const DEVICE_MARGIN_BYTES: u64 = 512 << 20;
    /// Kept free on the host: the program, its threads' stacks, output buffers.
    pub const HOST_MARGIN_BYTES: u64 = 512 << 20;

    /// What `gpu` and this host can give now.
    pub fn of(gpu: &Gpu) -> Result<Self> {
        let host_bytes = host_available_bytes().saturating_sub(Self::HOST_MARGIN_BYTES);
        if gpu.is_simulator() {
            return Ok(Self {
                device_bytes: host_bytes,
                host_bytes,
                unified: true,
            });
        }
        let (free, _total) = gpu.memory_info()?;
        Ok(Self {
            device_bytes: (free as u64).saturating_sub(Self::DEVICE_MARGIN_BYTES),
            host_bytes,
            unified: false,
        })
    }

    /// True when `plan` fits.
    pub fn fits(&self, plan: Footprint) -> bool {
        if self.unified {
            plan.device_bytes
                .checked_add(plan.host_bytes)
                .is_some_and(|all| all <= self.host_bytes)
        } else {
            plan.device_bytes <= self.device_bytes && plan.host_bytes <= self.host_bytes
        }
    }

    /// The largest size in `1..=below - 1` whose plan fits, for a plan that grows with its size;
    /// `None` when not even size 1 fits.
    pub fn largest_fitting(&self, below: usize, plan: impl Fn(usize) -> Option<Footprint>) -> Option<usize> {
        let fits = |n: usize| plan(n).is_some_and(|p| self.fits(p));
        let (mut good, mut bad) = (0usize, below);
        while bad - good > 1 {
            let mid = good + (bad - good) / 2;
            if fits(mid) { good = mid } else { bad = mid }
        }
        (good > 0).then_some(good)
    }

    /// Says what `plan` needs against what there is: `48.0 GiB on the device and 1.2 GiB on the
    /// host; the device has 78.6 GiB free and the host 120.3 GiB available`.
    pub fn describe(&self, plan: Footprint) -> String {
        if self.unified {
            format!(
                "{} ({} of simulated device memory, which is host memory, and {} on the host); the host has {} available",
                Bytes(plan.device_bytes.saturating_add(plan.host_bytes)),
                Bytes(plan.device_bytes),
                Bytes(plan.host_bytes),
                Bytes(self.host_bytes)
            )
        } else {
            format!(
                "{} on the device and {} on the host; the device has {} free and the host {} available",
                Bytes(plan.device_bytes),
                Bytes(plan.host_bytes),
                Bytes(self.device_bytes),
                Bytes(self.host_bytes)
            )
        }
    }

    /// `Ok` when `plan` fits, else [`Error::OutOfMemory`] saying what `what` needs and what
    /// there is.
    pub fn check(&self, what: &str, plan: Footprint) -> Result<()> {
        if self.fits(plan) {
            Ok(())
        } else {
            Err(Error::OutOfMemory(format!("{what} needs {}", self.describe(plan))))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_add_and_refuse_overflow() {
        let plan = Footprint::NONE
            .device::<f32>(3, 10)
            .unwrap()
            .host::<f64>(1, 10)
            .unwrap();
        assert_eq!(
            plan,
            Footprint {
                device_bytes: 120,
                host_bytes: 80
            }
        );
        assert!(Footprint::NONE.device::<f32>(3, usize::MAX / 4).is_none());
        assert!(elements(&[1 << 40, 1 << 40]).is_none());
        assert_eq!(elements(&[3, 4, 5]), Some(60));
    }

    #[test]
    fn largest_fitting_is_the_last_size_that_fits() {
        let capacity = Capacity {
            device_bytes: 1000,
            host_bytes: 500,
            unified: false,
        };
        let plan = |n: usize| Footprint::NONE.device::<u8>(2, n)?.host::<u8>(1, n);
        assert_eq!(capacity.largest_fitting(10_000, plan), Some(500));
        assert!(capacity.fits(plan(500).unwrap()) && !capacity.fits(plan(501).unwrap()));
        let unified = Capacity {
            unified: true,
            ..capacity
        };
        assert_eq!(unified.largest_fitting(10_000, plan), Some(166));
        assert_eq!(capacity.largest_fitting(10_000, |_| None), None);
    }
}
