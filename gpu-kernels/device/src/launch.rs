//! The link between a kernel and its arguments, seen by both the device and the host.
use core::fmt;

/// A kernel whose PTX entry point takes `A` by value.
///
/// Implemented by the `#[kernel]` attribute on the kernel's launch handle (a unit struct named
/// after the kernel in CamelCase), once per instantiation. The host launcher takes `K: Kernel<A>`
/// and an `A`, so a launch with the wrong arguments fails to compile.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the launch handle of a kernel taking `{A}`",
    label = "not a kernel for these arguments",
    note = "mark the kernel function with `#[kernel]` and pass its CamelCase handle (`saxpy` -> `Saxpy`) with the argument struct the function takes"
)]
pub trait Kernel<A: KernelArgs> {
    /// The PTX symbol of the entry point.
    const NAME: &'static str;
    /// The library name of the kernel crate that defines it, whose kernel set holds its PTX.
    const CRATE: &'static str;
    /// The kernel body for one thread, which the CPU simulator runs for every thread of a launch.
    #[cfg(not(target_arch = "nvptx64"))]
    const RUN: fn(A);
}

/// The one argument of a kernel: a `#[repr(C)]`, `Copy` struct of views and plain values, which
/// the host passes as the entry point's one parameter block.
///
/// Derive it: `#[repr(C)] #[derive(Clone, Copy, KernelArgs)]`. The derive refuses a struct
/// without `#[repr(C)]` (its layout must be the one the PTX reads), and
/// `#[kernel_args(same_len(x, y))]` declares views of equal length, which the host checks before
/// every launch: a launch with views of different lengths is an error naming them.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel argument struct",
    note = "declare it `#[repr(C)] #[derive(Clone, Copy, KernelArgs)] pub struct ...` (ferrocuda_device::prelude has the derive)"
)]
pub trait KernelArgs: Copy {
    /// `Err` naming two views the struct declares equal in length whose lengths differ.
    fn check_lengths(&self) -> Result<(), LengthMismatch> {
        Ok(())
    }
}

/// Two views an argument struct declares equal in length, and their lengths.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LengthMismatch {
    /// The first view of the group: its field name and length.
    pub first: (&'static str, usize),
    /// A view of the same group whose length differs.
    pub other: (&'static str, usize),
}

impl LengthMismatch {
    /// `Err` for the first view of `group` whose length differs from the group's first.
    pub fn check(group: &[(&'static str, usize)]) -> Result<(), Self> {
        let Some(&first) = group.first() else {
            return Ok(());
        };
        match group.iter().find(|(_, len)| *len != first.1) {
            Some(&other) => Err(Self { first, other }),
            None => Ok(()),
        }
    }
}

impl fmt::Display for LengthMismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "its arguments declare `{}` and `{}` of equal length, but they hold {} and {} elements",
            self.first.0, self.other.0, self.first.1, self.other.1
        )
    }
}
