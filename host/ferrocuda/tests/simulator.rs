//! The CPU simulator's own checks: deliberately broken kernels and launches are stopped with a
//! message naming kernel, block and thread, never a hang; refused shapes are launch errors; a
//! fault surfaces at the next synchronisation, as on CUDA. Runs on the simulator everywhere.
use ferrocuda_testing as common;

use common::{CpuTest, TestResult, ensure, fail};
use ferrocuda::device::shared::Tile1d;
use ferrocuda_sim::{Fault, SimError};
mod broken_kernels;
use broken_kernels::{
    BrokenBarriersInBothBranches, BrokenDivergentBarrier, BrokenIndexPastTheEnd, BrokenReverseWithoutBarrier,
    BrokenTileIndexPastTheEnd,
};
use ferrocuda::{Error, Gpu, KernelSet, KernelView, LaunchShape};
use ferrocuda_testing::probe::{OutArgs, ProbeSharedReverse, ProbeWarp, WARP_FIELDS, WarpArgs};

/// This test's own kernels: the simulator runs their bodies, so the set needs no PTX.
static BROKEN: KernelSet = KernelSet::new(env!("CARGO_CRATE_NAME"), &[]);

/// Launches `kernel` on the simulator and returns the fault the next synchronisation reports.
fn fault_of(launch: impl FnOnce(&Gpu) -> ferrocuda::Result<()>) -> Result<Fault, String> {
    let sim = Gpu::simulator();
    launch(&sim).map_err(fail)?;
    match sim.synchronize() {
        Err(Error::Simulator(SimError::Fault(fault))) => Ok(fault),
        other => Err(format!("expected a simulator fault, got {other:?}")),
    }
}

fn reverse_shape(threads: u32, blocks: u32, shared_elements: usize) -> LaunchShape {
    LaunchShape::new((blocks, 1, 1), (threads, 1, 1)).with_shared_bytes(Tile1d::<i32>::bytes(shared_elements) as u32)
}

fn sim_missing_barrier_is_caught() -> TestResult {
    let fault = fault_of(|sim| {
        let mut data = sim.upload(&(0..256).collect::<Vec<i32>>())?;
        sim.load(&BROKEN)?.launch(
            BrokenReverseWithoutBarrier,
            reverse_shape(128, 2, 128),
            OutArgs { out: data.view_mut() },
        )
    })?;
    let text = fault.to_string();
    ensure(
        fault.kernel == "broken_reverse_without_barrier" && fault.thread.is_some() && text.contains("never written"),
        || format!("unexpected report: {text}"),
    )
}

fn sim_barrier_not_reached_is_caught() -> TestResult {
    let fault = fault_of(|sim| {
        let mut data = sim.zeros::<i32>(64)?;
        sim.load(&BROKEN)?.launch(
            BrokenDivergentBarrier,
            LaunchShape::new((1, 1, 1), (64, 1, 1)),
            OutArgs { out: data.view_mut() },
        )
    })?;
    let text = fault.to_string();
    ensure(
        text.contains("a barrier inside a branch that not every thread takes: 32 of 64 threads wait")
            && text.contains("broken_kernels.rs:")
            && text.contains("block (0, 0, 0)")
            && text.contains("thread ("),
        || format!("unexpected report: {text}"),
    )
}

/// Half the block at one `__syncthreads`, half at another: named as a divergent barrier, with
/// both lines.
fn sim_divergent_barriers_are_named() -> TestResult {
    let fault = fault_of(|sim| {
        let mut data = sim.zeros::<i32>(64)?;
        sim.load(&BROKEN)?.launch(
            BrokenBarriersInBothBranches,
            LaunchShape::new((1, 1, 1), (64, 1, 1)),
            OutArgs { out: data.view_mut() },
        )
    })?;
    let text = fault.to_string();
    let lines = text.matches("broken_kernels.rs:").count();
    ensure(
        text.contains("a barrier inside a divergent branch") && lines == 2,
        || format!("unexpected report: {text}"),
    )
}

