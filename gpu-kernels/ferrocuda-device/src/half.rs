//! The 16-bit floating-point formats the tensor cores take, as element types of buffers and
//! views: [`Bf16`] (bfloat16: f32's exponent, 8 significand bits) and [`F16`] (IEEE binary16).
//! Each is its 16 bits; the conversions round to nearest, ties to even, as `cvt.rn` does.
use crate::global::Element;
use crate::launch::DeviceCopy;

/// A bfloat16 number, as its bits.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Bf16(pub u16);

/// An IEEE binary16 number, as its bits.
#[repr(transparent)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct F16(pub u16);

impl Bf16 {
    /// `x` rounded to BF16 (to nearest, ties to even; a NaN stays a NaN).
    #[inline(always)]
    pub fn from_f32(x: f32) -> Self {
        Self(crate::mma::to_bf16(x))
    }
    /// The value as f32 (exact).
    #[inline(always)]
    pub fn to_f32(self) -> f32 {
        crate::mma::from_bf16(self.0)
    }
}

impl F16 {
    /// `x` rounded to FP16 (to nearest, ties to even; beyond 65520 in magnitude an infinity, a
    /// NaN stays a NaN).
    pub fn from_f32(x: f32) -> Self {
        let bits = x.to_bits();
        let sign = (bits >> 16 & 0x8000) as u16;
        let magnitude = bits & 0x7fff_ffff;
        if magnitude > 0x7f80_0000 {
            return Self(sign | 0x7e00);
        }
        let exponent = (magnitude >> 23) as i32 - 127;
        if exponent > 15 {
            return Self(sign | 0x7c00);
        }
        // The significand with its leading one, and the right shift to a half's ulp there.
        let (significand, shift) = if exponent >= -14 {
            (magnitude & 0x7f_ffff | 0x80_0000, 13)
        } else if exponent >= -25 {
            (magnitude & 0x7f_ffff | 0x80_0000, (13 - 14 - exponent) as u32)
        } else {
            return Self(sign);
        };
        let halfway = 1u32 << (shift - 1);
        let rest = significand & ((1 << shift) - 1);
        let mut rounded = significand >> shift;
        if rest > halfway || (rest == halfway && rounded & 1 == 1) {
            rounded += 1;
        }
        // Normal: the exponent field plus the significand (a carry out of it moves the exponent
        // up, as it should); subnormal: the significand alone.
        let body = if exponent >= -14 {
            (((exponent + 15) as u32) << 10) + (rounded - 0x400)
        } else {
            rounded
        };
        Self(sign | body.min(0x7c00) as u16)
    }
    /// The value as f32 (exact).
    pub fn to_f32(self) -> f32 {
        let sign = if self.0 >> 15 != 0 { -1.0 } else { 1.0 };
        let (exponent, fraction) = ((self.0 >> 10 & 0x1f) as i32, (self.0 & 0x3ff) as f32);
        let power = |e: i32| f32::from_bits(((127 + e) as u32) << 23);
        sign * match exponent {
            0 => fraction * power(-24),
            31 if fraction == 0.0 => f32::INFINITY,
            31 => f32::NAN,
            e => (1.0 + fraction / 1024.0) * power(e - 15),
        }
    }
}

macro_rules! element16 {
    ($($t:ident),*) => {$(
        // SAFETY: 16 bits, no padding or pointers; every bit pattern is a value.
        unsafe impl DeviceCopy for $t {}
        // SAFETY: as above; the accesses move the 16 bits.
        unsafe impl Element for $t {
            #[inline(always)]
            unsafe fn load(address: *const Self) -> Self {
                // SAFETY: forwarded to the caller; `Self` is its `u16`.
                Self(unsafe { u16::load(address.cast()) })
            }
            #[inline(always)]
            unsafe fn store(address: *mut Self, value: Self) {
                // SAFETY: as in `load`.
                unsafe { u16::store(address.cast(), value.0) }
            }
        }
    )*};
}
element16!(Bf16, F16);
