//! CPU reference of course-heat (our own design for the course's "HeatFlow" capstone): explicit
//! FTCS steps of the 2-D heat equation with rayon, one row per task. The update itself is the
//! kernels' [`ftcs`] (explicit fused multiply-adds), so GPU and CPU agree bit for bit; the
//! neighbour indexing and the edges are written here independently of the kernels.
use crate::reference::try_copy;
use book_kernels::course::heat::{DIRICHLET, ftcs};
use ferrocuda::device::real::Real;
use rayon::prelude::*;

/// One time step of the `rows x cols` field `src` into `dst`: Dirichlet edges (`edges ==
/// DIRICHLET`) copied, every other point updated, a neighbour beyond an insulated edge being
/// the point itself.
pub fn step<T: Real + Send + Sync>(src: &[T], dst: &mut [T], rows: usize, cols: usize, edges: u32, r: T) {
    assert_eq!(src.len(), rows * cols, "the source is rows x cols");
    assert_eq!(dst.len(), rows * cols, "the destination is rows x cols");
    dst.par_chunks_mut(cols).enumerate().for_each(|(i, out)| {
        let row = &src[i * cols..(i + 1) * cols];
        let above = if i > 0 { &src[(i - 1) * cols..i * cols] } else { row };
        let below = if i + 1 < rows {
            &src[(i + 1) * cols..(i + 2) * cols]
        } else {
            row
        };
        let fixed_row = edges == DIRICHLET && (i == 0 || i + 1 == rows);
        for j in 0..cols {
            let u = row[j];
            out[j] = if fixed_row || (edges == DIRICHLET && (j == 0 || j + 1 == cols)) {
                u
            } else {
                let west = if j > 0 { row[j - 1] } else { u };
                let east = if j + 1 < cols { row[j + 1] } else { u };
                ftcs(u, west, east, above[j], below[j], r)
            };
        }
    });
}

/// A field the CPU advances step by step: the reference the GPU's snapshots are compared with.
#[derive(Clone, Debug)]
pub struct Field<T> {
    pub values: Vec<T>,
    scratch: Vec<T>,
    pub rows: usize,
    pub cols: usize,
    pub edges: u32,
    pub r: T,
    /// Steps taken so far.
    pub step: usize,
}

impl<T: Real + Send + Sync> Field<T> {
    /// The field `initial` (`rows x cols`) at step 0, its two copies allocated fallibly.
    pub fn new(initial: &[T], rows: usize, cols: usize, edges: u32, r: T) -> ferrocuda::Result<Self> {
        Ok(Self {
            values: try_copy(initial)?,
            scratch: try_copy(initial)?,
            rows,
            cols,
            edges,
            r,
            step: 0,
        })
    }

    /// Advances to step `target` (no-op when already there or past it), counting the steps on a
    /// progress line.
    pub fn advance_to(&mut self, target: usize) {
        let bar = crate::progress::bar("CPU reference heat steps", target.saturating_sub(self.step) as u64);
        while self.step < target {
            step(
                &self.values,
                &mut self.scratch,
                self.rows,
                self.cols,
                self.edges,
                self.r,
            );
            std::mem::swap(&mut self.values, &mut self.scratch);
            self.step += 1;
            bar.inc(1);
        }
        bar.finish_and_clear();
    }
}
