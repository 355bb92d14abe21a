//! How the chapter 5 listings print: Fortran's `Ew.d` output format, in which they print their
//! errors (`sum_accuracy`'s `E15.7`, the pi examples' `e11.4`), and the names of its precisions.
use ferrocuda::device::real::Real;

/// `single` or `double`, as the listings name `T`'s precision.
pub fn precision_name<T: Real>() -> &'static str {
    if T::NAME == "f32" { "single" } else { "double" }
}

/// Fortran's `E15.7` shape, `0.9588196E+01`.
pub fn fortran_e(v: f64) -> String {
    fortran_e_digits(v, 7)
}

/// Fortran's `Ew.d` shape with `digits` significant digits (`E11.4`: `0.5273E-02`), unpadded.
pub fn fortran_e_digits(v: f64, digits: usize) -> String {
    if v == 0.0 {
        return format!("0.{}E+00", "0".repeat(digits));
    }
    // `{:.(d-1)e}` rounds to d significant digits: `d.ddde<x>`, here moved to `0.dddd`.
    let s = format!("{:.*e}", digits.saturating_sub(1), v.abs());
    let (mantissa, exponent) = s.split_once('e').unwrap_or((&s, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0) + 1;
    let sign = if v < 0.0 { "-" } else { "" };
    format!(
        "{sign}0.{}E{}{:02}",
        mantissa.replace('.', ""),
        if exponent < 0 { '-' } else { '+' },
        exponent.abs()
    )
}
