//! GPU-vs-CPU tests of the scans: the device-wide ones (`ferrocuda::scan`) and the warp and block
//! collectives under them (`ferrocuda_device::collective`, through the probes).
use ferrocuda_testing as common;

use common::probe::collective::{
    BLOCK_SCAN_FIELDS, BlockScanShared, ProbeBlockScan, ProbeScanLastNonzero, ProbeWarpScan, ScanProbeArgs,
    WARP_SCAN_FIELDS,
};
use common::{GpuTest, TestResult, ensure, fail};
use ferrocuda::scan::{self, Mode, Op, Plan, SCAN_TILE, Scan};
use ferrocuda::{DeviceBuffer, Gpu, KernelView, LaunchShape};

const SIZES: [usize; 10] = common::tiled_sizes(SCAN_TILE);
/// Block sizes of the block-scan probe (partial warps, one thread, the maximum).
const THREADS: [u32; 6] = [1, 7, 32, 65, 128, 1024];

use common::seeded_values as values;

/// The CPU scan of `input` with `op` after `initial`, left to right.
fn cpu_scan<T: Copy>(input: &[T], mode: Mode, initial: T, op: impl Fn(T, T) -> T) -> Vec<T> {
    let mut running = initial;
    input
        .iter()
        .map(|&x| {
            let before = running;
            running = op(running, x);
            if mode == Mode::Inclusive { running } else { before }
        })
        .collect()
}

fn cpu_op<T: Scan + PartialOrd + std::ops::Add<Output = T>>(op: Op) -> impl Fn(T, T) -> T {
    move |a, b| match op {
        Op::Sum => a + b,
        Op::Min => {
            if b < a {
                b
            } else {
                a
            }
        }
        Op::Max => {
            if b > a {
                b
            } else {
                a
            }
        }
    }
}

/// Every op and mode on `input`, with one plan reused for all, against the CPU exactly (the
/// values keep every partial sum exact in any order).
fn check_all<T>(gpu: &Gpu, input: &[T]) -> TestResult
where
    T: Scan + PartialOrd + std::fmt::Debug + std::ops::Add<Output = T>,
{
    let input_d = gpu.upload(input).map_err(fail)?;
    let mut output_d = gpu.zeros::<T>(input.len()).map_err(fail)?;
    let mut plan = Plan::<T>::new(gpu, input.len()).map_err(fail)?;
    for op in [Op::Sum, Op::Min, Op::Max] {
        for mode in [Mode::Inclusive, Mode::Exclusive] {
            plan.scan(gpu, None, op, mode, op.identity(), &input_d, &mut output_d)
                .map_err(fail)?;
            let got = gpu.download(&output_d).map_err(fail)?;
            let want = cpu_scan(input, mode, op.identity(), cpu_op::<T>(op));
            let first_wrong = got.iter().zip(&want).position(|(g, w)| g != w);
            ensure(first_wrong.is_none(), || {
                let i = first_wrong.unwrap_or(0);
                format!(
                    "{op:?} {mode:?} {} of {}: element {i} is {:?}, expected {:?}",
                    std::any::type_name::<T>(),
                    input.len(),
                    got[i],
                    want[i]
                )
            })?;
        }
    }
    Ok(())
}

fn scan_every_type_op_and_size(gpu: &Gpu) -> TestResult {
    for (k, &n) in SIZES.iter().enumerate() {
        let v = values(n, k as u64, 2001);
        check_all(gpu, &v.iter().map(|&x| x as i32 - 1000).collect::<Vec<i32>>())?;
        check_all(gpu, &v.iter().map(|&x| x as u32).collect::<Vec<u32>>())?;
        check_all(gpu, &v.iter().map(|&x| x * 3_000_000_000).collect::<Vec<u64>>())?;
        // Small integers: every partial sum of at most 2^20 values below 4 is exact in f32.
        check_all(gpu, &v.iter().map(|&x| (x % 4) as f32).collect::<Vec<f32>>())?;
        check_all(gpu, &v.iter().map(|&x| x as f64 - 1000.0).collect::<Vec<f64>>())?;
    }
    Ok(())
}

/// `ferrocuda::scan::inclusive_sum` and its siblings, for `i32`.
type ScanFunction = fn(&Gpu, &DeviceBuffer<i32>, &mut DeviceBuffer<i32>) -> ferrocuda::Result<()>;

