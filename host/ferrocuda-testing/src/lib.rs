//! Test support shared by ferrocuda's own tests (`host/ferrocuda/tests`) and the book's
//! (`tests/ferrocuda-tests`), so that neither links the other's code.
//!
//! The harness: every GPU test runs on device 0 when one is present and on the CPU simulator
//! when not, or as `FERROCUDA_BACKEND=auto|cuda|sim` says. Tests that need CUDA itself (streams,
//! PTX modules) or more GPUs than the machine has are reported as ignored, with the reason and
//! a count. Test binaries declare `harness = false` and call [`main`] (or a variant) with their
//! tests.
//!
//! The probes: one thin kernel per device-library primitive ([`probe`], the test-only kernel
//! crate `ferrocuda-probes`), whose PTX this crate embeds ([`PROBES`]).
use ferrocuda::gpu::BackendChoice;
use ferrocuda::{Error, Gpu, KernelSet, LoadedKernels};
use libtest_mimic::{Arguments, Trial};
use std::sync::OnceLock;

pub use ferrocuda_probes as probe;

/// The probe kernels' PTX, one module per architecture in `FERROCUDA_ARCHS` (default sm_90).
pub static PROBES: KernelSet = ferrocuda::include_kernels!("ferrocuda_probes");

/// The probe kernels on `gpu`.
pub fn probes(gpu: &Gpu) -> Result<LoadedKernels<'_>, String> {
    gpu.load(&PROBES).map_err(|e| e.to_string())
}

/// The library's own kernels (reductions, random fill, SOR, FFT) on `gpu`.
pub fn library(gpu: &Gpu) -> Result<LoadedKernels<'_>, String> {
    gpu.load(&ferrocuda::ptx::LIBRARY).map_err(|e| e.to_string())
}

/// A test's result: `Err` carries the failure message.
pub type TestResult = Result<(), String>;

/// A GPU test.
pub type GpuTest = (&'static str, fn(&Gpu) -> TestResult);

/// A test that needs no GPU.
pub type CpuTest = (&'static str, fn() -> TestResult);

/// Device 0 or the simulator, opened once per test binary; `Err` when `FERROCUDA_BACKEND` asks
/// for what is not there.
pub fn gpu() -> &'static Result<Gpu, Error> {
    static GPU: OnceLock<Result<Gpu, Error>> = OnceLock::new();
    GPU.get_or_init(|| Gpu::open(BackendChoice::from_env()?, 0).map(|(gpu, _)| gpu))
}

/// Runs `cpu_tests`, and `gpu_tests` on the GPU or the simulator, then exits with libtest's
/// status.
pub fn main(cpu_tests: Vec<CpuTest>, gpu_tests: Vec<GpuTest>) -> ! {
    main_with_cuda_only(cpu_tests, gpu_tests, vec![])
}

/// A test of several GPUs: its least GPU count, and the test, given every GPU of the machine.
pub type MultiGpuTest = (&'static str, usize, fn(&[&Gpu]) -> TestResult);

/// As [`main`], plus `cuda_tests`, which need a CUDA device and are ignored on the simulator.
pub fn main_with_cuda_only(cpu_tests: Vec<CpuTest>, gpu_tests: Vec<GpuTest>, cuda_tests: Vec<GpuTest>) -> ! {
    main_with_multi_gpu(cpu_tests, gpu_tests, cuda_tests, vec![])
}

/// As [`main_with_cuda_only`], plus `multi_gpu_tests`, each ignored (and counted as such) on a
/// machine with fewer CUDA GPUs than it needs.
pub fn main_with_multi_gpu(
    cpu_tests: Vec<CpuTest>,
    gpu_tests: Vec<GpuTest>,
    cuda_tests: Vec<GpuTest>,
    multi_gpu_tests: Vec<MultiGpuTest>,
) -> ! {
    run_trials(
        Arguments::from_args(),
        cpu_tests,
        gpu_tests,
        cuda_tests,
        multi_gpu_tests,
    )
}

/// As [`main`], one test at a time (unless `--test-threads` says otherwise): for test files
/// whose tests read the device's free memory, which a test allocating beside them would move
/// (libtest runs tests on parallel threads, all on GPU 0).
pub fn main_one_at_a_time(cpu_tests: Vec<CpuTest>, gpu_tests: Vec<GpuTest>) -> ! {
    let mut args = Arguments::from_args();
    args.test_threads = args.test_threads.or(Some(1));
    run_trials(args, cpu_tests, gpu_tests, vec![], vec![])
}

fn run_trials(
    args: Arguments,
    cpu_tests: Vec<CpuTest>,
    gpu_tests: Vec<GpuTest>,
    cuda_tests: Vec<GpuTest>,
    multi_gpu_tests: Vec<MultiGpuTest>,
) -> ! {
    let mut trials: Vec<Trial> = cpu_tests
        .into_iter()
        .map(|(name, test)| Trial::test(name, move || test().map_err(Into::into)))
        .collect();
    let on_simulator = gpu().as_ref().is_ok_and(Gpu::is_simulator);
    if !args.list {
        match gpu() {
            Ok(gpu) => eprintln!("GPU tests run on: {}", gpu.properties().name),
            Err(e) => eprintln!("GPU tests fail: {e}"),
        }
        if on_simulator && !cuda_tests.is_empty() {
            eprintln!("{} CUDA-only tests ignored: they need a CUDA device", cuda_tests.len());
        }
    }
    let run = |test: fn(&Gpu) -> TestResult| {
        move || match gpu() {
            Ok(gpu) => test(gpu).map_err(Into::into),
            Err(e) => Err(e.to_string().into()),
        }
    };
    trials.extend(gpu_tests.into_iter().map(|(name, test)| Trial::test(name, run(test))));
    trials.extend(
        cuda_tests
            .into_iter()
            .map(|(name, test)| Trial::test(name, run(test)).with_ignored_flag(on_simulator)),
    );
    let gpus_present = if on_simulator {
        0
    } else {
        ferrocuda::gpu::device_count().unwrap_or(0)
    };
    let too_few = multi_gpu_tests
        .iter()
        .filter(|(_, least, _)| gpus_present < *least)
        .count();
    if !args.list && too_few > 0 {
        eprintln!("{too_few} multi-GPU tests ignored: this machine has {gpus_present} CUDA GPU(s)");
    }
    trials.extend(multi_gpu_tests.into_iter().map(|(name, least, test)| {
        let all_gpus = move || -> TestResult {
            let first = gpu().as_ref().map_err(|e| e.to_string())?;
            let others = (1..gpus_present)
                .map(Gpu::new)
                .collect::<Result<Vec<_>, _>>()
                .map_err(fail)?;
            let gpus: Vec<&Gpu> = std::iter::once(first).chain(&others).collect();
            test(&gpus)
        };
        Trial::test(name, move || all_gpus().map_err(Into::into)).with_ignored_flag(gpus_present < least)
    }));
    libtest_mimic::run(&args, trials).exit()
}

/// Turns a library error into a test failure.
pub fn fail(e: Error) -> String {
    e.to_string()
}

/// Fails unless `holds`.
pub fn ensure(holds: bool, message: impl FnOnce() -> String) -> TestResult {
    if holds { Ok(()) } else { Err(message()) }
}

/// Sizes that break assumptions about a block size `b`: 1, 31, 33, b - 1, b + 1, and a
/// large non-multiple.
pub fn awkward_sizes(b: usize) -> Vec<usize> {
    vec![1, 31, 33, b - 1, b + 1, 100_003]
}

/// Sizes that break a tiled single-pass primitive with tiles of `tile` elements: none, one, a
/// partial warp, a tile ± 1, two tiles, more tiles than one look-back window (32), and large
/// non-multiples of everything.
pub const fn tiled_sizes(tile: usize) -> [usize; 10] {
    [
        0,
        1,
        31,
        tile - 1,
        tile,
        tile + 1,
        2 * tile,
        33 * tile + 5,
        100_003,
        1_000_003,
    ]
}

/// `n` seeded values in `0..modulus` (a 64-bit LCG), so that a wrong index shows.
pub fn seeded_values(n: usize, seed: u64, modulus: u64) -> Vec<u64> {
    let mut state = seed;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) % modulus
        })
        .collect()
}

