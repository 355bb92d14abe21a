//! Complex numbers laid out as cuFFT's `cufftComplex` and `cufftDoubleComplex` (CUDA's `float2`
//! and `double2`): the real part, then the imaginary part, aligned to their pair, so one element
//! moves in one 8-byte (`f32`) or 16-byte (`f64`) access.
//!
//! The layout is also `num_complex::Complex<T>`'s (what `rustfft` takes) apart from the stricter
//! alignment, so a host slice of these can be read as a slice of those in place.
use crate::global::{Element, ReadOnlyElement};
use crate::real::Real;
use core::ops::{Add, Mul, Neg, Sub};

/// Aligns a pair of `f32` to 8 bytes (a zero-sized marker: it adds no bytes).
#[repr(C, align(8))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Align8;

/// Aligns a pair of `f64` to 16 bytes (a zero-sized marker: it adds no bytes).
#[repr(C, align(16))]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Align16;

/// `f32` or `f64` as the part of a [`Complex`]: the alignment of the pair, and how the pair
/// moves to and from global memory in one access.
pub trait ComplexScalar: Real + Neg<Output = Self> {
    /// A zero-sized type aligned as two `Self` together.
    type PairAlign: Copy + Default + PartialEq + core::fmt::Debug + Send + Sync + 'static;
    /// Reads `*address` in one access.
    ///
    /// # Safety
    /// As [`Element::load`].
    unsafe fn load_pair(address: *const Complex<Self>) -> Complex<Self>;
    /// Writes `*address` in one access.
    ///
    /// # Safety
    /// As [`Element::store`].
    unsafe fn store_pair(address: *mut Complex<Self>, value: Complex<Self>);
    /// Reads `*address` through the read-only data path.
    ///
    /// # Safety
    /// As [`ReadOnlyElement::load_nc`].
    unsafe fn load_pair_nc(address: *const Complex<Self>) -> Complex<Self>;
}

impl ComplexScalar for f32 {
    type PairAlign = Align8;
    /// One `ld.global.b64`: the pair is 8-byte aligned.
    #[inline(always)]
    unsafe fn load_pair(address: *const Complex<Self>) -> Complex<Self> {
        // SAFETY: forwarded to the caller; the pair is 8 bytes, 8-byte aligned.
        split_f32(unsafe { crate::arch::ld_global_b64(address.cast()) })
    }
    /// One `st.global.b64`.
    #[inline(always)]
    unsafe fn store_pair(address: *mut Complex<Self>, value: Complex<Self>) {
        let bits = u64::from(value.re.to_bits()) | (u64::from(value.im.to_bits()) << 32);
        // SAFETY: forwarded to the caller; the pair is 8 bytes, 8-byte aligned.
        unsafe { crate::arch::st_global_b64(address.cast(), bits) }
    }
    /// One `ld.global.nc.b64`.
    #[inline(always)]
    unsafe fn load_pair_nc(address: *const Complex<Self>) -> Complex<Self> {
        // SAFETY: forwarded to the caller; the pair is 8 bytes, 8-byte aligned.
        split_f32(unsafe { crate::arch::ld_global_nc_b64(address.cast()) })
    }
}

/// The pair of `f32` in the 8 bytes `bits` (little-endian: the real part first).
#[inline(always)]
fn split_f32(bits: u64) -> Complex<f32> {
    Complex::new(f32::from_bits(bits as u32), f32::from_bits((bits >> 32) as u32))
}

impl ComplexScalar for f64 {
    type PairAlign = Align16;
    /// One `ld.global.v2.b64`: the pair is 16-byte aligned.
    #[inline(always)]
    unsafe fn load_pair(address: *const Complex<Self>) -> Complex<Self> {
        // SAFETY: forwarded to the caller; the pair is 16 bytes, 16-byte aligned.
        let [re, im] = unsafe { crate::arch::ld_global_v2_b64(address.cast()) };
        Complex::new(f64::from_bits(re), f64::from_bits(im))
    }
    /// One `st.global.v2.b64`.
    #[inline(always)]
    unsafe fn store_pair(address: *mut Complex<Self>, value: Complex<Self>) {
        // SAFETY: forwarded to the caller; the pair is 16 bytes, 16-byte aligned.
        unsafe { crate::arch::st_global_v2_b64(address.cast(), [value.re.to_bits(), value.im.to_bits()]) }
    }
    /// Two `ld.global.nc.b64` (the device library has no vector form of the non-coherent load).
    #[inline(always)]
    unsafe fn load_pair_nc(address: *const Complex<Self>) -> Complex<Self> {
        let words = address.cast::<u64>();
        // SAFETY: forwarded to the caller: both words are inside the 16-byte element.
        let (re, im) = unsafe {
            (
                crate::arch::ld_global_nc_b64(words),
                crate::arch::ld_global_nc_b64(words.add(1)),
            )
        };
        Complex::new(f64::from_bits(re), f64::from_bits(im))
    }
}

