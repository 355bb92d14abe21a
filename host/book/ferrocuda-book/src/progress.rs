//! Progress lines for work that can last more than a few seconds (CPU references, sweeps,
//! `tol=` solves, `--study`, the bench), so that a slow check never looks like a hang.
//!
//! A line is drawn on stderr only when stderr is a terminal (indicatif hides it otherwise), and
//! erased when the work ends: CI logs and piped output stay as they were.
//!
//! ```
//! use ferrocuda_book::progress;
//! use rayon::prelude::*;
//! // A CPU reference over rows, in parallel, with a count and an estimate of the time left:
//! let rows = 1000;
//! let bar = progress::bar("CPU reference", rows as u64);
//! let sums: Vec<u64> = (0..rows).into_par_iter().map(|r| { bar.inc(1); r as u64 * 2 }).collect();
//! bar.finish_and_clear();
//! // Work that cannot count its steps: a spinner with the time spent.
//! let total = progress::spinner("solving").in_scope(|| sums.iter().sum::<u64>());
//! assert_eq!(total, 999_000);
//! ```
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::time::Duration;

/// A bar of `total` steps with the count, the elapsed time and an estimate of what is left.
/// Advance it with `inc` (from any thread); end it with `finish_and_clear`.
pub fn bar(label: &str, total: u64) -> ProgressBar {
    let style = ProgressStyle::with_template("{msg}: [{bar:30}] {pos}/{len} ({elapsed}, about {eta} left)")
        .expect("the template is valid")
        .progress_chars("=> ");
    ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr())
        .with_style(style)
        .with_message(label.to_string())
}

/// A spinner for work that cannot count its steps, with the time spent.
pub fn spinner(label: &str) -> Spinner {
    let style = ProgressStyle::with_template("{spinner} {msg} ({elapsed})").expect("the template is valid");
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr())
        .with_style(style)
        .with_message(label.to_string());
    bar.enable_steady_tick(Duration::from_millis(200));
    Spinner(bar)
}

/// A spinning progress line, erased when it is dropped.
pub struct Spinner(ProgressBar);

impl Spinner {
    /// Runs `work` under the spinner, then erases it.
    pub fn in_scope<T>(self, work: impl FnOnce() -> T) -> T {
        let result = work();
        drop(self);
        result
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.0.finish_and_clear();
    }
}