/// An index past a view names the argument's field, the index, the length and the kernel's line;
/// past a shared tile, the tile.
fn sim_index_out_of_bounds_names_the_view_and_line() -> TestResult {
    let fault = fault_of(|sim| {
        let mut data = sim.zeros::<i32>(64)?;
        sim.load(&BROKEN)?.launch(
            BrokenIndexPastTheEnd,
            LaunchShape::new((1, 1, 1), (64, 1, 1)),
            OutArgs { out: data.view_mut() },
        )
    })?;
    let text = fault.to_string();
    ensure(
        text.contains("index 64 is out of bounds of the argument `out` (64 elements), at ")
            && text.contains("broken_kernels.rs:")
            && text.contains("thread (63, 0, 0)"),
        || format!("unexpected report: {text}"),
    )?;
    let fault = fault_of(|sim| {
        let mut data = sim.zeros::<i32>(32)?;
        sim.load(&BROKEN)?.launch(
            BrokenTileIndexPastTheEnd,
            reverse_shape(32, 1, 32),
            OutArgs { out: data.view_mut() },
        )
    })?;
    let text = fault.to_string();
    ensure(
        text.contains("index 32 is out of bounds of a shared tile of 32 elements, at ")
            && text.contains("broken_kernels.rs:"),
        || format!("unexpected report: {text}"),
    )
}

fn sim_shared_out_of_bounds_is_caught() -> TestResult {
    // The kernel needs a tile of blockDim.x elements; the launch provides half of it.
    let fault = fault_of(|sim| {
        let mut data = sim.zeros::<i32>(128)?;
        sim.load(&ferrocuda_testing::PROBES)?.launch(
            ProbeSharedReverse,
            reverse_shape(128, 1, 64),
            OutArgs { out: data.view_mut() },
        )
    })?;
    let text = fault.to_string();
    ensure(
        fault.kernel == "probe_shared_reverse"
            && text.contains("out of bounds")
            && text.contains("256 bytes this launch provides"),
        || format!("unexpected report: {text}"),
    )
}

/// A launch that provides fewer shared bytes than a `shared_layout!` declares stops in the
/// kernel before any tile is touched, with a fault that names the layout.
fn sim_short_shared_layout_is_caught() -> TestResult {
    use ferrocuda_testing::probe::collective::{BLOCK_SCAN_FIELDS, BlockScanShared, ProbeBlockScan, ScanProbeArgs};
    let fault = fault_of(|sim| {
        let input = sim.upload(&[1u32; 64])?;
        let mut out = sim.zeros::<u32>(BLOCK_SCAN_FIELDS * 64)?;
        let short = LaunchShape::new((1, 1, 1), (64, 1, 1)).with_shared_bytes(BlockScanShared::bytes() as u32 - 4);
        sim.load(&ferrocuda_testing::PROBES)?.launch(
            ProbeBlockScan,
            short,
            ScanProbeArgs {
                input: input.view(),
                out: out.view_mut(),
            },
        )
    })?;
    let text = fault.to_string();
    ensure(
        text.contains(
            "the launch provides 128 bytes of dynamic shared memory, and the shared layout `BlockScanShared` needs 132",
        ),
        || format!("unexpected report: {text}"),
    )
}

fn sim_shuffle_with_absent_lanes_is_caught() -> TestResult {
    // A full-warp shuffle in a 20-thread block: lanes 20..32 never arrive.
    let fault = fault_of(|sim| {
        let input = sim.zeros::<i32>(20)?;
        let mut out = sim.zeros::<i32>(WARP_FIELDS * 20)?;
        sim.load(&ferrocuda_testing::PROBES)?.launch(
            ProbeWarp,
            LaunchShape::new((1, 1, 1), (20, 1, 1)),
            WarpArgs {
                input: input.view(),
                out: out.view_mut(),
            },
        )
    })?;
    let text = fault.to_string();
    ensure(
        text.contains("cannot complete") && text.contains("never arrive"),
        || format!("unexpected report: {text}"),
    )
}

