//! The link between a kernel and its arguments, seen by both the device and the host.

/// A kernel whose PTX entry point takes `A` by value.
///
/// Implemented by the `#[kernel]` attribute on the kernel's launch handle (a unit struct named
/// after the kernel in CamelCase), once per instantiation. The host launcher takes `K: Kernel<A>`
/// and an `A`, so a launch with the wrong arguments fails to compile.
pub trait Kernel<A: Copy> {
    /// The PTX symbol of the entry point.
    const NAME: &'static str;
    /// The kernel body for one thread, which the CPU simulator runs for every thread of a launch.
    #[cfg(not(target_arch = "nvptx64"))]
    const RUN: fn(A);
}