/// The environment variable that turns a run of a test binary into one child action (see
/// [`child_output`]): the action's name, then its arguments, separated by spaces.
pub const CHILD_ENV: &str = "FERROCUDA_TEST_CHILD";

/// A program a test runs in a child process of its own binary, to read what it prints to
/// standard output (where CUDA writes the kernels' `printf` lines): its name, and the body,
/// given the arguments.
pub type ChildAction = (&'static str, fn(&[&str]) -> TestResult);

/// Call first in `main`: when this process is a child started by [`child_output`], runs the
/// action `CHILD_ENV` names and exits (status 1, the error on standard error, when it fails).
pub fn run_child_action(actions: &[ChildAction]) {
    let Ok(request) = std::env::var(CHILD_ENV) else {
        return;
    };
    let words: Vec<&str> = request.split_whitespace().collect();
    let result = match actions.iter().find(|(name, _)| words.first() == Some(name)) {
        Some((_, action)) => action(&words[1..]),
        None => Err(format!("no child action `{request}`")),
    };
    match result {
        Ok(()) => std::process::exit(0),
        Err(e) => {
            eprintln!("{e}");
            std::process::exit(1)
        }
    }
}

/// Runs this test binary again as a child that performs `request` (an action of
/// [`run_child_action`] and its arguments) on the same backend, and returns its standard
/// output; fails with its standard error when it fails.
pub fn child_output(request: &str) -> Result<String, String> {
    let exe = std::env::current_exe().map_err(|e| format!("cannot find the test binary: {e}"))?;
    let output = std::process::Command::new(exe)
        .env(CHILD_ENV, request)
        .output()
        .map_err(|e| format!("cannot start the child `{request}`: {e}"))?;
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    if output.status.success() {
        Ok(stdout)
    } else {
        Err(format!(
            "the child `{request}` failed ({}): {}\nits output:\n{stdout}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ))
    }
}
