//! Domain decomposition (thesis §5.3, §5.5.1, Appendix B.2.3–B.2.4): row strips over any number
//! of partitions, or 2 x 2 blocks over four; each partition's local array with its ghost
//! layers, the region each half-sweep updates, and the borders partitions exchange.
//!
//! Ghost depth: between two exchanges a partition runs `bs` red-black iterations, `2 bs`
//! half-sweeps. Each half-sweep leaves one more layer of ghosts stale: a point at distance `d`
//! from the partition's own points is updated with neighbours at distance `d + 1`. So the
//! ghosts are `2 bs` deep, and half-sweep `h` of the period updates the own points and
//! `2 bs - 1 - h` ghost layers (the thesis's shrinking region, one layer per half-sweep). With
//! that depth every point is updated exactly as on one GPU; the thesis's `bs`-deep ghosts with
//! `bs` red-black iterations read stale values at the borders.
use crate::gpu::{Error, Result};
use gpu_kernels::sor::Region;
use std::fmt;
use std::ops::Range;
use std::str::FromStr;

/// How the domain is cut.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Decomposition {
    /// Contiguous rows per partition (the thesis's strips; the last takes the remainder).
    #[default]
    Strips,
    /// 2 x 2 blocks, four partitions.
    Blocks,
}

impl FromStr for Decomposition {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "strips" => Ok(Self::Strips),
            "blocks" => Ok(Self::Blocks),
            other => Err(Error::InvalidArgument(format!(
                "the decomposition is strips or blocks, not `{other}`"
            ))),
        }
    }
}

impl fmt::Display for Decomposition {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::Strips => "strips",
            Self::Blocks => "blocks",
        })
    }
}

/// A rectangle of the global grid: rows `rows`, columns `cols`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Area {
    pub rows: Range<usize>,
    pub cols: Range<usize>,
}

impl Area {
    /// Points in it.
    pub fn len(&self) -> usize {
        self.rows.len() * self.cols.len()
    }

    /// True when it holds no point.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Data one partition sends another at each exchange: the sender's points in `area`, which
/// are ghosts of the receiver. Phase 0 exchanges run first; phase 1 exchanges (east-west, for
/// blocks) include the ghost rows phase 0 filled, so corners travel diagonally.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Border {
    pub from: usize,
    pub to: usize,
    pub phase: usize,
    pub area: Area,
}

/// One partition: the points it owns and the local array it stores (owned points, ghost
/// layers, and the domain boundary where it touches it).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Partition {
    pub rank: usize,
    /// The points it owns, boundary included where it touches the domain's edge.
    pub own: Area,
    /// The points its local array stores.
    pub local: Area,
}

impl Partition {
    /// Parity of the absolute coordinates of local `(0, 0)`.
    pub fn parity(&self) -> u32 {
        ((self.local.rows.start + self.local.cols.start) & 1) as u32
    }

    /// The global area `area` in local coordinates.
    pub fn to_local(&self, area: &Area) -> Area {
        Area {
            rows: area.rows.start - self.local.rows.start..area.rows.end - self.local.rows.start,
            cols: area.cols.start - self.local.cols.start..area.cols.end - self.local.cols.start,
        }
    }

    /// The local region a half-sweep updates when it reaches `extra` ghost layers beyond the
    /// owned points (on the sides that have ghosts), never the domain's boundary.
    pub fn region(&self, extra: usize, grid: (usize, usize)) -> Region {
        let widen = |own: &Range<usize>, local: &Range<usize>, len: usize| {
            let begin = if own.start > local.start {
                own.start - extra
            } else {
                own.start
            }
            .max(1);
            let end = if own.end < local.end { own.end + extra } else { own.end }.min(len - 1);
            (
                begin.max(local.start) - local.start,
                end.min(local.end).max(begin) - local.start,
            )
        };
        let (row_begin, row_end) = widen(&self.own.rows, &self.local.rows, grid.0);
        let (col_begin, col_end) = widen(&self.own.cols, &self.local.cols, grid.1);
        Region {
            row_begin: row_begin as u32,
            row_end: row_end as u32,
            col_begin: col_begin as u32,
            col_end: col_end as u32,
        }
    }
}

/// A decomposed domain: the partitions of a decomposition and the borders they exchange.
#[derive(Clone, Debug)]
pub struct Partitioning {
    pub decomposition: Decomposition,
    pub rows: usize,
    pub cols: usize,
    /// Ghost layers on each side that has a neighbour.
    pub ghost: usize,
    pub partitions: Vec<Partition>,
    pub borders: Vec<Border>,
}