/// The convenience functions, and an initial value.
fn scan_functions_and_initial_value(gpu: &Gpu) -> TestResult {
    let v: Vec<i32> = values(10_007, 3, 100).into_iter().map(|x| x as i32 - 50).collect();
    let input_d = gpu.upload(&v).map_err(fail)?;
    let mut out_d = gpu.zeros::<i32>(v.len()).map_err(fail)?;
    let sum = |a: i32, b: i32| a + b;
    let cases: [(&str, ScanFunction, Vec<i32>); 4] = [
        (
            "inclusive_sum",
            scan::inclusive_sum,
            cpu_scan(&v, Mode::Inclusive, 0, sum),
        ),
        (
            "exclusive_sum",
            scan::exclusive_sum,
            cpu_scan(&v, Mode::Exclusive, 0, sum),
        ),
        (
            "inclusive_min",
            scan::inclusive_min,
            cpu_scan(&v, Mode::Inclusive, i32::MAX, i32::min),
        ),
        (
            "inclusive_max",
            scan::inclusive_max,
            cpu_scan(&v, Mode::Inclusive, i32::MIN, i32::max),
        ),
    ];
    for (name, function, want) in cases {
        function(gpu, &input_d, &mut out_d).map_err(fail)?;
        ensure(gpu.download(&out_d).map_err(fail)? == want, || {
            format!("{name} differs from the CPU")
        })?;
    }
    let mut plan = Plan::<i32>::new(gpu, v.len()).map_err(fail)?;
    for mode in [Mode::Inclusive, Mode::Exclusive] {
        plan.scan(gpu, None, Op::Sum, mode, 1000, &input_d, &mut out_d)
            .map_err(fail)?;
        ensure(
            gpu.download(&out_d).map_err(fail)? == cpu_scan(&v, mode, 1000, sum),
            || format!("{mode:?} sum after 1000 differs from the CPU"),
        )?;
    }
    Ok(())
}

/// One plan for buffers of several lengths up to its capacity; a longer one, or an output of
/// another length, is refused in a sentence, with nothing launched.
fn scan_plan_capacity_and_lengths(gpu: &Gpu) -> TestResult {
    let mut plan = Plan::<u32>::new(gpu, 3 * SCAN_TILE).map_err(fail)?;
    for n in [3 * SCAN_TILE, 5, SCAN_TILE + 7, 0] {
        let v: Vec<u32> = values(n, n as u64, 7).into_iter().map(|x| x as u32).collect();
        let input_d = gpu.upload(&v).map_err(fail)?;
        let mut out_d = gpu.zeros::<u32>(n).map_err(fail)?;
        plan.scan(gpu, None, Op::Sum, Mode::Inclusive, 0, &input_d, &mut out_d)
            .map_err(fail)?;
        ensure(
            gpu.download(&out_d).map_err(fail)? == cpu_scan(&v, Mode::Inclusive, 0, |a, b| a + b),
            || format!("n = {n} with a plan of {}", plan.capacity()),
        )?;
    }
    let long = gpu.zeros::<u32>(3 * SCAN_TILE + 1).map_err(fail)?;
    let mut long_out = gpu.zeros::<u32>(3 * SCAN_TILE + 1).map_err(fail)?;
    let refused = plan.scan(gpu, None, Op::Sum, Mode::Inclusive, 0, &long, &mut long_out);
    ensure(
        refused.as_ref().is_err_and(|e| e.to_string().contains("cannot scan")),
        || format!("past the capacity: {refused:?}"),
    )?;
    let input_d = gpu.zeros::<u32>(10).map_err(fail)?;
    let mut short = gpu.zeros::<u32>(9).map_err(fail)?;
    let refused = scan::inclusive_sum(gpu, &input_d, &mut short);
    ensure(
        refused
            .as_ref()
            .is_err_and(|e| e.to_string().contains("needs an output of 10")),
        || format!("an output of another length: {refused:?}"),
    )
}

