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
    /// The kernel body for one thread, which the CPU simulator runs for every thread of a launch,
    /// taking the arguments through a pointer to an `A`. It is compiled in the kernel crate, not
    /// in the launching one (whose debug build is at opt-level 0), because the simulator calls it
    /// once per thread.
    ///
    /// # Safety
    /// The pointer points to a live `A`.
    #[cfg(not(target_arch = "nvptx64"))]
    const RUN: unsafe fn(*const ());
    /// The kernel's launch bounds, from `#[kernel(max_threads = .., ..)]`; the host refuses a
    /// launch of more threads per block than they allow, on either backend.
    const LAUNCH_BOUNDS: LaunchBounds = LaunchBounds::NONE;
    /// The architecture whose own instructions the kernel uses (`#[kernel(requires =
    /// "sm_90a")]`: Hopper's `wgmma`), which a module built for another does not hold (they
    /// trap there): the host refuses to launch the kernel from such a module, in a sentence.
    const REQUIRES: Option<&'static str> = None;
}

/// A kernel's launch bounds (CUDA C's `__launch_bounds__`), declared on the kernel:
/// `#[kernel(max_threads = 128, min_blocks_per_sm = 10, max_registers = 48)]`. The PTX builder
/// writes them on the entry point as `.maxntid`, `.minnctapersm` and `.maxnreg` (PTX ISA
/// §11.4), so ptxas allocates registers for that many threads and blocks; 0 means not declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchBounds {
    /// The most threads a block of the kernel has (`.maxntid`).
    pub max_threads: u32,
    /// The blocks per SM ptxas keeps room for, registers allowing (`.minnctapersm`).
    pub min_blocks_per_sm: u32,
    /// The most registers a thread may use (`.maxnreg`).
    pub max_registers: u32,
}

impl LaunchBounds {
    /// No bound declared.
    pub const NONE: Self = Self {
        max_threads: 0,
        min_blocks_per_sm: 0,
        max_registers: 0,
    };

    /// True when a block of `threads` threads is within the bounds.
    pub const fn allows(&self, threads: u32) -> bool {
        self.max_threads == 0 || threads <= self.max_threads
    }
}

/// The prefix of the symbol of the PTX global that carries an entry point's launch bounds from
/// `#[kernel]` to the PTX builder, which turns it into directives and removes it.
pub const LAUNCH_BOUNDS_SYMBOL_PREFIX: &str = "__ferrocuda_launch_bounds_";

/// The one argument of a kernel: a `#[repr(C)]`, `Copy` struct of views and plain values, which
/// the host passes as the entry point's one parameter block.
///
/// Derive it: `#[repr(C)] #[derive(Clone, Copy, KernelArgs)]`. A struct holding views takes
/// their lifetime (`struct SaxpyArgs<'a> { x: Slice<'a, f32>, y: SliceMut<'a, f32>, a: f32 }`),
/// so a launch cannot outlive the buffers it uses. The derive refuses a struct without
/// `#[repr(C)]` (its layout must be the one the PTX reads), and
/// `#[kernel_args(same_len(x, y))]` declares views of equal length, which the host checks before
/// every launch: a launch with views of different lengths is an error naming them. On the host
/// the derive also lists the struct's views ([`KernelArgs::views`]), so the launcher can refuse
/// two writable views of overlapping memory.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a kernel argument struct",
    note = "declare it `#[repr(C)] #[derive(Clone, Copy, KernelArgs)] pub struct ...` (ferrocuda_device::prelude has the derive)"
)]
pub trait KernelArgs: DeviceCopy {
    /// `Err` naming two views the struct declares equal in length whose lengths differ.
    fn check_lengths(&self) -> Result<(), LengthMismatch> {
        Ok(())
    }

    /// Calls `visit` with the memory of each view the struct holds (fields that are views,
    /// arrays of views, or argument structs of their own); fields of a generic type are not
    /// looked into.
    #[cfg(not(target_arch = "nvptx64"))]
    fn views(&self, visit: &mut dyn FnMut(ViewSpan)) {
        let _ = visit;
    }
}

/// The memory one view of a launch's arguments covers, for the host's overlap check.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ViewSpan {
    /// The argument struct's field that holds the view.
    pub field: &'static str,
    /// The address of its first byte.
    pub start: usize,
    /// Its size in bytes.
    pub bytes: usize,
    /// True for a writable view.
    pub writable: bool,
}

