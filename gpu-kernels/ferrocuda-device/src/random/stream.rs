//! The streams of uniform and normal numbers a `(seed, offset)` pair names, defined once here and
//! used by the GPU kernels (`kernels::random`) and the CPU reference alike.
//!
//! Layout: the key is [`Key::from_seed`]`(seed)`, and Philox block `b` is the four words of
//! counter [`counter`]`(0, b)` (stream 0). Element `i` of a buffer generated with `(seed,
//! offset)` comes from block `offset + i / P`, value `i % P` of that block, where `P` =
//! [`PhiloxReal::PER_BLOCK`]:
//!
//! | type | P | uniform value `j` of a block | normal values of a block |
//! | --- | --- | --- | --- |
//! | `f32` | 4 | `uniform_f32(w[j])` | Box-Muller on `(w0, w1)`, then on `(w2, w3)` |
//! | `f64` | 2 | `uniform_f64(w[2j], w[2j + 1])` | Box-Muller on `(w0 w1, w2 w3)` |
//!
//! Box-Muller turns the uniforms `(u, v)`, both in (0, 1], into the pair `(rho cos(2 pi v),
//! rho sin(2 pi v))` with `rho = sqrt(-2 ln u)`, through [`Elementary`], so the GPU and the CPU
//! agree bit for bit. A buffer of `n` elements uses blocks `offset .. offset + ceil(n / P)`:
//! [`blocks_for`] gives the offset of the next, non-overlapping buffer.
use super::philox::{Key, counter, philox4x32_10, uniform_f32, uniform_f64};
use crate::elementary::Elementary;
use crate::global::Element4;

/// The Philox block of stream 0 at `offset + block` under `key`.
#[inline(always)]
fn block_words(key: Key, offset: u64, block: u64) -> [u32; 4] {
    philox4x32_10(counter(0, offset.wrapping_add(block)), key)
}

macro_rules! box_muller {
    ($name:ident, $t:ty) => {
        #[doc = concat!("The Box-Muller pair of `(u, v)`, both in (0, 1], in `", stringify!($t), "`: `(rho cos(2 pi v), rho sin(2 pi v))`, `rho = sqrt(-2 ln u)`.")]
        #[inline(always)]
        pub fn $name(u: $t, v: $t) -> ($t, $t) {
            // -2 ln u and 2 v are exact scalings, and no product feeds a sum: nothing to contract.
            // Called through the trait: on the host, `u.ln()` would resolve to std's inherent
            // `f32::ln` (glibc), which rounds differently from the GPU's `Elementary::ln`.
            let rho = Elementary::sqrt(Elementary::ln(u) * -2.0);
            let (sin, cos) = Elementary::sincospi(v + v);
            (rho * cos, rho * sin)
        }
    };
}
box_muller!(box_muller_f32, f32);
box_muller!(box_muller_f64, f64);

/// A float type with Philox streams: `f32` or `f64`.
pub trait PhiloxReal: Element4 + Elementary {
    /// Values per Philox block (4 words of 32 bits: four `f32`, two `f64`).
    const PER_BLOCK: usize;
    /// Elements `4 chunk .. 4 chunk + 4` of the uniform stream `(key, offset)`, in (0, 1].
    fn uniform4(key: Key, offset: u64, chunk: u64) -> [Self; 4];
    /// Elements `4 chunk .. 4 chunk + 4` of the normal stream `(key, offset)`: mean 0, sd 1.
    fn normal4(key: Key, offset: u64, chunk: u64) -> [Self; 4];
}

impl PhiloxReal for f32 {
    const PER_BLOCK: usize = 4;
    #[inline(always)]
    fn uniform4(key: Key, offset: u64, chunk: u64) -> [Self; 4] {
        block_words(key, offset, chunk).map(uniform_f32)
    }
    #[inline(always)]
    fn normal4(key: Key, offset: u64, chunk: u64) -> [Self; 4] {
        let [a, b, c, d] = Self::uniform4(key, offset, chunk);
        let (z0, z1) = box_muller_f32(a, b);
        let (z2, z3) = box_muller_f32(c, d);
        [z0, z1, z2, z3]
    }
}

impl PhiloxReal for f64 {
    const PER_BLOCK: usize = 2;
    #[inline(always)]
    fn uniform4(key: Key, offset: u64, chunk: u64) -> [Self; 4] {
        let [a, b, c, d] = block_words(key, offset, 2 * chunk);
        let [e, f, g, h] = block_words(key, offset, 2 * chunk + 1);
        [
            uniform_f64(a, b),
            uniform_f64(c, d),
            uniform_f64(e, f),
            uniform_f64(g, h),
        ]
    }
    #[inline(always)]
    fn normal4(key: Key, offset: u64, chunk: u64) -> [Self; 4] {
        let [u0, v0, u1, v1] = Self::uniform4(key, offset, chunk);
        let (z0, z1) = box_muller_f64(u0, v0);
        let (z2, z3) = box_muller_f64(u1, v1);
        [z0, z1, z2, z3]
    }
}

/// The Philox blocks a buffer of `n` elements of `T` uses: the next buffer's `offset` is this
/// one's plus this, for streams that do not overlap.
pub const fn blocks_for<T: PhiloxReal>(n: u64) -> u64 {
    n.div_ceil(T::PER_BLOCK as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elements_follow_the_documented_layout() {
        let key = Key::from_seed(42);
        let (offset, chunk) = (1000, 7);
        let w = philox4x32_10(counter(0, offset + chunk), key);
        assert_eq!(f32::uniform4(key, offset, chunk), w.map(uniform_f32));
        let (z0, z1) = box_muller_f32(uniform_f32(w[0]), uniform_f32(w[1]));
        assert_eq!(f32::normal4(key, offset, chunk)[..2], [z0, z1]);
        let w1 = philox4x32_10(counter(0, offset + 2 * chunk + 1), key);
        assert_eq!(f64::uniform4(key, offset, chunk)[3], uniform_f64(w1[2], w1[3]));
        // Element i of a buffer at `offset` is element i - P of the buffer at `offset + 1`.
        assert_eq!(
            f64::uniform4(key, offset, 1)[..2],
            f64::uniform4(key, offset + 1, 0)[2..]
        );
        assert_eq!(f32::normal4(key, offset, 1), f32::normal4(key, offset + 1, 0));
        assert_eq!(blocks_for::<f32>(5), 2);
        assert_eq!(blocks_for::<f64>(5), 3);
    }

    #[test]
    fn box_muller_radius_and_angle() {
        // u = 1: rho = 0; v = 1/4: a quarter turn, all in sin.
        assert_eq!(box_muller_f64(1.0, 0.25).0, 0.0);
        let rho = (-2.0 * 0.5f64.ln()).sqrt();
        let (x, y) = box_muller_f64(0.5, 0.25);
        assert_eq!(x, rho * 0.0);
        assert!((y - rho).abs() <= 2.0 * f64::EPSILON * rho, "{y} vs {rho}");
        let (x, y) = box_muller_f32(0.5, 0.5);
        assert!(
            (x + (-2.0 * 0.5f32.ln()).sqrt()).abs() <= 2.0 * f32::EPSILON && y.abs() == 0.0,
            "{x} {y}"
        );
    }
}