/// A device-wide scan with an operation of a kernel crate's own (`probe_scan_last_nonzero`),
/// planned with `Plan::scan_with`: the look-back must combine earlier tiles first.
fn scan_with_a_users_operation(gpu: &Gpu) -> TestResult {
    let probes = common::probes(gpu)?;
    let last_non_zero = |a: u32, b: u32| if b != 0 { b } else { a };
    for (k, &n) in SIZES.iter().enumerate() {
        // Mostly zeros, so a value travels across tiles.
        let v: Vec<u32> = values(n, k as u64 + 40, 100_000)
            .into_iter()
            .map(|x| if x % 5003 == 0 { x as u32 + 1 } else { 0 })
            .collect();
        let input_d = gpu.upload(&v).map_err(fail)?;
        let mut out_d = gpu.zeros::<u32>(n).map_err(fail)?;
        let mut plan = Plan::<u32>::new(gpu, n).map_err(fail)?;
        for mode in [Mode::Inclusive, Mode::Exclusive] {
            plan.scan_with(&probes, None, ProbeScanLastNonzero, mode, 7, &input_d, &mut out_d)
                .map_err(fail)?;
            ensure(
                gpu.download(&out_d).map_err(fail)? == cpu_scan(&v, mode, 7, last_non_zero),
                || format!("last non-zero {mode:?} of {n}"),
            )?;
        }
    }
    Ok(())
}

/// A plan restarted after a scan: the next scan reuses the first epoch, so descriptors or tickets
/// the restart failed to zero would be read as this scan's.
fn scan_plan_restart(gpu: &Gpu) -> TestResult {
    let n = 40 * SCAN_TILE + 3;
    let mut plan = Plan::<u32>::new(gpu, n).map_err(fail)?;
    let mut out_d = gpu.zeros::<u32>(n).map_err(fail)?;
    for seed in [1, 2] {
        let v: Vec<u32> = values(n, seed, 1000).into_iter().map(|x| x as u32).collect();
        let input_d = gpu.upload(&v).map_err(fail)?;
        plan.scan(gpu, None, Op::Sum, Mode::Inclusive, 0, &input_d, &mut out_d)
            .map_err(fail)?;
        ensure(
            gpu.download(&out_d).map_err(fail)? == cpu_scan(&v, Mode::Inclusive, 0, |a, b| a + b),
            || format!("the scan of seed {seed} (after a restart: {})", seed > 1),
        )?;
        plan.restart(&common::library(gpu)?, None).map_err(fail)?;
    }
    Ok(())
}

/// A launch of more threads per block than a kernel's launch bounds allow is refused in a
/// sentence, on either backend (`scan_sum_f32` declares `max_threads = 128`).
fn scan_launch_bounds_refuse_larger_blocks(gpu: &Gpu) -> TestResult {
    use ferrocuda::device::collective::grid::{ScanArgs, scan_shared_bytes};
    use ferrocuda::kernels::scan::ScanSum;
    let input_d = gpu.upload(&[1.0f32; 256]).map_err(fail)?;
    let mut out_d = gpu.zeros::<f32>(256).map_err(fail)?;
    let mut status = gpu.zeros::<u64>(1).map_err(fail)?;
    let mut tile_values = gpu.zeros::<f32>(2).map_err(fail)?;
    let mut counter = gpu.zeros::<u32>(1).map_err(fail)?;
    let args = ScanArgs {
        input: input_d.view(),
        output: out_d.view_mut(),
        tile_status: status.view_mut(),
        tile_values: tile_values.view_mut(),
        tile_counter: counter.view_mut(),
        initial: 0.0,
        exclusive: 0,
        epoch: 1,
        ticket_base: 0,
    };
    let shape = LaunchShape::new((1, 1, 1), (256, 1, 1)).with_shared_bytes(scan_shared_bytes::<f32>() as u32);
    let refused = common::library(gpu)?.launch(ScanSum, shape, args);
    ensure(
        refused
            .as_ref()
            .is_err_and(|e| e.to_string().contains("more than its launch bound of 128")),
        || format!("256 threads for a kernel bounded at 128: {refused:?}"),
    )
}

/// A scan on a stream of its own.
fn scan_on_a_stream(gpu: &Gpu) -> TestResult {
    let v: Vec<u64> = values(50_001, 9, 1 << 40);
    let input_d = gpu.upload(&v).map_err(fail)?;
    let mut out_d = gpu.zeros::<u64>(v.len()).map_err(fail)?;
    let stream = gpu.new_stream().map_err(fail)?;
    let mut plan = Plan::<u64>::new(gpu, v.len()).map_err(fail)?;
    plan.scan(gpu, Some(&stream), Op::Sum, Mode::Exclusive, 0, &input_d, &mut out_d)
        .map_err(fail)?;
    gpu.synchronize_stream(&stream).map_err(fail)?;
    ensure(
        gpu.download(&out_d).map_err(fail)? == cpu_scan(&v, Mode::Exclusive, 0, |a, b| a + b),
        || "the exclusive u64 sum on a stream differs from the CPU".into(),
    )
}

