//! What can live in device memory: [`Element`], the device library's plain-data trait (one trait
//! for buffers on the host and views in kernels), and [`Repr`], the form in which cudarc's
//! buffers and copies hold an element.
//!
//! The device library, where `Element` and `Complex` live, depends on no std crate (so that a
//! kernel crate's float methods resolve as on the GPU), so it cannot implement cudarc's
//! `DeviceRepr`; cudarc sees an element as [`Repr<T>`].
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
pub use ferrocuda_device::global::Element;

/// An [`Element`] as cudarc's buffers and copies hold it (`CudaSlice<Repr<T>>`): the same
/// layout, with cudarc's traits, which only this crate can give `Complex`.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Repr<T>(pub T);
// SAFETY: `Repr<T>` has `T`'s layout, and `Element` promises plain data.
unsafe impl<T: Element> DeviceRepr for Repr<T> {}
// SAFETY: as above; `Element` promises that all-zero bits are a valid `T`.
unsafe impl<T: Element> ValidAsZeroBits for Repr<T> {}

/// `values` as cudarc sees them.
pub(super) fn reprs<T>(values: &[T]) -> &[Repr<T>] {
    // SAFETY: `Repr<T>` is `#[repr(transparent)]` over `T`: same size, alignment and validity.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), values.len()) }
}

/// `values` as cudarc sees them, writable.
pub(super) fn reprs_mut<T>(values: &mut [T]) -> &mut [Repr<T>] {
    // SAFETY: as in `reprs`; the unique borrow moves into the result.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast(), values.len()) }
}

/// cudarc's values as the elements they hold.
pub(super) fn unreprs<T>(values: &[Repr<T>]) -> &[T] {
    // SAFETY: as in `reprs`, the other way.
    unsafe { std::slice::from_raw_parts(values.as_ptr().cast(), values.len()) }
}

/// cudarc's values as the elements they hold, writable.
pub(super) fn unreprs_mut<T>(values: &mut [Repr<T>]) -> &mut [T] {
    // SAFETY: as in `reprs`, the other way; the unique borrow moves into the result.
    unsafe { std::slice::from_raw_parts_mut(values.as_mut_ptr().cast(), values.len()) }
}