impl Partitioning {
    /// `parts` partitions of a `rows x cols` grid with `ghost`-deep ghost layers. Block columns
    /// are cut at an even column, which the split storage layout needs (and `ghost` must then
    /// be even, as `2 bs` is).
    pub fn new(decomposition: Decomposition, rows: usize, cols: usize, parts: usize, ghost: usize) -> Result<Self> {
        let (row_cuts, col_cuts) = match decomposition {
            Decomposition::Strips => (cuts(rows, parts), vec![0, cols]),
            Decomposition::Blocks if parts == 4 => (cuts(rows, 2), vec![0, (cols / 2) & !1, cols]),
            Decomposition::Blocks => {
                return Err(Error::InvalidArgument(format!(
                    "blocks are 2 x 2: they need 4 partitions, not {parts}"
                )));
            }
        };
        let smallest = |c: &[usize]| c.windows(2).map(|w| w[1] - w[0]).min().unwrap_or(0);
        if parts == 0 || smallest(&row_cuts) < ghost.max(1) || smallest(&col_cuts) < ghost.max(1) {
            return Err(Error::InvalidArgument(format!(
                "a {rows} x {cols} grid cannot be cut into {parts} {decomposition} of at least {} rows and columns each (the ghost depth)",
                ghost.max(1)
            )));
        }
        let (nr, nc) = (row_cuts.len() - 1, col_cuts.len() - 1);
        let rank = |i: usize, j: usize| i * nc + j;
        let partitions = (0..nr)
            .flat_map(|i| (0..nc).map(move |j| (i, j)))
            .map(|(i, j)| {
                let own = Area {
                    rows: row_cuts[i]..row_cuts[i + 1],
                    cols: col_cuts[j]..col_cuts[j + 1],
                };
                let local = Area {
                    rows: own.rows.start.saturating_sub(ghost)..(own.rows.end + ghost).min(rows),
                    cols: own.cols.start.saturating_sub(ghost)..(own.cols.end + ghost).min(cols),
                };
                Partition {
                    rank: rank(i, j),
                    own,
                    local,
                }
            })
            .collect::<Vec<_>>();
        let mut borders = Vec::new();
        // Phase 0, north-south: each partition's `ghost` edge rows, across its own columns.
        for i in 0..nr.saturating_sub(1) {
            for j in 0..nc {
                let (upper, lower) = (&partitions[rank(i, j)], &partitions[rank(i + 1, j)]);
                let cut = upper.own.rows.end;
                let cols = upper.own.cols.clone();
                borders.push(Border {
                    from: upper.rank,
                    to: lower.rank,
                    phase: 0,
                    area: Area {
                        rows: cut - ghost..cut,
                        cols: cols.clone(),
                    },
                });
                borders.push(Border {
                    from: lower.rank,
                    to: upper.rank,
                    phase: 0,
                    area: Area {
                        rows: cut..cut + ghost,
                        cols,
                    },
                });
            }
        }
        // Phase 1, east-west: `ghost` edge columns across the sender's local rows, ghost rows
        // included, so the corners come along.
        for i in 0..nr {
            for j in 0..nc.saturating_sub(1) {
                let (west, east) = (&partitions[rank(i, j)], &partitions[rank(i, j + 1)]);
                let cut = west.own.cols.end;
                let rows = west.local.rows.clone();
                borders.push(Border {
                    from: west.rank,
                    to: east.rank,
                    phase: 1,
                    area: Area {
                        rows: rows.clone(),
                        cols: cut - ghost..cut,
                    },
                });
                borders.push(Border {
                    from: east.rank,
                    to: west.rank,
                    phase: 1,
                    area: Area {
                        rows,
                        cols: cut..cut + ghost,
                    },
                });
            }
        }
        Ok(Self {
            decomposition,
            rows,
            cols,
            ghost,
            partitions,
            borders,
        })
    }

    /// Exchange phases (1 for strips, 2 for blocks).
    pub fn phases(&self) -> usize {
        self.borders.iter().map(|b| b.phase + 1).max().unwrap_or(0)
    }
}

/// `parts + 1` cut points of `0..len` into near-equal pieces, the last taking the remainder
/// (the thesis's `h = m / threads`).
fn cuts(len: usize, parts: usize) -> Vec<usize> {
    let size = len / parts.max(1);
    (0..parts).map(|p| p * size).chain([len]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_own_every_row_once() {
        let partitioning = Partitioning::new(Decomposition::Strips, 103, 50, 4, 2).unwrap();
        let owned: usize = partitioning.partitions.iter().map(|p| p.own.len()).sum();
        assert_eq!(owned, 103 * 50);
        assert_eq!(partitioning.partitions[3].own.rows, 75..103);
        assert_eq!(partitioning.partitions[1].local.rows, 23..52);
        assert_eq!(partitioning.borders.len(), 6);
        // Half-sweep 0 of a period reaches one ghost layer; the domain boundary never moves.
        let r = partitioning.partitions[0].region(1, (103, 50));
        assert_eq!((r.row_begin, r.row_end, r.col_begin, r.col_end), (1, 26, 1, 49));
    }

    #[test]
    fn blocks_cut_columns_evenly_and_send_corners() {
        let partitioning = Partitioning::new(Decomposition::Blocks, 40, 31, 4, 2).unwrap();
        assert_eq!(partitioning.partitions[1].own.cols, 14..31);
        assert_eq!(partitioning.phases(), 2);
        let corner = partitioning
            .borders
            .iter()
            .find(|b| b.phase == 1 && b.from == 0)
            .unwrap();
        assert_eq!(
            corner.area,
            Area {
                rows: 0..22,
                cols: 12..14
            }
        );
        assert!(Partitioning::new(Decomposition::Blocks, 40, 31, 2, 2).is_err());
        assert!(Partitioning::new(Decomposition::Strips, 7, 31, 4, 2).is_err());
    }
}
