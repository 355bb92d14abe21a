//! European options on the CPU (book §5.5): the Black-Scholes closed form of the book's module
//! `blackscholes_m` (Hastings' approximation of the normal CDF, and the exact CDF through `erfc`
//! to measure it), and the Monte Carlo estimate over given normal samples with rayon, in the
//! samples' precision.
//!
//! Written with the host's own arithmetic: Rust never contracts `a * b + c` on the host, and
//! `mul_add` is the correctly rounded fused multiply-add, which the kernel's exponent uses. The
//! exponential is the kernels' [`Exp`], which rounds identically on both (its accuracy is tested
//! against `std`'s), so the CPU's payoffs are the GPU's bit for bit.
use crate::reference::{HostFloat, try_collect};
use book_kernels::ch5::bs_european_mc::McModel;
use ferrocuda::device::elementary::Exp;
use ferrocuda::device::real::Real;
use ferrocuda::gpu::Result;
use rayon::prelude::*;

/// A European option on one asset: spot `s`, strike `e`, volatility `sigma`, risk-free rate `r`,
/// time to expiry `t` (years).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EuropeanOption {
    pub s: f64,
    pub e: f64,
    pub sigma: f64,
    pub r: f64,
    pub t: f64,
}

/// The book's option: `S = 5, E = 4, sigma = 0.3, R = 0.05, T = 1`.
pub const BOOK_OPTION: EuropeanOption = EuropeanOption {
    s: 5.0,
    e: 4.0,
    sigma: 0.3,
    r: 0.05,
    t: 1.0,
};

/// `f32` or `f64` for the Monte Carlo reference.
pub trait McFloat: Exp + HostFloat {}

impl<T: Exp + HostFloat> McFloat for T {}

/// `sqrt(x)` in `T`: the f64 square root rounded to `T` is the correctly rounded one (f64 carries
/// more than twice `f32`'s 24 bits, so the double rounding is innocuous).
fn sqrt<T: Real>(x: T) -> T {
    T::from_f64(x.to_f64().sqrt())
}

impl EuropeanOption {
    /// The kernel's constants in `T`, each operation rounded in `T` as the book's `fp_kind` code
    /// rounds it: `(R - 0.5 sigma^2) T`, `sigma sqrt(T)`, `exp(-R T)`.
    pub fn model<T: Exp>(&self) -> McModel<T> {
        let [s, e, sigma, r, t] = [self.s, self.e, self.sigma, self.r, self.t].map(T::from_f64);
        let half = T::from_f64(0.5);
        McModel {
            s,
            e,
            drift: (r - half * sigma * sigma) * t,
            vol: sigma * sqrt(t),
            discount: Exp::exp(T::default() - r * t),
        }
    }
}

/// Hastings' coefficients `A1..A5` (Abramowitz & Stegun 26.2.17), as the book's `CND` holds them.
const HASTINGS: [f64; 5] = [0.31938153, -0.356563782, 1.781477937, -1.821255978, 1.330274429];
/// `1/sqrt(2 pi)`, the book's `RSQRT2PI = 1/sqrt(8 atan(1))`.
const RSQRT2PI: f64 = 0.398_942_280_401_432_7;

/// The largest error of Hastings' formula against the normal CDF (Abramowitz & Stegun 26.2.17).
pub const HASTINGS_MAX_ERROR: f64 = 7.5e-8;

/// The book's `CND(d)`: the standard normal CDF by Hastings' formula, a 5th-order polynomial in
/// `K = 1/(1 + 0.2316419 |d|)` in Horner form, mirrored for `d > 0`.
pub fn cnd_hastings(d: f64) -> f64 {
    let k = 1.0 / (1.0 + 0.2316419 * d.abs());
    // `k (A1 + k (A2 + k (A3 + k (A4 + k A5))))`; the innermost `A5 + k 0` is `A5` exactly.
    let poly = HASTINGS.iter().rev().fold(0.0, |acc, &a| a + k * acc);
    let tail = RSQRT2PI * (-0.5 * d * d).exp() * (k * poly);
    if d > 0.0 { 1.0 - tail } else { tail }
}

/// The exact standard normal CDF, `erfc(-d / sqrt 2) / 2` (`libm`).
pub fn cnd_exact(d: f64) -> f64 {
    0.5 * libm::erfc(-d * std::f64::consts::FRAC_1_SQRT_2)
}

/// A put and a call price.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prices {
    pub put: f64,
    pub call: f64,
}

/// The book's `blackscholes` in f64 with the normal CDF `cnd`: `d1 = (ln(S/E) + (R + sigma^2/2)
/// T) / (sigma sqrt T)`, `d2 = d1 - sigma sqrt T`, `call = S CND(d1) - E e^(-RT) CND(d2)`, the
/// put by put-call parity, `put = call + E e^(-RT) - S`; for `T <= 0` the intrinsic values.
pub fn black_scholes(option: &EuropeanOption, cnd: fn(f64) -> f64) -> Prices {
    let EuropeanOption { s, e, sigma, r, t } = *option;
    if t <= 0.0 {
        return Prices {
            put: (e - s).max(0.0),
            call: (s - e).max(0.0),
        };
    }
    let vol = sigma * t.sqrt();
    let d1 = ((s / e).ln() + (r + 0.5 * sigma * sigma) * t) / vol;
    let d2 = d1 - vol;
    let strike_now = e * (-r * t).exp();
    let call = s * cnd(d1) - strike_now * cnd(d2);
    Prices {
        put: call + strike_now - s,
        call,
    }
}

