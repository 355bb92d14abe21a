//! Collectives built on the device library, layered like CUB: [`thread`] (one thread,
//! sequential), [`warp`] (32 lanes, shuffles), [`block`] (shared memory plus warp), [`grid`]
//! (blocks of one launch through global memory). Each layer calls only the ones below it.
//!
//! They are safe functions: what they ask of their callers is that every thread or lane named
//! calls them together (convergence, as `sync_threads` asks), and a breach gives a wrong value, a
//! hang on the GPU or a fault in the simulator, never an access outside a view or tile.
pub mod block;
pub mod grid;
pub mod sgemm;
pub mod thread;
pub mod warp;

use crate::warp::Shuffle;

/// A value type the reductions handle: `i32`, `u32`, `u64`, `f32`, `f64`.
pub trait Reducible: Shuffle + PartialOrd + core::ops::Add<Output = Self> + crate::global::Element {
    /// The additive identity.
    const ZERO: Self;
    /// The identity of `max`: the type's least value (`-inf` for floats).
    const LEAST: Self;
    /// The identity of `min`: the type's greatest value (`+inf` for floats).
    const GREATEST: Self;
}

macro_rules! reducible {
    ($($t:ty: $zero:expr, $least:expr, $greatest:expr;)*) => {$(
        impl Reducible for $t {
            const ZERO: Self = $zero;
            const LEAST: Self = $least;
            const GREATEST: Self = $greatest;
        }
    )*};
}
reducible! {
    i32: 0, i32::MIN, i32::MAX;
    u32: 0, 0, u32::MAX;
    u64: 0, 0, u64::MAX;
    f32: 0.0, f32::NEG_INFINITY, f32::INFINITY;
    f64: 0.0, f64::NEG_INFINITY, f64::INFINITY;
}

/// An associative reduction operator with its identity (CUB's `ReductionOp`).
pub trait ReduceOp<T>: Copy {
    /// `identity ⊕ x == x`.
    fn identity() -> T;
    /// `a ⊕ b`.
    fn combine(a: T, b: T) -> T;
}

/// `+`.
#[derive(Clone, Copy, Debug)]
pub struct Sum;
/// The least value (NaN-free input; a NaN makes the result depend on the order).
#[derive(Clone, Copy, Debug)]
pub struct Min;
/// The greatest value (NaN-free input, as [`Min`]).
#[derive(Clone, Copy, Debug)]
pub struct Max;

impl<T: Reducible> ReduceOp<T> for Sum {
    #[inline(always)]
    fn identity() -> T {
        T::ZERO
    }
    #[inline(always)]
    fn combine(a: T, b: T) -> T {
        a + b
    }
}
impl<T: Reducible> ReduceOp<T> for Min {
    #[inline(always)]
    fn identity() -> T {
        T::GREATEST
    }
    #[inline(always)]
    fn combine(a: T, b: T) -> T {
        if b < a { b } else { a }
    }
}
impl<T: Reducible> ReduceOp<T> for Max {
    #[inline(always)]
    fn identity() -> T {
        T::LEAST
    }
    #[inline(always)]
    fn combine(a: T, b: T) -> T {
        if b > a { b } else { a }
    }
}