/// The warp scans against the CPU, per warp.
fn warp_scans(gpu: &Gpu) -> TestResult {
    let n = 4 * 32;
    let v: Vec<u32> = values(n, 11, 4)
        .into_iter()
        .map(|x| x as u32 * (x as u32 % 3))
        .collect();
    let input_d = gpu.upload(&v).map_err(fail)?;
    let mut out_d = gpu.zeros::<u32>(WARP_SCAN_FIELDS * n).map_err(fail)?;
    let args = ScanProbeArgs {
        input: input_d.view(),
        out: out_d.view_mut(),
    };
    common::probes(gpu)?
        .launch(ProbeWarpScan, LaunchShape::new((2, 1, 1), (64, 1, 1)), args)
        .map_err(fail)?;
    let out = gpu.download(&out_d).map_err(fail)?;
    for warp in v.chunks(32).enumerate() {
        let (w, lanes) = warp;
        let inclusive = cpu_scan(lanes, Mode::Inclusive, 0, |a, b| a + b);
        let exclusive = cpu_scan(lanes, Mode::Exclusive, 0, |a, b| a + b);
        let last = cpu_scan(lanes, Mode::Inclusive, 0, |a, b| if b != 0 { b } else { a });
        for lane in 0..32 {
            let got = &out[WARP_SCAN_FIELDS * (32 * w + lane)..][..WARP_SCAN_FIELDS];
            let want = [inclusive[lane], exclusive[lane], inclusive[31], last[lane]];
            ensure(got == want, || {
                format!("warp {w} lane {lane}: {got:?}, expected {want:?}")
            })?;
        }
    }
    Ok(())
}

/// The block scans and the all-reduce at every block size, against the CPU, per block.
fn block_scans(gpu: &Gpu) -> TestResult {
    for threads in THREADS {
        let blocks = 3;
        let n = blocks * threads as usize;
        let v: Vec<u32> = values(n, threads as u64, 9).into_iter().map(|x| x as u32 % 5).collect();
        let input_d = gpu.upload(&v).map_err(fail)?;
        let mut out_d = gpu.zeros::<u32>(BLOCK_SCAN_FIELDS * n).map_err(fail)?;
        let args = ScanProbeArgs {
            input: input_d.view(),
            out: out_d.view_mut(),
        };
        let shape =
            LaunchShape::new((blocks as u32, 1, 1), (threads, 1, 1)).with_shared_bytes(BlockScanShared::bytes() as u32);
        common::probes(gpu)?.launch(ProbeBlockScan, shape, args).map_err(fail)?;
        let out = gpu.download(&out_d).map_err(fail)?;
        for (b, block) in v.chunks(threads as usize).enumerate() {
            let sum = |a: u32, x: u32| a + x;
            let last = |a: u32, x: u32| if x != 0 { x } else { a };
            let inclusive = cpu_scan(block, Mode::Inclusive, 0, sum);
            let exclusive = cpu_scan(block, Mode::Exclusive, 0, sum);
            let last_inclusive = cpu_scan(block, Mode::Inclusive, 0, last);
            let last_exclusive = cpu_scan(block, Mode::Exclusive, 0, last);
            let total = inclusive[block.len() - 1];
            for t in 0..block.len() {
                let got = &out[BLOCK_SCAN_FIELDS * (b * threads as usize + t)..][..BLOCK_SCAN_FIELDS];
                let want = [
                    inclusive[t],
                    exclusive[t],
                    total,
                    total,
                    last_inclusive[t],
                    last_exclusive[t],
                ];
                ensure(got == want, || {
                    format!("{threads} threads, block {b}, thread {t}: {got:?}, expected {want:?}")
                })?;
            }
        }
    }
    Ok(())
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("scan_every_type_op_and_size", scan_every_type_op_and_size),
        ("scan_functions_and_initial_value", scan_functions_and_initial_value),
        ("scan_plan_capacity_and_lengths", scan_plan_capacity_and_lengths),
        ("scan_with_a_users_operation", scan_with_a_users_operation),
        ("scan_on_a_stream", scan_on_a_stream),
        ("scan_plan_restart", scan_plan_restart),
        (
            "scan_launch_bounds_refuse_larger_blocks",
            scan_launch_bounds_refuse_larger_blocks,
        ),
        ("warp_scans", warp_scans),
        ("block_scans", block_scans),
    ];
    common::main(vec![], gpu_tests)
}
