//! GPU-vs-CPU tests of the book's chapter 1 examples.
mod common;

use common::{GpuTest, TestResult, awkward_sizes, ensure, fail, passes_with};
use ferrocuda::device::variable::{DeviceVariable, Variable};
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda::{Error, Gpu};
use ferrocuda_book::examples::ch1::{
    devicequery, error_handling, increment_2d, increment_launch, precision, separate_compilation,
};
use ferrocuda_book::reference::ch1 as reference;
use std::sync::Mutex;

/// Block shapes that break assumptions, as CUB's block tests vary them.
const THREADS_PER_BLOCK: [u32; 6] = [1, 7, 32, 65, 128, 1024];

/// Inputs that differ per element, so a wrong index shows.
fn ramp(n: usize) -> Vec<i32> {
    (0..n as i32).map(|i| i.wrapping_mul(7919) % 1000).collect()
}

fn compare_increment(
    gpu: &Gpu,
    n: usize,
    run: impl FnOnce(&mut ferrocuda::DeviceBuffer<i32>) -> ferrocuda::Result<()>,
) -> TestResult {
    let mut a = ramp(n);
    let mut a_d = gpu.upload(&a).map_err(fail)?;
    run(&mut a_d).map_err(fail)?;
    let got = gpu.download(&a_d).map_err(fail)?;
    reference::increment::increment(&mut a, 3);
    let check = Check::compare("a", &got, &a, Tolerance::EXACT);
    ensure(check.passed(), || format!("n = {n}: {check}"))
}

fn ch1_increment_book_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch1-increment", &[])
}

fn ch1_increment_one_block_sizes(gpu: &Gpu) -> TestResult {
    for n in [1, 31, 32, 33, 255, 256, 257, 1023, 1024] {
        compare_increment(gpu, n, |a_d| increment_launch::increment_one_block(gpu, a_d, 3))?;
    }
    Ok(())
}

fn ch1_increment_rejects_more_than_one_block(gpu: &Gpu) -> TestResult {
    let mut a_d = gpu.upload(&vec![0; 1025]).map_err(fail)?;
    match increment_launch::increment_one_block(gpu, &mut a_d, 3) {
        Err(Error::InvalidArgument(_)) => Ok(()),
        other => Err(format!("expected an invalid-argument error, got {other:?}")),
    }
}

fn ch1_increment_multiblock_book_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch1-increment-multiblock", &[])
}

fn ch1_increment_multiblock_sizes_and_blocks(gpu: &Gpu) -> TestResult {
    for threads in THREADS_PER_BLOCK {
        for n in awkward_sizes(256) {
            compare_increment(gpu, n, |a_d| increment_launch::increment(gpu, a_d, 3, threads))
                .map_err(|e| format!("{threads} threads per block: {e}"))?;
        }
    }
    Ok(())
}

fn ch1_increment_2d_book_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch1-increment-2d", &[])
}

fn ch1_increment_2d_non_multiple_extents(gpu: &Gpu) -> TestResult {
    for block in [(32, 8), (16, 16), (7, 5), (1, 1)] {
        for (nx, ny) in [(1, 1), (31, 33), (33, 9), (1000, 7), (1, 257)] {
            compare_increment(gpu, nx * ny, |a_d| increment_2d::increment(gpu, a_d, nx, ny, 3, block))
                .map_err(|e| format!("{nx} x {ny}, block {block:?}: {e}"))?;
        }
    }
    Ok(())
}

fn ch1_precision_f32_and_f64_bit_exact(gpu: &Gpu) -> TestResult {
    for precision in ["f32", "f64"] {
        for n in awkward_sizes(256) {
            passes_with(
                gpu,
                "ch1-precision",
                &["--size", &n.to_string(), "--precision", precision],
            )
            .map_err(|e| format!("{precision}, n = {n}: {e}"))?;
        }
    }
    Ok(())
}