#[cfg(not(target_arch = "nvptx64"))]
impl ViewSpan {
    /// True when the two views share at least one byte.
    pub fn overlaps(&self, other: &Self) -> bool {
        self.bytes > 0
            && other.bytes > 0
            && self.start < other.start + other.bytes
            && other.start < self.start + self.bytes
    }

    /// The first two writable views of `spans` that overlap. A read-only view may overlap a
    /// writable one: an in-place kernel reads what it writes, in an order its threads keep.
    pub fn first_writable_overlap(spans: &[Self]) -> Option<(Self, Self)> {
        spans.iter().enumerate().find_map(|(k, a)| {
            spans[k + 1..]
                .iter()
                .find(|b| a.writable && b.writable && a.overlaps(b))
                .map(|b| (*a, *b))
        })
    }
}

/// A value that holds views of device memory, which it lists for [`KernelArgs::views`].
#[cfg(not(target_arch = "nvptx64"))]
pub trait HoldsViews {
    /// Calls `visit` with each view's memory, naming it `field`.
    fn visit_views(&self, field: &'static str, visit: &mut dyn FnMut(ViewSpan));
}

#[cfg(not(target_arch = "nvptx64"))]
impl<V: HoldsViews, const N: usize> HoldsViews for [V; N] {
    fn visit_views(&self, field: &'static str, visit: &mut dyn FnMut(ViewSpan)) {
        self.iter().for_each(|view| view.visit_views(field, visit))
    }
}

/// What `#[derive(KernelArgs)]` expands to, not an API: it lists a field's views when its type
/// holds views and nothing otherwise, chosen at compile time by method resolution (a field of
/// type `F` is wrapped as `&Field(&f)`; `Field<F>: ListViews` needs `F: HoldsViews`, and the
/// by-reference `NoViews` impl is tried only when that fails).
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
pub mod __private {
    use super::{HoldsViews, ViewSpan};

    pub struct Field<'r, F>(pub &'r F);

    pub trait ListViews {
        fn list_views(&self, field: &'static str, visit: &mut dyn FnMut(ViewSpan));
    }
    impl<F: HoldsViews> ListViews for Field<'_, F> {
        fn list_views(&self, field: &'static str, visit: &mut dyn FnMut(ViewSpan)) {
            self.0.visit_views(field, visit)
        }
    }

    pub trait NoViews {
        fn list_views(&self, field: &'static str, visit: &mut dyn FnMut(ViewSpan));
    }
    impl<F> NoViews for &Field<'_, F> {
        fn list_views(&self, _: &'static str, _: &mut dyn FnMut(ViewSpan)) {}
    }
}

/// A type a kernel may take in its arguments: plain data, which the host copies bit for bit into
/// the launch's parameter block and every thread reads, and which reaches memory only through
/// views of device memory.
///
/// Implemented for the numbers, `bool`, `char`, arrays and `PhantomData`, the views of global
/// memory (`Slice`, `SliceMut`), `Complex`, and, by `#[derive(KernelArgs)]`, argument structs
/// whose fields all are `DeviceCopy`. Not for references, raw pointers or cells: a kernel runs on a
/// device, or on the simulator's host threads all at once, and must not reach host memory.
///
/// # Safety
/// The type is plain data: its bytes mean the same on the device as on the host, it holds no
/// reference, raw pointer or interior mutability (views of device memory aside), and copies of
/// one value may be used from many threads at once.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be passed to a kernel",
    label = "not plain data a kernel may take",
    note = "a kernel's arguments hold numbers, arrays of them, views of device memory (`Slice`, `SliceMut`) and argument structs; for a plain-data type of your own: `unsafe impl ferrocuda_device::launch::DeviceCopy for ...`"
)]
pub unsafe trait DeviceCopy: Copy {}

macro_rules! device_copy {
    ($($t:ty),*) => {$(
        // SAFETY: a number (or `bool`, `char`): plain data with no address in it.
        unsafe impl DeviceCopy for $t {}
    )*};
}
device_copy!(
    u8,
    u16,
    u32,
    u64,
    u128,
    usize,
    i8,
    i16,
    i32,
    i64,
    i128,
    isize,
    f32,
    f64,
    bool,
    char,
    ()
);

// SAFETY: an array of plain data is plain data.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {}
// SAFETY: zero-sized, no data.
unsafe impl<T: ?Sized> DeviceCopy for core::marker::PhantomData<T> {}

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
