//! The second-order convergence table that the grid studies share (`thesis-sor`'s harmonic
//! solve, `course-heat`'s Fourier mode): one row per grid, the error ratio to the previous grid,
//! and a check that each ratio is about 4 (halving h quarters an O(h^2) error).
use ferrocuda::verify::Check;

/// One grid of a study: its side, spacing, the work it took (iterations or steps) and its error.
#[derive(Clone, Copy, Debug)]
pub struct GridError {
    pub side: usize,
    pub h: f64,
    pub work: usize,
    pub max_error: f64,
}

/// Prints the table (`work_label` names the work column) and returns one check per ratio: within
/// 3.5 to 4.5, where the leading error term dominates from the first grids on.
pub fn second_order_table(work_label: &str, grids: &[GridError]) -> Vec<Check> {
    let work_width = work_label.len().max(6) + 1;
    println!(
        " {:>6} {:>12} {:>work_width$} {:>16} {:>8}",
        "n", "h", work_label, "max |u - exact|", "ratio"
    );
    let mut checks = Vec::new();
    for (k, g) in grids.iter().enumerate() {
        let ratio = k.checked_sub(1).map(|prev| grids[prev].max_error / g.max_error);
        println!(
            " {:>6} {:>12.6e} {:>work_width$} {:>16.6e} {:>8}",
            g.side,
            g.h,
            g.work,
            g.max_error,
            ratio.map_or("-".into(), |r| format!("{r:.3}"))
        );
        if let Some(r) = ratio {
            checks.push(Check::condition(
                &format!(
                    "error ratio {r:.3} from n = {} to {} is about 4 (O(h^2))",
                    grids[k - 1].side,
                    g.side
                ),
                (3.5..=4.5).contains(&r),
            ));
        }
    }
    checks
}
