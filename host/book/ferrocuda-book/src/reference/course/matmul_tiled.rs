//! SGEMM on the CPU with rayon, `C = A B` for row-major `A` (`m x k`) and `B` (`k x n`), and the
//! check of a GPU product against it.
//!
//! Different summation orders give different f32 results. Whatever the order, and with or
//! without fused multiply-adds, a computed dot product of length `k` differs from the exact one
//! by at most `gamma_k * sum |a_ip| |b_pj|`, `gamma_k = k u / (1 - k u)`, `u = 2^-24` (Higham,
//! *Accuracy and Stability of Numerical Algorithms*, §3.1). Two computed products, the GPU's and
//! this one, therefore differ by at most `2 gamma_k (|A| |B|)_ij`: the per-element tolerance.
//!
//! A large product (past [`FULL_PRODUCT_MAX_MACS`] multiply-adds) is not recomputed: it is checked
//! by Freivalds' algorithm ([`Freivalds`]), `O(mk + kn + mn)` per trial instead of `O(mnk)`.
use ferrocuda::footprint::{try_vec, try_with_capacity};
use ferrocuda::gpu::{Error, Result};
use ferrocuda::verify::Check;
use rayon::prelude::*;

/// Refuses an `A` of other than `m * k` elements, a `B` of other than `k * n`, or an `m * n`
/// that overflows.
fn check_dims(a: &[f32], b: &[f32], (m, n, k): (usize, usize, usize)) -> Result<()> {
    if m.checked_mul(k) != Some(a.len()) || k.checked_mul(n) != Some(b.len()) || m.checked_mul(n).is_none() {
        return Err(Error::InvalidArgument(format!(
            "an {m} x {k} by {k} x {n} product needs A of m * k and B of k * n elements, not {} and {}",
            a.len(),
            b.len()
        )));
    }
    Ok(())
}

/// `C = A B` in f32, rows in parallel, each row accumulated in `p` order (i-p-j, vectorisable),
/// and `|A| |B|`, the scale of each element's rounding error. Refuses an `A` of other than
/// `m * k` elements or a `B` of other than `k * n`.
pub fn sgemm(a: &[f32], b: &[f32], (m, n, k): (usize, usize, usize)) -> Result<(Vec<f32>, Vec<f32>)> {
    check_dims(a, b, (m, n, k))?;
    let mut c = try_vec(m * n, 0.0f32)?;
    let mut scale = try_vec(m * n, 0.0f32)?;
    let bar = crate::progress::bar("CPU reference SGEMM, rows", m as u64);
    c.par_chunks_mut(n.max(1))
        .zip(scale.par_chunks_mut(n.max(1)))
        .enumerate()
        .for_each(|(i, (c_row, scale_row))| {
            for p in 0..k {
                let a_ip = a[i * k + p];
                let b_row = &b[p * n..(p + 1) * n];
                for ((c, s), &b_pj) in c_row.iter_mut().zip(scale_row.iter_mut()).zip(b_row) {
                    *c += a_ip * b_pj;
                    *s += (a_ip * b_pj).abs();
                }
            }
            bar.inc(1);
        });
    bar.finish_and_clear();
    Ok((c, scale))
}

/// `2 gamma_k` (see the module header), with `gamma_k` of the reference's f32 `|A||B|` padded by
/// its own rounding (a factor `1 + gamma_k`, absorbed by using `2.01`).
pub fn tolerance_factor(k: usize) -> f64 {
    let ku = k as f64 * f64::powi(2.0, -24);
    2.01 * ku / (1.0 - ku)
}

/// Compares a GPU product with the reference: element `ij` passes when
/// `|gpu - cpu| <= tolerance_factor(k) * scale_ij` (zero for `k = 0`: both must be exactly 0).
/// `max_rel_err` reports the largest error relative to that bound's scale, `|A||B|`. Lengths
/// come from `gpu`: an element missing from `cpu` or `scale` counts as a mismatch.
pub fn check(what: &str, gpu: &[f32], cpu: &[f32], scale: &[f32], k: usize) -> Check {
    let factor = tolerance_factor(k);
    let missing = gpu.len().saturating_sub(cpu.len().min(scale.len())) + cpu.len().saturating_sub(gpu.len());
    let mut check = Check {
        len: gpu.len(),
        mismatches: missing,
        ..Check::condition(what, true)
    };
    for (i, ((&g, &c), &s)) in gpu.iter().zip(cpu).zip(scale).enumerate() {
        tally(&mut check, i, (g.into(), c.into()), s.into(), factor * f64::from(s));
    }
    check
}

/// Counts element `i`, `got` against `want`, in `check`: a mismatch past `bound` (or NaN), its
/// error relative to `scale` (when positive) in `max_rel_err`.
fn tally(check: &mut Check, i: usize, (got, want): (f64, f64), scale: f64, bound: f64) {
    let err = (got - want).abs();
    check.max_abs_err = check.max_abs_err.max(err);
    if scale > 0.0 {
        check.max_rel_err = check.max_rel_err.max(err / scale);
    }
    if err.is_nan() || err > bound {
        check.mismatches += 1;
        check.first_mismatch.get_or_insert((i, got, want));
    }
}