/// The mean and the sample standard deviation (`N - 1`) of the put and call payoffs.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct McStats<T> {
    pub mean_put: T,
    pub mean_call: T,
    pub sd_put: T,
    pub sd_call: T,
}

/// The book's `mean = sum / N`, in `T`.
pub fn mean<T: Real>(sum: T, n: usize) -> T {
    sum / T::from_f64(n as f64)
}

/// The book's `sqrt(sum of squared deviations / (N - 1))`, in `T` (NaN for one sample, as 0/0).
pub fn std_dev<T: Real>(sum_squares: T, n: usize) -> T {
    sqrt(sum_squares / T::from_f64(n as f64 - 1.0))
}

/// The z value of a 95% confidence interval.
pub const Z_95: f64 = 1.96;

/// The book's 95% confidence interval `[mean - 1.96 sd / sqrt(N), mean + 1.96 sd / sqrt(N)]`,
/// in `T`.
pub fn confidence_interval<T: Real>(mean: T, sd: T, n: usize) -> [T; 2] {
    let half_width = T::from_f64(Z_95) * sd / sqrt(T::from_f64(n as f64));
    [mean - half_width, mean + half_width]
}

impl<T: Real> McStats<T> {
    /// The put's confidence interval over `n` samples.
    pub fn ci_put(&self, n: usize) -> [T; 2] {
        confidence_interval(self.mean_put, self.sd_put, n)
    }
    /// The call's confidence interval over `n` samples.
    pub fn ci_call(&self, n: usize) -> [T; 2] {
        confidence_interval(self.mean_call, self.sd_call, n)
    }
}

/// Terms a pairwise sum adds in a plain loop before it halves.
pub const PAIRWISE_BASE: usize = 32;
/// Terms above which the halves are summed on two rayon threads.
const PARALLEL_ABOVE: usize = 1 << 15;

/// `term(lo) + ... + term(hi - 1)` by pairwise summation: at most [`PAIRWISE_BASE`] terms in a
/// loop, then halves, so each term meets at most `PAIRWISE_BASE + ceil(log2(n))` additions.
fn pairwise_sum<T: McFloat>(lo: usize, hi: usize, term: &(impl Fn(usize) -> T + Sync)) -> T {
    if hi - lo <= PAIRWISE_BASE {
        return (lo..hi).fold(T::default(), |acc, i| acc + term(i));
    }
    let mid = lo + (hi - lo) / 2;
    let (left, right) = if hi - lo > PARALLEL_ABOVE {
        rayon::join(|| pairwise_sum(lo, mid, term), || pairwise_sum(mid, hi, term))
    } else {
        (pairwise_sum(lo, mid, term), pairwise_sum(mid, hi, term))
    };
    left + right
}

/// The additions a term of `pairwise_sum` of `n` terms meets, at most.
pub fn pairwise_depth(n: usize) -> usize {
    PAIRWISE_BASE + n.next_power_of_two().trailing_zeros() as usize
}

/// The Monte Carlo estimate over one set of normal samples.
#[derive(Clone, Debug)]
pub struct McReference<T> {
    pub stats: McStats<T>,
    /// The discounted put payoff of each sample.
    pub put: Vec<T>,
    /// The discounted call payoff of each sample.
    pub call: Vec<T>,
}

/// The book's Monte Carlo over `normals` in `T`: for each sample `S_T = S exp(drift + vol z)`
/// (the exponent fused, as the kernel computes it), the discounted payoffs, their means
/// (pairwise sums), then the sums of squared deviations from the means (a second pass), the
/// standard deviations.
pub fn monte_carlo<T: McFloat>(model: McModel<T>, normals: &[T]) -> Result<McReference<T>> {
    let zero = T::default();
    let n = normals.len();
    let s_t = try_collect(
        normals
            .par_iter()
            .map(|&z| model.s * Exp::exp(model.vol.mul_add(z, model.drift))),
    )?;
    let payoff = |x: T| if x > zero { model.discount * x } else { zero };
    let put = try_collect(s_t.par_iter().map(|&s_t| payoff(model.e - s_t)))?;
    let call = try_collect(s_t.par_iter().map(|&s_t| payoff(s_t - model.e)))?;
    drop(s_t);
    let mean_put = mean(pairwise_sum(0, n, &|i| put[i]), n);
    let mean_call = mean(pairwise_sum(0, n, &|i| call[i]), n);
    let squared = |x: T, m: T| (x - m) * (x - m);
    let sd_put = std_dev(pairwise_sum(0, n, &|i| squared(put[i], mean_put)), n);
    let sd_call = std_dev(pairwise_sum(0, n, &|i| squared(call[i], mean_call)), n);
    Ok(McReference {
        stats: McStats {
            mean_put,
            mean_call,
            sd_put,
            sd_call,
        },
        put,
        call,
    })
}
