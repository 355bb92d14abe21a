//! course-matrix-sum: the course's hands-on 5 (`05_matrix_sum`): the sum of each row
//! (`matrix_sum_each_row`, given) and of each column (`matrix_sum_each_col`, the exercise) of a
//! row-major f32 matrix, one thread per row or column, and the coalescing lesson: the column
//! kernel's warps read 32 consecutive words, the row kernel's 32 words a row apart.
//!
//! The course gives neither size nor type; here 16384 x 16384 f32 (1 GiB, 20 times the H100's
//! L2) on a GPU, 384 x 512 on the simulator, uniform values in [0, 1) (24 bits, seeded). Each sum
//! runs in f32 in index order, as the CPU's, so both compare bit for bit. Then the lecture's
//! coalescing scenarios (L7), each as the bus utilisation of its addresses.
use super::image_shape::shape;
use super::splitmix;
use crate::defaults::Pick;
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::reference::course::matrix_sum as reference;
use book_kernels::course::matrix_sum::{MatrixSumArgs, MatrixSumEachCol, MatrixSumEachRow};
use ferrocuda::footprint::{self, Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

/// course-matrix-sum.
pub struct CourseMatrixSum;

/// Side of the GPU's matrix (`--size N`: N x N).
pub const SIDE: usize = 16384;
/// The simulator's matrix, `(rows, cols)`: not square, so a row/column mix-up shows.
pub const SIMULATOR_SHAPE: (usize, usize) = (384, 512);
/// Threads per block of both kernels (the course's value is not given).
pub const THREADS_PER_BLOCK: u32 = 256;
/// The course's A40 times: rows, columns (ms).
pub const COURSE_MS: (f64, f64) = (19.320, 7.801);

/// Seed of the matrix.
pub const SEED: u64 = 5;

/// Which sums.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sums {
    /// `matrix_sum_each_row`: one thread per row.
    EachRow,
    /// `matrix_sum_each_col`: one thread per column.
    EachCol,
}

impl Sums {
    /// Its kernel's name.
    pub fn kernel(self) -> &'static str {
        match self {
            Sums::EachRow => "matrix_sum_each_row",
            Sums::EachCol => "matrix_sum_each_col",
        }
    }

    /// What it sums.
    pub fn label(self) -> &'static str {
        match self {
            Sums::EachRow => "row sums",
            Sums::EachCol => "column sums",
        }
    }
}

/// Elements of a `rows x cols` matrix, refusing an empty one or one beyond memory.
pub fn elements(rows: usize, cols: usize) -> Result<usize> {
    match rows.checked_mul(cols) {
        Some(n) if n > 0 && n.checked_mul(size_of::<f32>()).is_some() => Ok(n),
        _ => Err(Error::InvalidArgument(format!(
            "a {rows} x {cols} matrix has no elements or more bytes than memory can address"
        ))),
    }
}

/// `rows x cols` values in [0, 1), 24 bits each, the same for a given `seed`.
pub fn matrix(rows: usize, cols: usize, seed: u64) -> Result<Vec<f32>> {
    let n = elements(rows, cols)?;
    let mut a = try_vec(n, 0.0f32)?;
    splitmix::par_fill(&mut a, seed, |z| (z >> 40) as f32 / (1u64 << 24) as f32);
    Ok(a)
}

/// `sums_d` = the row or column sums of the `rows x cols` matrix `a_d`, one thread per sum.
pub fn matrix_sum(
    gpu: &Gpu,
    which: Sums,
    a_d: &DeviceBuffer<f32>,
    sums_d: &mut DeviceBuffer<f32>,
    rows: usize,
    cols: usize,
) -> Result<()> {
    let n = elements(rows, cols)?;
    let count = match which {
        Sums::EachRow => rows,
        Sums::EachCol => cols,
    };
    if a_d.len() != n || sums_d.len() != count {
        return Err(Error::InvalidArgument(format!(
            "a {rows} x {cols} matrix and its {count} {} need {n} and {count} elements, not {} and {}",
            which.label(),
            a_d.len(),
            sums_d.len()
        )));
    }
    let shape = LaunchShape::cover_1d(count, THREADS_PER_BLOCK)?;
    let args = MatrixSumArgs {
        a: a_d.view(),
        sums: sums_d.view_mut(),
        rows,
        cols,
    };
    match which {
        Sums::EachRow => crate::kernels(gpu)?.launch(MatrixSumEachRow, shape, args),
        Sums::EachCol => crate::kernels(gpu)?.launch(MatrixSumEachCol, shape, args),
    }
}

/// One of the lecture's coalescing scenarios: a warp's (or two warps') 4-byte addresses.
pub struct Scenario {
    pub label: &'static str,
    pub addresses: Vec<u64>,
    /// The lecture's figure, as printed on the slide.
    pub course: &'static str,
}

/// Bytes of one sector, the unit DRAM and L2 move.
pub const SECTOR_BYTES: u64 = 32;

