//! The y and z derivatives by "pencil marching" (not in the book; the fast y and z kernels of
//! the performance pass): no shared tile, each thread walks one line with the stencil's window
//! in registers.
use super::{Coefficients, DerivArgs, HALO, Uniform, Y, Z, extents, stencil, thread_2d};
use ferrocuda_device::constant::ConstantValue;
use ferrocuda_device::prelude::*;

/// Outputs per step of a marching thread: its loads of one step are independent, so each
/// thread has `MARCH_STEP` loads in flight (8 x 4 B x ~1500 resident threads: ~48 KB per SM,
/// what HBM needs), where a one-point step would have one.
pub const MARCH_STEP: usize = 8;
/// Threads along x in a marching block: a warp loads and stores 128 contiguous bytes.
pub const MARCH_WIDTH: usize = 32;
/// Lines across (rows of threads) in a marching block.
pub const MARCH_ROWS: usize = 8;

/// The y (`DIRECTION = Y`) or z derivative by "pencil marching", no shared memory: thread
/// (t.x, t.y) of block (b.x, b.y) walks the line at `i = b.x * TX + t.x` of plane (y) or row
/// (z) `p = b.y * TY + t.y` from point 0 to `m - 1`, holding the stencil's window of points
/// `n - 4 ..= n + 4 + MARCH_STEP - 1` in registers: each point is loaded once (plus the 8
/// periodic images that start the window and end the line), `MARCH_STEP` loads per step.
/// Grid `(ceil(mx / TX), ceil(planes / TY))`; threads past the extents return (no barrier).
#[inline(always)]
pub(crate) fn deriv_march_body<T: Real, C: Coefficients<T>, const DIRECTION: u8>(
    f: Slice<'_, T>,
    df: SliceMut<'_, T>,
    (mx, my, mz): (u32, u32, u32),
    coeffs: C,
) {
    let ([bx, by], [tx, ty], [dx, dy]) = thread_2d();
    let (m, stride, across, across_stride) = if DIRECTION == Y {
        (my, mx, mz, mx * my)
    } else {
        (mz, mx * my, my, mx)
    };
    if m <= HALO as u32 {
        ferrocuda_device::global::bounds_failure()
    }
    let (i, p) = (bx * dx + tx, by * dy + ty);
    if i >= mx || p >= across {
        return;
    }
    let base = i + p * across_stride;
    // Point n of the line, n in -4 ..= m + 3 as `n + m - 1` (the periodic image, period m - 1,
    // the book's wrap): its global element.
    let at = |shifted: u32| {
        let n = if shifted >= 2 * m - 1 {
            shifted - 2 * (m - 1)
        } else if shifted >= m - 1 {
            shifted - (m - 1)
        } else {
            shifted
        };
        base + n * stride
    };
    // Every load below passes `at` a point n in -4 ..= m + 3, as `n + m - 1`.
    let load = |shifted: u32| {
        // SAFETY: `at` gives a point of the line, in `f` (`extents`, and the test of the thread
        // above).
        unsafe { f.get_unchecked(at(shifted) as usize) }
    };
    const W: usize = 2 * HALO + MARCH_STEP;
    // window[s] = point n - 4 + s.
    // Built by `from_fn`, not a loop with a variable index: an array indexed by a variable
    // would live in local memory.
    let mut window: [T; W] = core::array::from_fn(|s| {
        if s < 2 * HALO {
            load(s as u32 + m - 1 - HALO as u32)
        } else {
            T::from_f64(0.0)
        }
    });
    let step = MARCH_STEP as u32;
    let mut n = 0;
    while n + step <= m {
        let ahead: [T; MARCH_STEP] = core::array::from_fn(|q| load(n + (HALO + q) as u32 + m - 1));
        for q in 0..MARCH_STEP {
            window[2 * HALO + q] = ahead[q];
        }
        for q in 0..MARCH_STEP {
            let value = stencil(coeffs.at((n as usize) + q), |k| window[q + k]);
            // SAFETY: point n + q < m of the line, in `df`.
            unsafe { df.set_unchecked((base + (n + q as u32) * stride) as usize, value) };
        }
        // Constant indices, unrolled: the window stays in registers (no memmove, no .local).
        for s in 0..2 * HALO {
            window[s] = window[s + MARCH_STEP];
        }
        n += step;
    }
    while n < m {
        window[2 * HALO] = load(n + HALO as u32 + m - 1);
        let value = stencil(coeffs.at(n as usize), |k| window[k]);
        // SAFETY: point n < m of the line, in `df`.
        unsafe { df.set_unchecked((base + n * stride) as usize, value) };
        for s in 0..2 * HALO {
            window[s] = window[s + 1];
        }
        n += 1;
    }
}

/// The y derivative by pencil marching: no tile, the window in registers (not in the book; the
/// fast y kernel of the performance pass).
#[kernel(f32, f64)]
pub fn deriv_y_march<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_march_body::<T, _, Y>(args.f, args.df, e, Uniform::<T>::load(1));
}

/// The z derivative by pencil marching: no tile, the window in registers (not in the book; the
/// fast z kernel of the performance pass).
#[kernel(f32, f64)]
pub fn deriv_z_march<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_march_body::<T, _, Z>(args.f, args.df, e, Uniform::<T>::load(2));
}
