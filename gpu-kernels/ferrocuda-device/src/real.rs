//! One kernel source for single and double precision (the book's `precision_m` module, §1.4.1.1).

use crate::global::{Element4, ReadOnlyElement};
use crate::math::Rounded;
use core::ops::{Add, Div, Mul, Sub};

/// `f32` or `f64`: the arithmetic the generic kernels need.
pub trait Real:
    Element4
    + ReadOnlyElement
    + Rounded
    + PartialOrd
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Default
    + 'static
{
    /// `"f32"` or `"f64"`, as in the PTX symbol of the kernel instantiated with it.
    const NAME: &'static str;
    /// The value nearest `value`.
    fn from_f64(value: f64) -> Self;
    /// The value widened to `f64`.
    fn to_f64(self) -> f64;
    /// Sine, correctly rounded to within 1 ulp (the `libm` routine, identical on CPU and GPU).
    fn sin(self) -> Self;
}

impl Real for f32 {
    const NAME: &'static str = "f32";
    fn from_f64(value: f64) -> Self {
        value as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
    fn sin(self) -> Self {
        libm::sinf(self)
    }
}

impl Real for f64 {
    const NAME: &'static str = "f64";
    fn from_f64(value: f64) -> Self {
        value
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn sin(self) -> Self {
        libm::sin(self)
    }
}
