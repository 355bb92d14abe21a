//! What can live in device memory: [`Element`], the library's own plain-data trait, and
//! [`Repr`], the form in which cudarc's buffers and copies hold an element.
use cudarc::driver::{DeviceRepr, ValidAsZeroBits};
use ferrocuda_device::complex::{Complex, ComplexScalar};

/// A value that can live in a device buffer: plain data the GPU and the host read alike.
///
/// Implemented for the primitive numbers, `bool`, [`Complex`] of `f32`/`f64` and arrays of them.
/// The library's own trait, not cudarc's `DeviceRepr`: the device library, where `Complex` lives,
/// depends on no std crate (so that a kernel crate's float methods resolve as on the GPU), so it
/// cannot implement cudarc's traits; cudarc sees an element as [`Repr<T>`].
///
/// # Safety
/// `Self` is plain data: no padding, no pointers, every bit pattern (all zeros included) a
/// valid value, and the same layout on the host and the device.
pub unsafe trait Element: Copy + Send + Sync + 'static {}

macro_rules! element {
    ($($t:ty),*) => {
        // SAFETY: primitive numbers (and `bool`, which cudarc's own buffers hold as plain data,
        // zero being `false`): no padding, zero bits valid, one layout on host and device.
        $(unsafe impl Element for $t {})*
    };
}
element!(
    bool, i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize, f32, f64
);
// SAFETY: `#[repr(C)]` pair of `f32`/`f64`, no padding (the alignment marker is zero-sized), the
// layout of CUDA's `float2`/`double2`; all-zero bits are `0 + 0i`.
unsafe impl<T: ComplexScalar + Element> Element for Complex<T> {}
// SAFETY: an array of plain data is plain data, without padding between elements.
unsafe impl<T: Element, const N: usize> Element for [T; N] {}

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