/// `re + i im`, 8 bytes (`f32`) or 16 bytes (`f64`), aligned to its size.
#[repr(C)]
#[derive(Clone, Copy, Default, PartialEq)]
pub struct Complex<T: ComplexScalar> {
    /// The real part.
    pub re: T,
    /// The imaginary part.
    pub im: T,
    _align: [T::PairAlign; 0],
}

// SAFETY: a `#[repr(C)]` pair of numbers: plain data.
unsafe impl<T: ComplexScalar + crate::launch::DeviceCopy> crate::launch::DeviceCopy for Complex<T> {}

impl<T: ComplexScalar + core::fmt::Debug> core::fmt::Debug for Complex<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "({:?}, {:?})", self.re, self.im)
    }
}

impl<T: ComplexScalar> Complex<T> {
    /// `re + i im`.
    #[inline(always)]
    pub const fn new(re: T, im: T) -> Self {
        Self { re, im, _align: [] }
    }

    /// Zero.
    #[inline(always)]
    pub fn zero() -> Self {
        Self::new(T::default(), T::default())
    }

    /// The complex conjugate `re - i im`.
    #[inline(always)]
    pub fn conj(self) -> Self {
        Self::new(self.re, -self.im)
    }

    /// `self * i`.
    #[inline(always)]
    pub fn mul_i(self) -> Self {
        Self::new(-self.im, self.re)
    }

    /// `self * (-i)`.
    #[inline(always)]
    pub fn mul_neg_i(self) -> Self {
        Self::new(self.im, -self.re)
    }

    /// Both parts times the real `factor`.
    #[inline(always)]
    pub fn scale(self, factor: T) -> Self {
        Self::new(self.re * factor, self.im * factor)
    }
}

impl<T: ComplexScalar> Add for Complex<T> {
    type Output = Self;
    #[inline(always)]
    fn add(self, rhs: Self) -> Self {
        Self::new(self.re + rhs.re, self.im + rhs.im)
    }
}

impl<T: ComplexScalar> Sub for Complex<T> {
    type Output = Self;
    #[inline(always)]
    fn sub(self, rhs: Self) -> Self {
        Self::new(self.re - rhs.re, self.im - rhs.im)
    }
}

impl<T: ComplexScalar> Mul for Complex<T> {
    type Output = Self;
    /// The product; on the GPU each part is one multiply and one `fma` (the backend contracts).
    #[inline(always)]
    fn mul(self, rhs: Self) -> Self {
        Self::new(self.re * rhs.re - self.im * rhs.im, self.re * rhs.im + self.im * rhs.re)
    }
}

// SAFETY: `#[repr(C)]` pair of `f32`/`f64` with no padding (the alignment marker is zero-sized),
// CUDA's `float2`/`double2`; all-zero bits are `0 + 0i`; the pair access moves both halves.
unsafe impl<T: ComplexScalar> Element for Complex<T> {
    #[inline(always)]
    unsafe fn load(address: *const Self) -> Self {
        // SAFETY: forwarded to the caller.
        unsafe { T::load_pair(address) }
    }
    #[inline(always)]
    unsafe fn store(address: *mut Self, value: Self) {
        // SAFETY: forwarded to the caller.
        unsafe { T::store_pair(address, value) }
    }
}

impl<T: ComplexScalar> ReadOnlyElement for Complex<T> {
    #[inline(always)]
    unsafe fn load_nc(address: *const Self) -> Self {
        // SAFETY: forwarded to the caller.
        unsafe { T::load_pair_nc(address) }
    }
}
