//! The offset and stride increments on the CPU (book §3.2.2).
use ferrocuda::device::real::Real;
use ferrocuda::gpu::{Error, Result};

/// Where thread `i` of the increment kernels works.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// Element `i + s`: the `offset` kernels.
    Offset,
    /// Element `i * s`: the `stride` kernels.
    Stride,
}

impl Pattern {
    /// Both, in the book's order.
    pub const ALL: [Pattern; 2] = [Pattern::Offset, Pattern::Stride];

    /// The element thread `i` touches at offset or stride `s`.
    pub fn index(self, i: usize, s: usize) -> usize {
        match self {
            Pattern::Offset => i + s,
            Pattern::Stride => i * s,
        }
    }

    /// Elements an array needs for `n` threads at offset or stride `s` (0 for no thread).
    pub fn span(self, n: usize, s: usize) -> usize {
        if n == 0 { 0 } else { self.index(n - 1, s) + 1 }
    }

    /// Refuses arrays of `lens` elements that do not hold every element `n` threads at `s` touch.
    fn check(self, lens: &[usize], n: usize, s: usize) -> Result<()> {
        let last = |i: usize| match self {
            Pattern::Offset => i.checked_add(s)?.checked_add(1),
            Pattern::Stride => i.checked_mul(s)?.checked_add(1),
        };
        let needed = n.checked_sub(1).map_or(0, |i| last(i).unwrap_or(usize::MAX));
        match lens.iter().find(|&&len| len < needed) {
            Some(len) => Err(Error::InvalidArgument(format!(
                "{n} threads at {} {s} touch {needed} elements, more than the {len} given",
                self.label().to_lowercase()
            ))),
            None => Ok(()),
        }
    }

    /// `"Offset"` or `"Stride"`, as the book's table headers.
    pub fn label(self) -> &'static str {
        match self {
            Pattern::Offset => "Offset",
            Pattern::Stride => "Stride",
        }
    }
}

/// `a` after `launches` in-place launches of the `pattern` kernel with `n` threads at `s`: each
/// touched element incremented by one `launches` times, the others unchanged. Refuses an `a`
/// shorter than [`Pattern::span`].
pub fn in_place<T: Real>(a: &[T], pattern: Pattern, n: usize, s: usize, launches: usize) -> Result<Vec<T>> {
    pattern.check(&[a.len()], n, s)?;
    let mut out = a.to_vec();
    for i in 0..n {
        let k = pattern.index(i, s);
        for _ in 0..launches {
            out[k] = out[k] + T::from_f64(1.0);
        }
    }
    Ok(out)
}

/// `b` after the out-of-place kernel: `b[k] = a[k] + 1` at the touched `k`, the rest of `b` as
/// it was. Refuses an `a` or a `b` shorter than [`Pattern::span`].
pub fn out_of_place<T: Real>(a: &[T], b: &[T], pattern: Pattern, n: usize, s: usize) -> Result<Vec<T>> {
    pattern.check(&[a.len(), b.len()], n, s)?;
    let mut out = b.to_vec();
    for i in 0..n {
        let k = pattern.index(i, s);
        out[k] = a[k] + T::from_f64(1.0);
    }
    Ok(out)
}