/// `(sectors touched, bytes requested / bytes moved)` of 4-byte loads at `addresses`.
pub fn bus_utilisation(addresses: &[u64]) -> (usize, f64) {
    let mut sectors: Vec<u64> = addresses.iter().map(|a| a / SECTOR_BYTES).collect();
    sectors.sort_unstable();
    sectors.dedup();
    let mut words = addresses.to_vec();
    words.sort_unstable();
    words.dedup();
    let moved = sectors.len() as u64 * SECTOR_BYTES;
    (sectors.len(), (4 * words.len()) as f64 / moved as f64)
}

/// The lecture's scenarios (L7), and the two kernels' first loads for a matrix of `cols` columns.
pub fn scenarios(cols: usize) -> Vec<Scenario> {
    let stride = 4 * cols as u64;
    let lanes = |address: &dyn Fn(u64) -> u64| (0..32u64).map(address).collect();
    [
        ("consecutive, aligned", lanes(&|t| 4 * t), "100%"),
        ("permuted within 128 B", lanes(&|t| 4 * ((t * 7) % 32)), "100%"),
        ("all lanes one word", vec![40; 32], "12.5%"),
        ("scattered, 32 sectors (N = 32)", lanes(&|t| 4096 * t + 8), "128/(N*32)"),
        ("consecutive, unaligned", lanes(&|t| 4 * t + 100), "5 sectors, 80%"),
        (
            "2 warps consecutive, unaligned",
            (0..64u64).map(|t| 4 * t + 100).collect(),
            "9 sectors, 88%",
        ),
        ("matrix_sum_each_col, one load", lanes(&|t| 4 * t), "-"),
        ("matrix_sum_each_row, one load", lanes(&|t| stride * t), "-"),
    ]
    .map(|(label, addresses, course)| Scenario {
        label,
        addresses,
        course,
    })
    .into()
}

impl Example for CourseMatrixSum {
    const ID: &'static str = "course-matrix-sum";
    const DESCRIPTION: &'static str = "sum of each row vs each column of a row-major matrix: coalesced vs strided warps, and the L7 scenarios (IT4I course)";
    const SIZE: Option<Size> = Some(Size::new(
        "matrix side, N x N (the simulator's default matrix is 384 x 512)",
        SIDE,
        SIMULATOR_SHAPE.1,
    ));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak for an `n x n` matrix: the matrix and one kernel's sums on the device; on the
    /// host the matrix, and the NaN fill, the downloaded sums and the reference's sums of one kernel.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let n = run.size;
        let a = footprint::elements(&[n, n])?;
        Footprint::NONE
            .mirrored::<f32>(1, a)?
            .device::<f32>(1, n)?
            .host::<f32>(3, n)
    }

    /// Both kernels on the matrix (`--size N`: N x N), timed and checked; the course's lines.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let (rows, cols) = shape(run, gpu.pick((SIDE, SIDE), SIMULATOR_SHAPE));
        let a = matrix(rows, cols, SEED)?;
        let a_d = gpu.upload(&a)?;
        println!(
            "{rows} x {cols} f32 matrix (row-major, {:.1} MiB), one thread per row / column, blocks of {THREADS_PER_BLOCK}, median of {} ({})",
            (elements(rows, cols)? * size_of::<f32>()) as f64 / (1 << 20) as f64,
            run.reps,
            gpu.timing_label()
        );
        let mut checks = Vec::new();
        let mut ms = [0.0; 2];
        for (k, (which, count)) in [(Sums::EachRow, rows), (Sums::EachCol, cols)].into_iter().enumerate() {
            let mut sums_d = gpu.upload(&try_vec(count, f32::NAN)?)?;
            ms[k] = time_reps(gpu, run.reps, || matrix_sum(gpu, which, &a_d, &mut sums_d, rows, cols))?.median_ms;
            let expected =
                crate::progress::spinner(&format!("CPU reference: {}", which.label())).in_scope(|| match which {
                    Sums::EachRow => reference::row_sums(&a, cols),
                    Sums::EachCol => reference::col_sums(&a, cols),
                });
            checks.push(Check::compare(
                &format!("{} ({})", which.label(), which.kernel()),
                &gpu.download(&sums_d)?,
                &expected,
                Tolerance::EXACT,
            ));
        }
        println!("Summation time in each row:    {:>8.3} ms", ms[0]);
        println!("Summation time in each column: {:>8.3} ms", ms[1]);
        let speedup = ms[0] / ms[1];
        if speedup >= 1.0 {
            println!("Using coalesced memory accesses was {speedup:.2} times faster");
        } else {
            println!(
                "Using coalesced memory accesses was {:.2} times slower (the row walks' strided loads hit lines their neighbours brought into L1)",
                1.0 / speedup
            );
        }
        println!(
            "(course, A40 with an unstated size: {:.3} ms / {:.3} ms -> {:.2}x)",
            COURSE_MS.0,
            COURSE_MS.1,
            COURSE_MS.0 / COURSE_MS.1
        );
        println!();
        println!("Coalescing (L7): 4-byte loads, {SECTOR_BYTES}-byte sectors");
        println!(
            " {:<34} {:>8} {:>12} {:>16}",
            "addresses", "sectors", "bus use", "course"
        );
        for s in scenarios(cols) {
            let (sectors, used) = bus_utilisation(&s.addresses);
            println!(" {:<34} {sectors:>8} {:>11.1}% {:>16}", s.label, 100.0 * used, s.course);
        }
        Ok(Outcome { checks })
    }
}