/// Products of more multiply-adds than this (2048^3, about a second of the CPU reference on a
/// GPU host's cores) are checked by Freivalds' algorithm instead of the full CPU product.
pub const FULL_PRODUCT_MAX_MACS: usize = 1 << 33;

/// Trials of Freivalds' check: a product with an element off by more than twice its tolerance
/// passes all of them with probability at most `2^-FREIVALDS_TRIALS`.
pub const FREIVALDS_TRIALS: usize = 16;

/// Safety factor of Freivalds' statistical tolerance (see [`Freivalds`]): the rule of thumb
/// `u sqrt(k) |A||B|` already exceeds a dot product's typical rounding error, whose partial sums
/// are far smaller than `|A||B|`.
pub const FREIVALDS_SIGMAS: f64 = 16.0;

/// Seed of Freivalds' random 0/1 vectors.
pub const FREIVALDS_SEED: u64 = 0x5eed_f00d;

/// Freivalds' check of `C = A B`: for [`FREIVALDS_TRIALS`] random 0/1 vectors `x` (seeded),
/// `C x` against `A (B x)`, both in f64, row by row.
///
/// The tolerance of row `i`: summing the full check's worst case over the row (`C_ij` may differ
/// from the exact `(AB)_ij` by `gamma_k (|A||B|)_ij`, so `(Cx)_i` from `(A(Bx))_i` by
/// `gamma_k (|A|(|B|x))_i`) is rigorous but grows with the row's length, which would hide a
/// wrong element of a large product. Rounding errors of different elements are independent and
/// each far below its worst case, so the tolerance is the smaller of that worst case and
/// [`FREIVALDS_SIGMAS`] times the rule-of-thumb `u sqrt(k) (|A||B|)_ij` added in quadrature over
/// the row's `n1` selected elements, `u sqrt(k) (|A|(|B|x))_i / sqrt(n1)` (exact for equal
/// scales), plus the f64 sums' own rounding. If an element `C_ij` is off by more than twice its
/// row's tolerance, flipping `x_j` moves `(Cx)_i` by more than the whole tolerance band, so at
/// most one of `x` and `x` with `x_j` flipped passes: a trial misses it with probability at most
/// 1/2, and all trials with probability at most `2^-trials`.
pub struct Freivalds {
    dims: (usize, usize, usize),
    /// `x_t[j]` for trial `t`, row-major `n x TRIALS`.
    x: Vec<f64>,
    /// `(A (B x_t))_i`, row-major `m x TRIALS`.
    abx: Vec<f64>,
    /// `(|A| (|B| x_t))_i`, row-major `m x TRIALS`.
    scale: Vec<f64>,
}

const T: usize = FREIVALDS_TRIALS;

/// `out[r][t] = sum_c f(mat[r][c]) x[c][t]` for a row-major `rows x cols` `mat` (f32 or f64
/// entries through `f`) and an `x` of `cols x T`, rows in parallel.
fn times_trials<V: Copy + Sync>(mat: &[V], cols: usize, x: &[f64], f: impl Fn(V) -> f64 + Sync) -> Result<Vec<f64>> {
    let rows = mat.len() / cols.max(1);
    let mut out = try_vec(rows * T, 0.0f64)?;
    out.par_chunks_mut(T)
        .zip(mat.par_chunks(cols.max(1)))
        .for_each(|(acc, row)| {
            let mut sums = [0.0f64; T];
            for (&v, x_c) in row.iter().zip(x.chunks_exact(T)) {
                let v = f(v);
                for (s, &x) in sums.iter_mut().zip(x_c) {
                    *s += v * x;
                }
            }
            acc.copy_from_slice(&sums);
        });
    Ok(out)
}

impl Freivalds {
    /// Draws the vectors and computes `A (B x)` and `|A| (|B| x)` for `A` (`m x k`) and `B`
    /// (`k x n`), row-major: `O(mk + kn)` per trial.
    pub fn new(a: &[f32], b: &[f32], dims: (usize, usize, usize)) -> Result<Self> {
        check_dims(a, b, dims)?;
        let (m, n, k) = dims;
        let mut state = FREIVALDS_SEED;
        let mut x = try_with_capacity(n * T)?;
        for _ in 0..n {
            // SplitMix64: one draw gives the 16 trials' bits of this column.
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = state;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^= z >> 31;
            x.extend((0..T).map(|t| ((z >> t) & 1) as f64));
        }
        let bar = crate::progress::spinner("Freivalds' check: A (B x)");
        let (bx, b_abs_x) = (
            times_trials(b, n, &x, f64::from)?,
            times_trials(b, n, &x, |v: f32| f64::from(v.abs()))?,
        );
        let (mut abx, mut scale) = (try_vec(m * T, 0.0f64)?, try_vec(m * T, 0.0f64)?);
        abx.par_chunks_mut(T)
            .zip(scale.par_chunks_mut(T))
            .zip(a.par_chunks(k))
            .for_each(|((abx, scale), a_row)| {
                let (mut sums, mut abs_sums) = ([0.0f64; T], [0.0f64; T]);
                for ((&a_ip, bx), b_abs_x) in a_row.iter().zip(bx.chunks_exact(T)).zip(b_abs_x.chunks_exact(T)) {
                    let a_ip = f64::from(a_ip);
                    for t in 0..T {
                        sums[t] += a_ip * bx[t];
                        abs_sums[t] += a_ip.abs() * b_abs_x[t];
                    }
                }
                abx.copy_from_slice(&sums);
                scale.copy_from_slice(&abs_sums);
            });
        drop(bar);
        Ok(Self { dims, x, abx, scale })
    }