fn ch1_precision_one_source_two_precisions(gpu: &Gpu) -> TestResult {
    // The same inputs in both precisions: f32 lands within its epsilon of the f64 result.
    let n = 4097;
    let x: Vec<f64> = (0..n).map(|i| 1.0 / (i as f64 + 1.0)).collect();
    let y: Vec<f64> = (0..n).map(|i| i as f64 / 3.0).collect();
    let (x32, y32): (Vec<f32>, Vec<f32>) = (
        x.iter().map(|&v| v as f32).collect(),
        y.iter().map(|&v| v as f32).collect(),
    );
    let (x_d, mut y_d) = (gpu.upload(&x).map_err(fail)?, gpu.upload(&y).map_err(fail)?);
    let (x32_d, mut y32_d) = (gpu.upload(&x32).map_err(fail)?, gpu.upload(&y32).map_err(fail)?);
    precision::axpy(gpu, 2.0 / 3.0, &x_d, &mut y_d).map_err(fail)?;
    precision::axpy(gpu, 2.0f32 / 3.0, &x32_d, &mut y32_d).map_err(fail)?;
    let wide = gpu.download(&y_d).map_err(fail)?;
    let narrow: Vec<f64> = gpu.download(&y32_d).map_err(fail)?.into_iter().map(f64::from).collect();
    // Three roundings of the inputs and one of the result, each at most half an f32 ulp.
    let check = Check::compare(
        "f32 vs f64",
        &narrow,
        &wide,
        Tolerance {
            abs: 1e-6,
            rel: 2.0 * f32::EPSILON as f64,
        },
    );
    ensure(check.passed(), || check.to_string())
}

fn ch1_error_handling_invalid_configuration(gpu: &Gpu) -> TestResult {
    let too_many = gpu.properties().max_threads_per_block + 1;
    let (sync, asynchronous) = error_handling::launch_and_sync(gpu, too_many as usize, too_many).map_err(fail)?;
    let err = sync.err().ok_or("a launch of too many threads per block succeeded")?;
    ensure(err.is_invalid_launch(), || format!("unexpected error: {err}"))?;
    ensure(
        err.to_string().contains("`increment`") && err.to_string().contains("1025"),
        || format!("the error does not name the kernel and its block size: {err}"),
    )?;
    ensure(asynchronous.is_ok(), || "a refused launch left an error behind".into())
}

/// The trap poisons the CUDA context for the rest of the process, so the whole example runs in
/// a child process: this test binary, started again to run only `ch1_error_handling_child`.
fn ch1_error_handling_fault_in_child_process(_gpu: &Gpu) -> TestResult {
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let out = std::process::Command::new(exe)
        .args(["--exact", CHILD, "--test-threads", "1", "--nocapture"])
        .env(CHILD_ENV, "1")
        .output()
        .map_err(|e| e.to_string())?;
    let stdout = String::from_utf8_lossy(&out.stdout);
    ensure(out.status.success() && stdout.contains("1 passed"), || {
        format!("child failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr))
    })?;
    let reported = stdout
        .lines()
        .filter(|l| l.contains("Async kernel error:") && l.contains("`increment`"))
        .count();
    ensure(reported == 1, || {
        format!("the fault is not reported once, naming the kernel:\n{stdout}")
    })
}

const CHILD: &str = "ch1_error_handling_child";
const CHILD_ENV: &str = "FERROCUDA_TEST_CHILD";

fn ch1_error_handling_child(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch1-error-handling", &[])
}

fn ch1_devicequery_runs(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "ch1-devicequery", &[])
}

/// The device variables of ch1-separate-compilation are one per process on the simulator (and
/// one per loaded module on CUDA, whose modules this binary's one `Gpu` shares): the tests that
/// write them take this lock, so that parallel tests do not interleave their writes.
static VARIABLES: Mutex<()> = Mutex::new(());

fn ch1_separate_compilation_book_program(gpu: &Gpu) -> TestResult {
    let _serial = VARIABLES.lock().unwrap_or_else(|p| p.into_inner());
    passes_with(gpu, "ch1-separate-compilation", &[])
}

