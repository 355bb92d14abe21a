//! Real transforms of length `n` through complex ones of `h = n / 2` (Numerical Recipes §12.3;
//! cuFFT's R2C and C2R layouts: `h + 1` complex outputs per real row).
//!
//! R2C: the real row read as `h` complex numbers `z[m] = x[2m] + i x[2m+1]` is transformed, then
//! [`r2c_post`] separates the two interleaved spectra, in place:
//! `X[k] = (Z[k] + conj Z[h-k]) / 2 - i w^k (Z[k] - conj Z[h-k]) / 2` with `w = exp(-2 pi i / n)`
//! and `Z[h] = Z[0]`. C2R runs it backwards: [`c2r_pre`] builds
//! `Z[k] = (X[k] + conj X[h-k]) + i w^-k (X[k] - conj X[h-k])` (twice the spectrum of `z`, so
//! that the inverse complex transform of `h` gives `n x`, cuFFT's unnormalised result), then the
//! inverse complex transform runs in place on the real output read as complex.
use ferrocuda_device::prelude::*;

/// Arguments of [`r2c_post`] and [`c2r_pre`]: `rows` rows; row `g` of `input` starts at
/// `g * input_distance`, of `output` at `g * output_distance`.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct RealPassArgs<'a, T: ComplexScalar> {
    pub input: Slice<'a, Complex<T>>,
    pub output: SliceMut<'a, Complex<T>>,
    /// `exp(-2 pi i m / n)` for `m` in `0..h`.
    pub twiddles: Slice<'a, Complex<T>>,
    /// `h = n / 2`, the complex length.
    pub half_n: u32,
    pub rows: u32,
    pub input_distance: usize,
    pub output_distance: usize,
}

/// Pairs `(k, h - k)` of one row, `k` in `0..=h/2`: one thread each.
pub const fn pairs_per_row(half_n: u32) -> u32 {
    half_n / 2 + 1
}

/// `(row, k)` of this thread, or `None` past the last pair.
#[inline(always)]
fn pair<T: ComplexScalar>(args: &RealPassArgs<'_, T>) -> Option<(usize, usize)> {
    // At least 1, which the compiler sees: no division-by-zero panic path.
    let pairs = (pairs_per_row(args.half_n) as usize).max(1);
    let id = global_idx_x();
    (id < pairs * args.rows as usize).then(|| (id / pairs, id % pairs))
}

/// The R2C separation, one thread per pair `(k, h - k)`: `output` holds the `h` transformed
/// values of each row in its first `h` slots and receives the `h + 1` spectrum values (the
/// kernel reads both values of a pair before it writes them, so `input` may alias `output`).
#[kernel(f32, f64)]
pub fn r2c_post<T: ComplexScalar>(args: RealPassArgs<'_, T>) {
    let Some((row, k)) = pair(&args) else { return };
    let h = args.half_n as usize;
    let (inp, out) = (row * args.input_distance, row * args.output_distance);
    let half = T::from_f64(0.5);
    let w = args.twiddles.get_nc(k);
    let zk = args.input.get(inp + k);
    if k == 0 {
        // Z[h] = Z[0]: X[0] = re + im, X[h] = re - im, both real.
        args.output.set(out, Complex::new(zk.re + zk.im, T::default()));
        args.output.set(out + h, Complex::new(zk.re - zk.im, T::default()));
        return;
    }
    let zh = args.input.get(inp + h - k);
    let separate = |a: Complex<T>, b: Complex<T>, w: Complex<T>| {
        let even = (a + b.conj()).scale(half);
        let odd = (a - b.conj()).scale(half).mul_neg_i();
        even + w * odd
    };
    // w^(h - k) = -conj(w^k).
    let xk = separate(zk, zh, w);
    let xh = separate(zh, zk, Complex::new(-w.re, w.im));
    args.output.set(out + k, xk);
    if h - k != k {
        args.output.set(out + h - k, xh);
    }
}

/// The C2R combination, one thread per pair `(k, h - k)`: `input` holds `h + 1` spectrum values
/// per row, `output` receives the `h` values whose inverse complex transform is `n` times the
/// real row (read as complex).
#[kernel(f32, f64)]
pub fn c2r_pre<T: ComplexScalar>(args: RealPassArgs<'_, T>) {
    let Some((row, k)) = pair(&args) else { return };
    let h = args.half_n as usize;
    let (inp, out) = (row * args.input_distance, row * args.output_distance);
    let w = args.twiddles.get_nc(k);
    let xk = args.input.get(inp + k);
    let xh = args.input.get(inp + h - k);
    // w^-k = conj(w^k); w^-(h - k) = -w^k.
    let combine =
        |a: Complex<T>, b: Complex<T>, w_inverse: Complex<T>| (a + b.conj()) + (w_inverse * (a - b.conj())).mul_i();
    args.output.set(out + k, combine(xk, xh, w.conj()));
    if k != 0 && h - k != k {
        args.output
            .set(out + h - k, combine(xh, xk, Complex::new(-w.re, -w.im)));
    }
}
