//! The reversed array the shared-memory reversals must produce (book §3.3.3: `r(i) = n-i+1`).

/// `d` reversed.
pub fn reverse(d: &[f32]) -> Vec<f32> {
    d.iter().rev().copied().collect()
}