/// Both programs on several values, signs and magnitudes, twice each (the variables keep their
/// values between launches, so a stale value would show).
fn ch1_separate_compilation_programs(gpu: &Gpu) -> TestResult {
    let _serial = VARIABLES.lock().unwrap_or_else(|p| p.into_inner());
    for (x, y) in [(2, 3), (3, 2), (-7, 11), (0, 0), (1 << 30, -(1 << 29)), (-1, -1)] {
        for _ in 0..2 {
            let sum = separate_compilation::two_plus_three(gpu, x, y).map_err(fail)?;
            ensure(sum == x + y, || format!("{x}+{y}={sum}"))?;
            let (difference, negated) = separate_compilation::two_minus_three(gpu, x, y).map_err(fail)?;
            ensure(difference == x - y && negated == -y, || {
                format!("{x}-{y}={difference}, d_d = {negated}")
            })?;
        }
    }
    Ok(())
}

/// c_m's PTX declares negate_d and D_D and holds no body of negate_d; d_m's defines both.
fn ch1_separate_compilation_ptx_is_separate() -> TestResult {
    separate_compilation::check_ptx(&ferrocuda_book::C_M, &ferrocuda_book::D_M)?;
    let c_m = ferrocuda_book::C_M.modules().next().ok_or("no PTX embedded for c_m")?;
    ensure(c_m.ptx.contains("call.uni negate_d"), || {
        "c_minus_d does not call negate_d".into()
    })?;
    ensure(
        c_m.ptx.contains("ld.volatile.global.b32") && c_m.ptx.contains("[D_D]"),
        || "c_minus_d does not read D_D from global memory".into(),
    )
}

/// Loaded alone (without relocatable linking, as the book's "Illegal call of a device routine
/// from another module"), or linked without d_m, c_m is refused with a sentence naming what it
/// lacks.
fn ch1_separate_compilation_unresolved_symbols_refused(gpu: &Gpu) -> TestResult {
    let alone = gpu.load(&ferrocuda_book::C_M).err().ok_or("c_m loaded alone")?;
    let linked_alone = gpu.link(&[&ferrocuda_book::C_M]).err().ok_or("c_m linked alone")?;
    for error in [alone, linked_alone] {
        let text = error.to_string();
        ensure(matches!(error, Error::Link(_)) && text.contains("negate_d"), || {
            format!("not a link error naming negate_d: {text}")
        })?;
        ensure(!text.contains('\n'), || format!("not one sentence: {text}"))?;
    }
    let twice = gpu.link(&[&ferrocuda_book::C_M, &ferrocuda_book::C_M]).err();
    ensure(matches!(twice, Some(Error::InvalidArgument(_))), || {
        format!("a set listed twice was not refused: {twice:?}")
    })
}

/// A handle naming `A_D` (4 bytes) with an 8-byte type, as a hand-written `Variable` could.
struct AdAsF64 {}
impl Variable for AdAsF64 {
    type Value = f64;
    const NAME: &'static str = "A_D";
    fn on_host() -> &'static DeviceVariable<f64> {
        static WRONG: DeviceVariable<f64> = DeviceVariable::new(0.0);
        &WRONG
    }
}

fn ch1_separate_compilation_wrong_size_refused(gpu: &Gpu) -> TestResult {
    let kernels = ferrocuda_book::kernels(gpu).map_err(fail)?;
    let write = kernels.write_variable::<AdAsF64>(1.0).err();
    let read = kernels.read_variable::<AdAsF64>().err();
    for error in [write, read] {
        let text = error.as_ref().map(ToString::to_string).unwrap_or_default();
        ensure(
            matches!(error, Some(Error::InvalidArgument(_))) && text.contains("`A_D`") && text.contains("4 bytes"),
            || format!("a handle of the wrong size was not refused: {error:?}"),
        )?;
    }
    Ok(())
}

/// `A_D` is book_kernels' variable: the linked c_m and d_m have none, and say so.
fn ch1_separate_compilation_missing_symbol_refused(gpu: &Gpu) -> TestResult {
    use book_kernels::ch1::separate_compilation::a_m::A_D;
    let linked = gpu.link(&[&ferrocuda_book::C_M, &ferrocuda_book::D_M]).map_err(fail)?;
    let write = linked.write_variable::<A_D>(1).err();
    let read = linked.read_variable::<A_D>().err();
    for error in [write, read] {
        let text = error.as_ref().map(ToString::to_string).unwrap_or_default();
        ensure(
            matches!(error, Some(Error::InvalidArgument(_))) && text.contains("no device variable `A_D`"),
            || format!("a variable the module lacks was not refused: {error:?}"),
        )?;
    }
    Ok(())
}