    /// Host bytes of the check's vectors for `(m, n, k)` (beyond A, B and the product);
    /// `None` on overflow.
    pub fn bytes((m, n, k): (usize, usize, usize)) -> Option<usize> {
        // x; A(Bx) and |A|(|B|x); Bx and |B|x; Cx and |C|x of one product.
        let vectors = n.checked_add(m.checked_mul(4)?)?.checked_add(k.checked_mul(2)?)?;
        vectors.checked_mul(T * size_of::<f64>())
    }

    /// How the output names it: `Freivalds' check, 16 trials of 0/1 vectors, false pass <= 2^-16`.
    pub fn describe() -> String {
        format!(
            "Freivalds' check, {T} trials of seeded random 0/1 vectors, false pass <= 2^-{T} for an element off by more than twice its tolerance"
        )
    }

    /// Checks a GPU product `c` (`m x n`): one comparison per row and trial, `|(Cx)_i -
    /// (A(Bx))_i| <= tolerance_factor(k) (|A|(|B|x))_i` plus the f64 sums' rounding.
    /// `max_rel_err` is the largest difference relative to `(|A|(|B|x))_i`.
    pub fn check(&self, what: &str, c: &[f32]) -> Result<Check> {
        let (m, n, k) = self.dims;
        let mut check = Check {
            len: m * T,
            ..Check::condition(what, true)
        };
        if c.len() != m * n {
            check.mismatches = check.len;
            return Ok(check);
        }
        let cx = times_trials(c, n, &self.x, f64::from)?;
        let ones: Vec<f64> = (0..T)
            .map(|t| self.x.chunks_exact(T).map(|x| x[t]).sum::<f64>().max(1.0))
            .collect();
        let statistical = FREIVALDS_SIGMAS * (k as f64).sqrt() * f64::powi(2.0, -24);
        let c_abs_x = times_trials(c, n, &self.x, |v: f32| f64::from(v.abs()))?;
        let factor = tolerance_factor(k);
        // The f64 sums of k and n terms each round by at most (k + n) eps of their magnitudes.
        let f64_rounding = 2.0 * (k + n) as f64 * f64::EPSILON;
        for (i, ((cx, c_abs_x), (abx, scale))) in cx
            .chunks_exact(T)
            .zip(c_abs_x.chunks_exact(T))
            .zip(self.abx.chunks_exact(T).zip(self.scale.chunks_exact(T)))
            .enumerate()
        {
            for t in 0..T {
                let rounding = (factor * scale[t]).min(statistical * scale[t] / ones[t].sqrt());
                let bound = rounding + f64_rounding * (scale[t] + c_abs_x[t]);
                tally(&mut check, i * T + t, (cx[t], abx[t]), scale[t], bound);
            }
        }
        Ok(check)
    }
}

/// What a GPU product is checked against: the full CPU product, or Freivalds' check.
pub enum Expected {
    /// The CPU's `C` and `|A||B|` (see [`sgemm`]).
    Full { c: Vec<f32>, scale: Vec<f32> },
    /// Freivalds' vectors.
    Freivalds(Freivalds),
}

impl Expected {
    /// The full product when `m n k <= FULL_PRODUCT_MAX_MACS`, else Freivalds' check.
    pub fn of(a: &[f32], b: &[f32], dims: (usize, usize, usize)) -> Result<Self> {
        let (m, n, k) = dims;
        let macs = m.checked_mul(n).and_then(|mn| mn.checked_mul(k));
        match macs {
            Some(macs) if macs <= FULL_PRODUCT_MAX_MACS => {
                let (c, scale) = sgemm(a, b, dims)?;
                Ok(Expected::Full { c, scale })
            }
            _ => Ok(Expected::Freivalds(Freivalds::new(a, b, dims)?)),
        }
    }

    /// Checks the GPU's product `got` of inner dimension `k`.
    pub fn check(&self, what: &str, got: &[f32], k: usize) -> Result<Check> {
        match self {
            Expected::Full { c, scale } => Ok(check(what, got, c, scale, k)),
            Expected::Freivalds(f) => {
                crate::progress::spinner(&format!("Freivalds' check: {what}")).in_scope(|| f.check(what, got))
            }
        }
    }
}
