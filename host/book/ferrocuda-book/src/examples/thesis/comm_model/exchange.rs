//! thesis-comm-model's border exchanges (thesis §5.3): the busiest GPU's borders for strips and
//! blocks, their time predicted from the fitted row model, and the same exchange performed.
use super::rig::{matrix, section};
use super::{RowModel, pitch_of};
use ferrocuda::footprint::try_vec;
use ferrocuda::gpu::{Copy2d, DeviceBuffer, Gpu, Result};
use ferrocuda::measure::time_reps;

/// A partition's device array and the busiest GPU's borders: `(sent section, ghost section)`,
/// each `((row, col), rows, width)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Exchange {
    pub rows: usize,
    pub cols: usize,
    pub borders: Vec<(Section, Section)>,
}

/// `((row, col), rows, width)` of a partition's array.
pub type Section = ((usize, usize), usize, usize);

/// The busiest GPU's exchange for side `n`, `gpus` GPUs, `d` ghost rows: strips send `d x n`
/// per interior border (a middle GPU has two); 2x2 blocks send `d x n/2` vertically, then
/// `(n/2 + d) x d` horizontally, ghost corner included (thesis §5.3, eqs 5.1, 5.2).
pub fn busiest_exchange(n: usize, gpus: usize, blocks: bool, d: usize) -> Exchange {
    let h = n / if blocks { 2 } else { gpus };
    if blocks {
        let vertical = (((h - d, 0), d, h), ((h, 0), d, h));
        let horizontal = (((0, h - d), h + d, d), ((0, h), h + d, d));
        Exchange {
            rows: h + d,
            cols: h + d,
            borders: vec![vertical, horizontal],
        }
    } else if gpus == 2 {
        Exchange {
            rows: h + d,
            cols: n,
            borders: vec![(((h - d, 0), d, n), ((h, 0), d, n))],
        }
    } else {
        let north = (((d, 0), d, n), ((0, 0), d, n));
        let south = (((h, 0), d, n), ((h + d, 0), d, n));
        Exchange {
            rows: h + 2 * d,
            cols: n,
            borders: vec![north, south],
        }
    }
}

/// Predicted ms of `exchange` through pageable memory (D2H then H2D of every border).
pub fn predict_exchange(exchange: &Exchange, d2h: &RowModel, h2d: &RowModel) -> f64 {
    let each = |&(_, rows, width): &Section| d2h.predict(rows, width) + h2d.predict(rows, width);
    exchange.borders.iter().map(|(sent, _)| each(sent)).sum()
}

/// Performs `exchange` with synchronous pageable `cudaMemcpy2D`: the median ms over `reps`,
/// and whether, after one exchange, the device array equals a CPU mirror of it.
pub fn measure_exchange(gpu: &Gpu, exchange: &Exchange, reps: usize) -> Result<(f64, bool)> {
    let (cols, pitch) = (exchange.cols, pitch_of(exchange.cols));
    let mut a_d = gpu.upload(&matrix(exchange.rows, cols, pitch)?)?;
    let mut host = try_vec(exchange.rows * cols, 0.0f32)?;
    let mut mirror = matrix(exchange.rows, cols, pitch)?;
    let once = |a_d: &mut DeviceBuffer<f32>, host: &mut Vec<f32>| -> Result<()> {
        for &((at, rows, width), (ghost, _, _)) in &exchange.borders {
            gpu.download_2d(a_d, host, section(pitch, cols, at, rows, width))?;
            let back = section(cols, pitch, at, rows, width);
            let to_ghost = Copy2d {
                dst_offset: ghost.0 * pitch + ghost.1,
                ..back
            };
            gpu.upload_2d(host, a_d, to_ghost)?;
        }
        Ok(())
    };
    once(&mut a_d, &mut host)?;
    for &((at, rows, width), (ghost, _, _)) in &exchange.borders {
        for r in 0..rows {
            let from = (at.0 + r) * pitch + at.1;
            mirror.copy_within(from..from + width, (ghost.0 + r) * pitch + ghost.1);
        }
    }
    let exact = gpu.download(&a_d)? == mirror;
    let stats = time_reps(gpu, reps, || once(&mut a_d, &mut host))?;
    Ok((stats.median_ms, exact))
}