/// One device: the course's peer lines say there is no pair to query.
fn ch1_devicequery_peer_lines_one_device(gpu: &Gpu) -> TestResult {
    let lines = devicequery::peer_lines(&[gpu]).map_err(fail)?;
    ensure(lines.len() == 1 && lines[0].contains("no pair"), || {
        format!("{lines:?}")
    })
}

/// Every ordered pair of GPUs gets its line, `Peer access from A (GPUi) -> B (GPUj) : Yes|No`.
fn ch1_devicequery_peer_lines_every_pair(gpus: &[&Gpu]) -> TestResult {
    let lines = devicequery::peer_lines(gpus).map_err(fail)?;
    let n = gpus.len();
    ensure(lines.len() == n * (n - 1), || format!("{n} GPUs, lines {lines:?}"))?;
    ensure(
        lines
            .iter()
            .all(|l| l.starts_with("Peer access from ") && (l.ends_with(" : Yes") || l.ends_with(" : No"))),
        || format!("{lines:?}"),
    )
}

fn ch1_increment_reference() -> TestResult {
    let mut a = vec![1; 300];
    reference::increment::increment(&mut a, 3);
    ensure(a.iter().all(|&x| x == 4), || "the CPU increment is wrong".into())
}

fn main() {
    let mut gpu_tests: Vec<GpuTest> = vec![
        ("ch1_increment_book_program", ch1_increment_book_program),
        ("ch1_increment_one_block_sizes", ch1_increment_one_block_sizes),
        (
            "ch1_increment_rejects_more_than_one_block",
            ch1_increment_rejects_more_than_one_block,
        ),
        (
            "ch1_increment_multiblock_book_program",
            ch1_increment_multiblock_book_program,
        ),
        (
            "ch1_increment_multiblock_sizes_and_blocks",
            ch1_increment_multiblock_sizes_and_blocks,
        ),
        ("ch1_increment_2d_book_program", ch1_increment_2d_book_program),
        (
            "ch1_increment_2d_non_multiple_extents",
            ch1_increment_2d_non_multiple_extents,
        ),
        (
            "ch1_precision_f32_and_f64_bit_exact",
            ch1_precision_f32_and_f64_bit_exact,
        ),
        (
            "ch1_precision_one_source_two_precisions",
            ch1_precision_one_source_two_precisions,
        ),
        (
            "ch1_error_handling_invalid_configuration",
            ch1_error_handling_invalid_configuration,
        ),
        (
            "ch1_error_handling_fault_in_child_process",
            ch1_error_handling_fault_in_child_process,
        ),
        ("ch1_devicequery_runs", ch1_devicequery_runs),
        (
            "ch1_separate_compilation_book_program",
            ch1_separate_compilation_book_program,
        ),
        ("ch1_separate_compilation_programs", ch1_separate_compilation_programs),
        (
            "ch1_separate_compilation_unresolved_symbols_refused",
            ch1_separate_compilation_unresolved_symbols_refused,
        ),
        (
            "ch1_separate_compilation_wrong_size_refused",
            ch1_separate_compilation_wrong_size_refused,
        ),
        (
            "ch1_separate_compilation_missing_symbol_refused",
            ch1_separate_compilation_missing_symbol_refused,
        ),
        (
            "ch1_devicequery_peer_lines_one_device",
            ch1_devicequery_peer_lines_one_device,
        ),
    ];
    let mut multi_gpu_tests: Vec<common::MultiGpuTest> = vec![(
        "ch1_devicequery_peer_lines_every_pair",
        2,
        ch1_devicequery_peer_lines_every_pair,
    )];
    if std::env::var_os(CHILD_ENV).is_some() {
        gpu_tests = vec![(CHILD, ch1_error_handling_child)];
        multi_gpu_tests.clear();
    }
    common::main_with_multi_gpu(
        vec![
            ("ch1_increment_reference", ch1_increment_reference),
            (
                "ch1_separate_compilation_ptx_is_separate",
                ch1_separate_compilation_ptx_is_separate,
            ),
        ],
        gpu_tests,
        vec![],
        multi_gpu_tests,
    )
}