fn sim_refuses_what_cuda_refuses() -> TestResult {
    let sim = Gpu::simulator();
    let mut data = sim.zeros::<i32>(4096).map_err(fail)?;
    for (shape, what) in [
        (LaunchShape::new((1, 1, 1), (1025, 1, 1)), "1025 threads"),
        (LaunchShape::new((1, 1, 1), (1, 1, 65)), "block z of 65"),
        (LaunchShape::new((0, 1, 1), (32, 1, 1)), "an empty grid"),
        (reverse_shape(32, 1, 228 * 1024 / 4), "228 KiB of shared memory"),
    ] {
        match sim.load(&ferrocuda_testing::PROBES).map_err(fail)?.launch(
            ProbeSharedReverse,
            shape,
            OutArgs { out: data.view_mut() },
        ) {
            Err(e) if e.is_invalid_launch() => {}
            other => return Err(format!("{what}: expected a refused launch, got {other:?}")),
        }
    }
    Ok(())
}

fn sim_fault_surfaces_at_synchronize_and_clears() -> TestResult {
    let sim = Gpu::simulator();
    let mut data = sim.zeros::<i32>(64).map_err(fail)?;
    let shape = LaunchShape::new((1, 1, 1), (64, 1, 1));
    sim.load(&BROKEN)
        .map_err(fail)?
        .launch(BrokenDivergentBarrier, shape, OutArgs { out: data.view_mut() })
        .map_err(fail)?;
    ensure(sim.download(&data).is_err(), || {
        "the copy after a faulting launch succeeded".into()
    })?;
    // Unlike a CUDA context, the simulator is usable again once the fault is reported.
    let mut data = sim.upload(&(0..64).collect::<Vec<i32>>()).map_err(fail)?;
    sim.load(&ferrocuda_testing::PROBES)
        .map_err(fail)?
        .launch(
            ProbeSharedReverse,
            reverse_shape(64, 1, 64),
            OutArgs { out: data.view_mut() },
        )
        .map_err(fail)?;
    let reversed = sim.download(&data).map_err(fail)?;
    ensure(reversed == (0..64).rev().collect::<Vec<i32>>(), || {
        "no recovery after a fault".into()
    })
}

fn sim_large_grid_of_cooperating_blocks() -> TestResult {
    // Many blocks with barriers, spread over the host's cores: every block reversed exactly.
    let sim = Gpu::simulator();
    let (threads, blocks) = (96u32, 3000u32);
    let n = (threads * blocks) as usize;
    let mut data = sim.upload(&(0..n as i32).collect::<Vec<_>>()).map_err(fail)?;
    sim.load(&ferrocuda_testing::PROBES)
        .map_err(fail)?
        .launch(
            ProbeSharedReverse,
            reverse_shape(threads, blocks, threads as usize),
            OutArgs { out: data.view_mut() },
        )
        .map_err(fail)?;
    let got = sim.download(&data).map_err(fail)?;
    let expected: Vec<i32> = (0..n as i32)
        .collect::<Vec<_>>()
        .chunks(threads as usize)
        .flat_map(|c| c.iter().rev().copied())
        .collect();
    ensure(got == expected, || "blocks disagree".into())
}

fn main() {
    let tests: Vec<CpuTest> = vec![
        ("sim_missing_barrier_is_caught", sim_missing_barrier_is_caught),
        ("sim_barrier_not_reached_is_caught", sim_barrier_not_reached_is_caught),
        ("sim_short_shared_layout_is_caught", sim_short_shared_layout_is_caught),
        ("sim_divergent_barriers_are_named", sim_divergent_barriers_are_named),
        (
            "sim_index_out_of_bounds_names_the_view_and_line",
            sim_index_out_of_bounds_names_the_view_and_line,
        ),
        ("sim_shared_out_of_bounds_is_caught", sim_shared_out_of_bounds_is_caught),
        (
            "sim_shuffle_with_absent_lanes_is_caught",
            sim_shuffle_with_absent_lanes_is_caught,
        ),
        ("sim_refuses_what_cuda_refuses", sim_refuses_what_cuda_refuses),
        (
            "sim_fault_surfaces_at_synchronize_and_clears",
            sim_fault_surfaces_at_synchronize_and_clears,
        ),
        (
            "sim_large_grid_of_cooperating_blocks",
            sim_large_grid_of_cooperating_blocks,
        ),
    ];
    common::main(tests, vec![])
}
