//! GPU-versus-CPU comparison: the maximum absolute and relative errors, and a verdict against a
//! tolerance chosen per algorithm (see each example's constants for why it is that large).
use rayon::prelude::*;
use std::fmt;

/// How close the GPU result must be to the CPU reference.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Tolerance {
    /// Largest allowed `|gpu - cpu|` where the relative test fails (values near zero).
    pub abs: f64,
    /// Largest allowed `|gpu - cpu| / |cpu|`.
    pub rel: f64,
}

impl Tolerance {
    /// Bit-for-bit (integers, copies, and float kernels whose rounding the CPU reproduces).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };
}

/// The comparison of one GPU result with its CPU reference.
#[derive(Clone, Debug, PartialEq)]
pub struct Check {
    /// What was compared.
    pub what: String,
    /// Elements compared.
    pub len: usize,
    pub max_abs_err: f64,
    pub max_rel_err: f64,
    /// Elements outside the tolerance.
    pub mismatches: usize,
    /// First element outside the tolerance, `(index, gpu, cpu)`.
    pub first_mismatch: Option<(usize, f64, f64)>,
}

impl Check {
    /// Compares `gpu` with `cpu` element by element (NaN never passes, lengths must agree).
    pub fn compare<T: Copy + Into<f64> + Sync>(what: &str, gpu: &[T], cpu: &[T], tolerance: Tolerance) -> Self {
        // In pieces on every core: a check of billions of elements (STREAM at 16 GiB per array)
        // would otherwise take minutes on one.
        const PIECE: usize = 1 << 16;
        let n = gpu.len().min(cpu.len());
        let pieces: Vec<Check> = (gpu[..n].par_chunks(PIECE))
            .zip(cpu[..n].par_chunks(PIECE))
            .map(|(g, c)| Self::compare_piece(g, c, tolerance))
            .collect();
        let mut check = Check::condition(what, true);
        check.len = 0;
        for (p, piece) in pieces.into_iter().enumerate() {
            check.absorb(piece, p * PIECE);
        }
        // Elements only one side has are mismatches too.
        check.len = gpu.len();
        check.mismatches += gpu.len().abs_diff(cpu.len());
        check
    }

    /// Adds to this check the comparison of a part of its arrays that starts at element `start`
    /// (a chunk verified on its own, to bound the memory a check of a huge array holds).
    pub fn absorb(&mut self, part: Check, start: usize) {
        self.len += part.len;
        self.max_abs_err = self.max_abs_err.max(part.max_abs_err);
        self.max_rel_err = self.max_rel_err.max(part.max_rel_err);
        self.mismatches += part.mismatches;
        if self.first_mismatch.is_none() {
            self.first_mismatch = part.first_mismatch.map(|(i, g, c)| (i + start, g, c));
        }
    }

    /// The comparison of one piece; indices from its start.
    fn compare_piece<T: Copy + Into<f64>>(gpu: &[T], cpu: &[T], tolerance: Tolerance) -> Self {
        let mut check = Check::condition("", true);
        check.len = gpu.len();
        for (i, (&g, &c)) in gpu.iter().zip(cpu).enumerate() {
            let (g, c): (f64, f64) = (g.into(), c.into());
            let abs = (g - c).abs();
            let rel = if c != 0.0 { abs / c.abs() } else { abs };
            check.max_abs_err = check.max_abs_err.max(abs);
            check.max_rel_err = check.max_rel_err.max(rel);
            let ok = g == c || approx::relative_eq!(g, c, epsilon = tolerance.abs, max_relative = tolerance.rel);
            if !ok || g.is_nan() != c.is_nan() {
                check.mismatches += 1;
                check.first_mismatch.get_or_insert((i, g, c));
            }
        }
        check
    }

    /// A check of one condition that is not an array comparison.
    pub fn condition(what: &str, holds: bool) -> Self {
        Check {
            what: what.to_string(),
            len: 1,
            max_abs_err: 0.0,
            max_rel_err: 0.0,
            mismatches: usize::from(!holds),
            first_mismatch: None,
        }
    }

    /// True when every element is within the tolerance.
    pub fn passed(&self) -> bool {
        self.mismatches == 0
    }
}

impl fmt::Display for Check {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}: max abs error {:.3e}, max rel error {:.3e} over {} values: {}",
            self.what,
            self.max_abs_err,
            self.max_rel_err,
            self.len,
            if self.passed() { "PASSED" } else { "FAILED" }
        )?;
        if let Some((i, g, c)) = self.first_mismatch {
            write!(
                f,
                " ({} mismatches; first at {i}: gpu {g:e}, cpu {c:e})",
                self.mismatches
            )?;
        }
        Ok(())
    }
}
