//! How a grid is stored on the GPU: the natural row-major layout or red and black planes apart,
//! the conversions between them, and the stored rectangle of each plane that a natural
//! rectangle maps onto (what the border exchange copies).
use crate::gpu::{Copy2d, Error, Result};
use rayon::prelude::*;

/// How a grid is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layout {
    /// One row-major array, `cols` elements a row.
    Natural,
    /// Two planes, red then black, each row compacted to `(cols + 1) / 2` elements: point
    /// `(r, j)` at `r * pitch + j / 2` of its colour's plane.
    Split,
}

impl Layout {
    /// Elements a stored row of a `cols`-column grid.
    pub fn pitch(self, cols: usize) -> usize {
        match self {
            Layout::Natural => cols,
            Layout::Split => cols.div_ceil(2),
        }
    }

    /// Planes stored.
    pub fn planes(self) -> usize {
        match self {
            Layout::Natural => 1,
            Layout::Split => 2,
        }
    }

    /// The natural `rows x cols` grid (absolute parity `parity` at `(0, 0)`) as stored (rows in
    /// parallel: grids reach 2^30 points).
    pub fn store<T: Copy + Default + Send + Sync>(
        self,
        grid: &[T],
        rows: usize,
        cols: usize,
        parity: u32,
    ) -> Vec<Vec<T>> {
        match self {
            Layout::Natural => vec![grid.to_vec()],
            Layout::Split => {
                let pitch = self.pitch(cols);
                let mut planes = vec![vec![T::default(); rows * pitch]; 2];
                let (red, black) = planes.split_at_mut(1);
                red[0]
                    .par_chunks_mut(pitch)
                    .zip(black[0].par_chunks_mut(pitch))
                    .zip(grid.par_chunks(cols))
                    .enumerate()
                    .for_each(|(r, ((red, black), natural))| {
                        for (j, &v) in natural.iter().enumerate() {
                            let plane = if (parity as usize + r + j) & 1 == 0 {
                                &mut *red
                            } else {
                                &mut *black
                            };
                            plane[j / 2] = v;
                        }
                    });
                planes
            }
        }
    }

    /// The natural `rows x cols` grid from its stored planes.
    pub fn load<T: Copy + Default + Send + Sync>(
        self,
        planes: &[Vec<T>],
        rows: usize,
        cols: usize,
        parity: u32,
    ) -> Vec<T> {
        match self {
            Layout::Natural => planes[0].clone(),
            Layout::Split => {
                let pitch = self.pitch(cols);
                let mut grid = vec![T::default(); rows * cols];
                grid.par_chunks_mut(cols).enumerate().for_each(|(r, natural)| {
                    for (j, v) in natural.iter_mut().enumerate() {
                        *v = planes[(parity as usize + r + j) & 1][r * pitch + j / 2];
                    }
                });
                grid
            }
        }
    }

    /// The stored rectangle of each plane that holds exactly the natural rows `rows` and columns
    /// `cols`: in the split layout the column bounds must be even (or the grid's last column),
    /// so that each compacted element lies wholly inside or outside.
    pub fn plane_rect(
        self,
        rows: std::ops::Range<usize>,
        cols: std::ops::Range<usize>,
        grid_cols: usize,
    ) -> Result<Rect> {
        match self {
            Layout::Natural => Ok(Rect { rows, cols }),
            Layout::Split => {
                let aligned = |c: usize| c.is_multiple_of(2) || c == grid_cols;
                if !aligned(cols.start) || !aligned(cols.end) {
                    return Err(Error::InvalidArgument(format!(
                        "columns {cols:?} of the split layout must start and end on even columns"
                    )));
                }
                Ok(Rect {
                    rows,
                    cols: cols.start / 2..cols.end.div_ceil(2),
                })
            }
        }
    }
}

/// A rectangle of stored elements: rows `rows`, stored columns `cols`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rect {
    pub rows: std::ops::Range<usize>,
    pub cols: std::ops::Range<usize>,
}

impl Rect {
    /// Elements in it.
    pub fn len(&self) -> usize {
        self.rows.len() * self.cols.len()
    }

    /// True when it holds no element.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The 2-D copy from this rectangle of an array of `pitch` to the packed buffer at `offset`
    /// (rows of `cols.len()` elements).
    pub fn pack(&self, pitch: usize, offset: usize) -> Copy2d {
        Copy2d {
            src_offset: self.rows.start * pitch + self.cols.start,
            src_pitch: pitch,
            dst_offset: offset,
            dst_pitch: self.cols.len(),
            width: self.cols.len(),
            height: self.rows.len(),
        }
    }

    /// The 2-D copy from a packed buffer at `offset` into this rectangle of an array of `pitch`.
    pub fn unpack(&self, pitch: usize, offset: usize) -> Copy2d {
        Copy2d {
            src_offset: offset,
            src_pitch: self.cols.len(),
            dst_offset: self.rows.start * pitch + self.cols.start,
            dst_pitch: pitch,
            width: self.cols.len(),
            height: self.rows.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_layout_round_trips() {
        let (rows, cols) = (5, 7);
        let grid: Vec<u32> = (0..35).collect();
        for parity in [0, 1] {
            let planes = Layout::Split.store(&grid, rows, cols, parity);
            assert_eq!(planes[0].len(), rows * 4);
            assert_eq!(Layout::Split.load(&planes, rows, cols, parity), grid);
        }
        // (0, 0) is red for parity 0, so red row 0 holds columns 0, 2, 4, 6.
        assert_eq!(&Layout::Split.store(&grid, rows, cols, 0)[0][..4], &[0, 2, 4, 6]);
    }

    #[test]
    fn split_rects_need_even_columns() {
        let rect = Layout::Split.plane_rect(2..4, 2..8, 9).unwrap();
        assert_eq!(rect.cols, 1..4);
        assert!(Layout::Split.plane_rect(0..1, 1..4, 9).is_err());
        assert_eq!(Layout::Split.plane_rect(0..1, 4..9, 9).unwrap().cols, 2..5);
    }
}
