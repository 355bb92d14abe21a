//! Host memory, taken fallibly: what this process can still allocate, and `Vec`s allocated with
//! `try_reserve_exact`, so that a host allocation that fails is an [`Error::OutOfMemory`] naming
//! the bytes, never an abort. The device's downloads allocate through here; `ferrocuda::footprint`
//! re-exports it beside the memory plans.
use super::error::{Error, Result};
use std::fmt;

/// Bytes for a person: `48.0 GiB`, `512 B`.
pub struct Bytes(pub u64);

impl fmt::Display for Bytes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
        let mut value = self.0 as f64;
        if self.0 < 1024 {
            return write!(f, "{} B", self.0);
        }
        for unit in UNITS {
            value /= 1024.0;
            if value < 1024.0 || unit == "PiB" {
                return write!(f, "{value:.1} {unit}");
            }
        }
        unreachable!("the loop returns at its last unit")
    }
}

/// The host memory this process can still take, in bytes: the smallest of the kernel's
/// `MemAvailable`, the cgroup's `memory.max` less `memory.current`, and the address-space limit
/// (`RLIMIT_AS`, `ulimit -v`) less this process's mapped size. Unknown figures are skipped.
pub fn host_available_bytes() -> u64 {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let mem_available = meminfo.as_deref().and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
        line.split_whitespace().nth(1)?.parse::<u64>().ok()?.checked_mul(1024)
    });
    let read_u64 = |path: &str| std::fs::read_to_string(path).ok()?.trim().parse::<u64>().ok();
    let cgroup = read_u64("/sys/fs/cgroup/memory.max")
        .zip(read_u64("/sys/fs/cgroup/memory.current"))
        .map(|(max, current)| max.saturating_sub(current));
    [mem_available, cgroup, address_space_left()]
        .into_iter()
        .flatten()
        .min()
        .unwrap_or(u64::MAX)
}

/// `RLIMIT_AS` less this process's mapped size (`/proc/self/statm`), when a limit is set.
fn address_space_left() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid out-pointer for the call.
    if unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) } != 0 || limit.rlim_cur == libc::RLIM_INFINITY {
        return None;
    }
    // SAFETY: sysconf has no preconditions.
    let page_bytes = u64::try_from(unsafe { libc::sysconf(libc::_SC_PAGESIZE) }).ok()?;
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let mapped_pages: u64 = statm.split_whitespace().next()?.parse().ok()?;
    Some(limit.rlim_cur.saturating_sub(mapped_pages.saturating_mul(page_bytes)))
}

/// `len` copies of `value` in a new `Vec`, or [`Error::OutOfMemory`] when the host cannot give
/// the bytes (`Vec::try_reserve_exact`): never an allocation abort.
pub fn try_vec<T: Clone>(len: usize, value: T) -> Result<Vec<T>> {
    let mut v = try_with_capacity(len)?;
    v.resize(len, value);
    Ok(v)
}

/// `f(0), f(1), ..., f(len - 1)` in a new `Vec`, allocated fallibly as [`try_vec`].
pub fn try_from_fn<T>(len: usize, f: impl FnMut(usize) -> T) -> Result<Vec<T>> {
    let mut v = try_with_capacity(len)?;
    v.extend((0..len).map(f));
    Ok(v)
}

/// An empty `Vec` with room for `len` elements, or [`Error::OutOfMemory`].
pub fn try_with_capacity<T>(len: usize) -> Result<Vec<T>> {
    let mut v = Vec::new();
    v.try_reserve_exact(len).map_err(|_| {
        let bytes = len.saturating_mul(size_of::<T>()) as u64;
        Error::OutOfMemory(format!(
            "cannot allocate {} ({bytes} bytes) on the host; {} is available",
            Bytes(bytes),
            Bytes(host_available_bytes())
        ))
    })?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_read_as_people_write_them() {
        assert_eq!(Bytes(512).to_string(), "512 B");
        assert_eq!(Bytes(48 << 30).to_string(), "48.0 GiB");
        assert_eq!(Bytes(1536).to_string(), "1.5 KiB");
    }

    #[test]
    fn an_impossible_host_allocation_is_an_error() {
        assert!(matches!(try_vec(usize::MAX / 2, 0u8), Err(Error::OutOfMemory(_))));
        assert_eq!(try_from_fn(4, |i| i * 2).unwrap(), [0, 2, 4, 6]);
    }
}
