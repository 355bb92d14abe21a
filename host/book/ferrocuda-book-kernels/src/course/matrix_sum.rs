//! Sums of each row and of each column of a row-major matrix (IT4I course, hands-on 5
//! `05_matrix_sum`): the coalescing lesson. One thread per row walks its row, so the 32 threads of
//! a warp read 32 addresses a whole row apart (32 sectors per load); one thread per column walks
//! down its column, so a warp reads 32 consecutive words (4 sectors per load).
use ferrocuda_device::prelude::*;

/// Arguments of both kernels: `a` is `rows x cols`, row-major; `sums` holds one sum per row
/// ([`matrix_sum_each_row`]) or per column ([`matrix_sum_each_col`]).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct MatrixSumArgs<'a> {
    pub a: Slice<'a, f32>,
    pub sums: SliceMut<'a, f32>,
    pub rows: usize,
    pub cols: usize,
}

/// Traps (on every thread) unless `a` holds `rows x cols` elements, without overflow: the one test
/// that makes every element of the walk in bounds, so the loop's loads carry no bounds test each
/// and the compiler can issue several before the first is used, as nvcc's unrolled loop does (a
/// test per load would leave one load in flight per thread and turn the coalescing lesson into a
/// latency one).
#[inline(always)]
fn check_extent(args: &MatrixSumArgs<'_>) {
    if args.rows.checked_mul(args.cols) != Some(args.a.len()) {
        ferrocuda_device::global::bounds_failure()
    }
}

/// `sums[row] = a[row][0] + a[row][1] + ...`, left to right in f32, one thread per row.
///
/// Launch: a 1-D grid of at least `rows` threads.
#[kernel]
pub fn matrix_sum_each_row(args: MatrixSumArgs<'_>) {
    check_extent(&args);
    let row = global_idx_x();
    if row < args.rows {
        let mut sum = 0.0f32;
        for col in 0..args.cols {
            // SAFETY: `row < rows`, `col < cols` and `a` holds `rows * cols` (checked above).
            sum += unsafe { args.a.get_unchecked(row * args.cols + col) };
        }
        args.sums.set(row, sum);
    }
}

/// `sums[col] = a[0][col] + a[1][col] + ...`, top to bottom in f32, one thread per column.
///
/// Launch: a 1-D grid of at least `cols` threads.
#[kernel]
pub fn matrix_sum_each_col(args: MatrixSumArgs<'_>) {
    check_extent(&args);
    let col = global_idx_x();
    if col < args.cols {
        let mut sum = 0.0f32;
        for row in 0..args.rows {
            // SAFETY: `row < rows`, `col < cols` and `a` holds `rows * cols` (checked above).
            sum += unsafe { args.a.get_unchecked(row * args.cols + col) };
        }
        args.sums.set(col, sum);
    }
}
