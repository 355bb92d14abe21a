//! Book chapter 6: finite difference methods.
pub mod deriv;
pub mod deriv_launch;
pub mod laplace2d;
pub mod laplace2d_solver;

/// Dynamic shared memory a block gets without opting in (CUDA's 48 KiB): the kernels whose tiles
/// take more opt in first.
pub const DEFAULT_SHARED_BYTES: u32 = 48 * 1024;

/// `v` in Fortran's E shape with `decimals` digits after the point and a signed two-digit
/// exponent, `2.3563966E-02`, as the book's programs print (Rust's `{:E}` gives `2.3563966E-2`).
pub fn fortran_e(v: f64, decimals: usize) -> String {
    let s = format!("{v:.decimals$E}");
    match s.split_once('E') {
        Some((mantissa, e)) => format!("{mantissa}E{:+03}", e.parse::<i32>().unwrap_or(0)),
        None => s,
    }
}
