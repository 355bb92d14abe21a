//! racecheck-gallery: each racy kernel of `book_kernels::racecheck::gallery` once, then its
//! correct twin.
//!
//! On the simulator (both race detectors on, whatever `FERROCUDA_SIM_CHECKS` says), every racy
//! kernel must be stopped with the report its race calls for, and every twin must run clean and
//! right. On a GPU, every kernel simply runs and its name is printed, so that the output of
//! `compute-sanitizer --tool racecheck` over this run can be matched to the kernels (racecheck
//! sees shared memory only: it cannot flag `global_cell_racy`); the twins' results are checked.
use crate::example::{LegacyExample, Options, Outcome};
use book_kernels::racecheck::gallery::{
    BLOCK, GalleryArgs, GlobalCellAtomic, GlobalCellRacy, TILE_DIM, TRANSPOSE_SHARED_BYTES, TileShift, TileShiftRacy,
    TransposeTiles, TransposeTilesRacy, TreeSum, TreeSumRacy, WarpTailSum, WarpTailSumRacy,
};
use ferrocuda::device::shared::Tile1d;
use ferrocuda::gpu::{Error, Gpu, LaunchShape, Result};
use ferrocuda::sim::{Checks, SimError, with_checks};
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda::{Kernel, KernelView};

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "racecheck-gallery",
    description: "kernels each missing one barrier, and their twins: the simulator's race detector flags each \
                  (on a GPU: run it under compute-sanitizer --tool racecheck)",
    size: None,
    f64: false,
    reps: false,
    flags: &[],
    run,
};

/// A launch's output, and what the twin must produce.
pub type OutputAndExpected = (Vec<f32>, Vec<f32>);

/// One racy kernel and its correct twin.
pub struct Case {
    /// The racy kernel's name (its PTX symbol, as compute-sanitizer prints it).
    pub racy: &'static str,
    /// The twin's name.
    pub twin: &'static str,
    /// A phrase the simulator's report on the racy kernel contains.
    pub report: &'static str,
    /// Launches the racy kernel (`true`) or the twin once; returns the output and what the twin
    /// must produce.
    pub launch: fn(&Gpu, bool) -> Result<OutputAndExpected>,
}

/// The gallery, in the order the run launches it.
pub static CASES: &[Case] = &[
    Case {
        racy: "tile_shift_racy",
        twin: "tile_shift",
        report: "a barrier (sync_threads) between the load at",
        launch: tile_shift,
    },
    Case {
        racy: "tree_sum_racy",
        twin: "tree_sum",
        report: "a barrier (sync_threads) between the load at",
        launch: tree_sum,
    },
    Case {
        racy: "warp_tail_sum_racy",
        twin: "warp_tail_sum",
        report: "lanes of warp 0, which sm_70+ does not run in lockstep",
        launch: warp_tail_sum,
    },
    Case {
        racy: "transpose_tiles_racy",
        twin: "transpose_tiles",
        report: "shared-memory race on bytes",
        launch: transpose_tiles,
    },
    Case {
        racy: "global_cell_racy",
        twin: "global_cell_atomic",
        report: "global-memory race",
        launch: global_cell,
    },
];

/// Blocks of the 1-D kernels.
const BLOCKS: usize = 4;
/// The transposes' matrix side: four tiles, so that the block's loop runs four passes.
const TRANSPOSE_N: usize = 2 * TILE_DIM;

/// Small integers, so that every sum is exact in f32.
fn input(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i * 7 % 13) as f32).collect()
}

/// Launches `kernel` over `shape` with `input` and an output of `out_len` zeros; returns it.
fn launch_one<K: for<'k> Kernel<GalleryArgs<'k>>>(
    gpu: &Gpu,
    kernel: K,
    shape: LaunchShape,
    input: &[f32],
    out_len: usize,
) -> Result<Vec<f32>> {
    let input_d = gpu.upload(input)?;
    let mut out_d = gpu.zeros::<f32>(out_len)?;
    let args = GalleryArgs {
        input: input_d.view(),
        out: out_d.view_mut(),
        n: TRANSPOSE_N as u32,
    };
    crate::kernels(gpu)?.launch(kernel, shape, args)?;
    gpu.download(&out_d)
}

/// `BLOCKS` blocks of `BLOCK` threads with a tile of one f32 per thread.
fn shape_1d() -> LaunchShape {
    LaunchShape::new((BLOCKS as u32, 1, 1), (BLOCK as u32, 1, 1)).with_shared_bytes(Tile1d::<f32>::bytes(BLOCK) as u32)
}

