//! racecheck-gallery: each racy kernel of `book_kernels::racecheck::gallery` once, then its
//! correct twin.
//!
//! On the simulator (both race detectors on, whatever `FERROCUDA_SIM_CHECKS` says), every racy
//! kernel must be stopped with the report its race calls for, and every twin must run clean and
//! right. On a GPU, every kernel simply runs and its name is printed, so that the output of
//! `compute-sanitizer --tool racecheck` over this run can be matched to the kernels (racecheck
//! sees shared memory only: it cannot flag `global_cell_racy`); the twins' results are checked.
use crate::example::{Example, NoOptions, Outcome, Run};
use book_kernels::racecheck::gallery::{
    BLOCK, BLOCK_ROWS, GalleryArgs, GlobalCellAtomic, GlobalCellRacy, TILE_DIM, TRANSPOSE_SHARED_BYTES, TileShift,
    TileShiftRacy, TransposeTiles, TransposeTilesRacy, TreeSum, TreeSumRacy, WarpTailSum, WarpTailSumRacy,
};
use ferrocuda::device::shared::Tile1d;
use ferrocuda::gpu::{Error, Gpu, LaunchShape, Result};
use ferrocuda::sim::{Checks, SimError, with_checks};
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda::{Kernel, KernelView};

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
        launch: |gpu, racy| block_sum(gpu, racy, (TreeSumRacy, TreeSum)),
    },
    Case {
        racy: "warp_tail_sum_racy",
        twin: "warp_tail_sum",
        report: "lanes of warp 0, which sm_70+ does not run in lockstep",
        launch: |gpu, racy| block_sum(gpu, racy, (WarpTailSumRacy, WarpTailSum)),
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

/// Launches the racy kernel of `kernels` (`racy`) or its twin over `shape` with `input` and an
/// output of `out_len` zeros; returns the output.
fn launch_one<R, T>(
    gpu: &Gpu,
    racy: bool,
    kernels: (R, T),
    shape: LaunchShape,
    input: &[f32],
    out_len: usize,
) -> Result<Vec<f32>>
where
    R: for<'k> Kernel<GalleryArgs<'k>>,
    T: for<'k> Kernel<GalleryArgs<'k>>,
{
    let input_d = gpu.upload(input)?;
    let mut out_d = gpu.zeros::<f32>(out_len)?;
    let args = GalleryArgs {
        input: input_d.view(),
        out: out_d.view_mut(),
        n: TRANSPOSE_N as u32,
    };
    match racy {
        true => crate::kernels(gpu)?.launch(kernels.0, shape, args)?,
        false => crate::kernels(gpu)?.launch(kernels.1, shape, args)?,
    }
    gpu.download(&out_d)
}

/// `BLOCKS` blocks of `BLOCK` threads with a tile of one f32 per thread.
fn shape_1d() -> LaunchShape {
    LaunchShape::new((BLOCKS as u32, 1, 1), (BLOCK as u32, 1, 1)).with_shared_bytes(Tile1d::<f32>::bytes(BLOCK) as u32)
}

fn tile_shift(gpu: &Gpu, racy: bool) -> Result<OutputAndExpected> {
    let x = input(BLOCKS * BLOCK);
    let out = launch_one(gpu, racy, (TileShiftRacy, TileShift), shape_1d(), &x, x.len())?;
    let expected = (0..x.len())
        .map(|i| 2.0 * x[i / BLOCK * BLOCK + (i % BLOCK + 64) % BLOCK])
        .collect();
    Ok((out, expected))
}

/// Each block's sum of its inputs, with `kernels` (the tree or the warp's tail).
fn block_sum<R, T>(gpu: &Gpu, racy: bool, kernels: (R, T)) -> Result<OutputAndExpected>
where
    R: for<'k> Kernel<GalleryArgs<'k>>,
    T: for<'k> Kernel<GalleryArgs<'k>>,
{
    let x = input(BLOCKS * BLOCK);
    let out = launch_one(gpu, racy, kernels, shape_1d(), &x, BLOCKS)?;
    Ok((out, x.chunks(BLOCK).map(|c| c.iter().sum()).collect()))
}

fn transpose_tiles(gpu: &Gpu, racy: bool) -> Result<OutputAndExpected> {
    let n = TRANSPOSE_N;
    let x = input(n * n);
    let shape = LaunchShape::new((1, 1, 1), (TILE_DIM as u32, BLOCK_ROWS as u32, 1))
        .with_shared_bytes(TRANSPOSE_SHARED_BYTES as u32);
    let out = launch_one(gpu, racy, (TransposeTilesRacy, TransposeTiles), shape, &x, n * n)?;
    Ok((out, (0..n * n).map(|i| x[i % n * n + i / n]).collect()))
}

fn global_cell(gpu: &Gpu, racy: bool) -> Result<OutputAndExpected> {
    let shape = LaunchShape::new((BLOCKS as u32, 1, 1), (32, 1, 1));
    let out = launch_one(gpu, racy, (GlobalCellRacy, GlobalCellAtomic), shape, &[0.0], 1)?;
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

/// racecheck-gallery.
pub struct RacecheckGallery;

impl Example for RacecheckGallery {
    const ID: &'static str = "racecheck-gallery";
    const DESCRIPTION: &'static str = "kernels each missing one barrier, and their twins: the simulator's race detector flags each \
                  (on a GPU: run it under compute-sanitizer --tool racecheck)";
    type Args = NoOptions;

    /// Runs each racy kernel and its twin; on the simulator, checks each report.
    fn run(gpu: &Gpu, _run: &Run<NoOptions>) -> Result<Outcome> {
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
}