fn tile_shift(gpu: &Gpu, racy: bool) -> Result<OutputAndExpected> {
    let x = input(BLOCKS * BLOCK);
    let out = match racy {
        true => launch_one(gpu, TileShiftRacy, shape_1d(), &x, x.len())?,
        false => launch_one(gpu, TileShift, shape_1d(), &x, x.len())?,
    };
    let expected = (0..x.len())
        .map(|i| 2.0 * x[i / BLOCK * BLOCK + (i % BLOCK + 64) % BLOCK])
        .collect();
    Ok((out, expected))
}

/// The sum of each block's inputs.
fn block_sums(x: &[f32]) -> Vec<f32> {
    x.chunks(BLOCK).map(|c| c.iter().sum()).collect()
}

fn tree_sum(gpu: &Gpu, racy: bool) -> Result<OutputAndExpected> {
    let x = input(BLOCKS * BLOCK);
    let out = match racy {
        true => launch_one(gpu, TreeSumRacy, shape_1d(), &x, BLOCKS)?,
        false => launch_one(gpu, TreeSum, shape_1d(), &x, BLOCKS)?,
    };
    Ok((out, block_sums(&x)))
}

fn warp_tail_sum(gpu: &Gpu, racy: bool) -> Result<OutputAndExpected> {
    let x = input(BLOCKS * BLOCK);
    let out = match racy {
        true => launch_one(gpu, WarpTailSumRacy, shape_1d(), &x, BLOCKS)?,
        false => launch_one(gpu, WarpTailSum, shape_1d(), &x, BLOCKS)?,
    };
    Ok((out, block_sums(&x)))
}

fn transpose_tiles(gpu: &Gpu, racy: bool) -> Result<OutputAndExpected> {
    let n = TRANSPOSE_N;
    let x = input(n * n);
    let shape = LaunchShape::new(
        (1, 1, 1),
        (TILE_DIM as u32, book_kernels::racecheck::gallery::BLOCK_ROWS as u32, 1),
    )
    .with_shared_bytes(TRANSPOSE_SHARED_BYTES as u32);
    let out = match racy {
        true => launch_one(gpu, TransposeTilesRacy, shape, &x, n * n)?,
        false => launch_one(gpu, TransposeTiles, shape, &x, n * n)?,
    };
    let expected = (0..n * n).map(|i| x[i % n * n + i / n]).collect();
    Ok((out, expected))
}

fn global_cell(gpu: &Gpu, racy: bool) -> Result<OutputAndExpected> {
    let shape = LaunchShape::new((BLOCKS as u32, 1, 1), (32, 1, 1));
    let out = match racy {
        true => launch_one(gpu, GlobalCellRacy, shape, &[0.0], 1)?,
        false => launch_one(gpu, GlobalCellAtomic, shape, &[0.0], 1)?,
    };
    Ok((out, vec![(1..=BLOCKS).sum::<usize>() as f32]))
}

/// On the simulator, the report on `case`'s racy kernel, with both detectors on; `Err` when the
/// launch did not fault.
pub fn simulator_report(gpu: &Gpu, case: &Case) -> std::result::Result<ferrocuda::sim::Fault, String> {
    match with_checks(Checks::ALL, || (case.launch)(gpu, true)) {
        Err(Error::Simulator(SimError::Fault(fault))) => Ok(fault),
        Err(other) => Err(format!("{}: expected a race report, got the error {other}", case.racy)),
        Ok(_) => Err(format!("{}: expected a race report, the launch ran clean", case.racy)),
    }
}

/// Runs each racy kernel and its twin; on the simulator, checks each report.
pub fn run(gpu: &Gpu, _: &Options) -> Result<Outcome> {
    let mut checks = Vec::new();
    for case in CASES {
        if gpu.is_simulator() {
            let flagged = match simulator_report(gpu, case) {
                Ok(fault) => {
                    println!("{}: flagged\n  {fault}", case.racy);
                    fault.kernel == case.racy && fault.message.contains(case.report)
                }
                Err(message) => {
                    println!("{message}");
                    false
                }
            };
            checks.push(Check::condition(&format!("{} flagged", case.racy), flagged));
        } else {
            (case.launch)(gpu, true)?;
            println!("ran {}", case.racy);
        }
        let (out, expected) = with_checks(Checks::ALL, || (case.launch)(gpu, false))?;
        println!("ran {}", case.twin);
        checks.push(Check::compare(case.twin, &out, &expected, Tolerance::EXACT));
    }
    Ok(Outcome { checks })
}
