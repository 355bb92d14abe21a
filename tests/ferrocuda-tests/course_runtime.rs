//! The IT4I course's runtime examples: hello world (kernel printing), the vector add in managed
//! memory, the pipelined vector add over streams, and the managed-memory API under them.
mod common;

use book_kernels::course::hello_world::RECORD_WORDS;
use common::{ChildAction, CpuTest, GpuTest, TestResult, ensure, fail, passes_with, run_args};
use ferrocuda::device::shared::Tile1d;
use ferrocuda::gpu::{Advice, ManagedBuffer};
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda::{Error, Gpu, KernelView, LaunchShape};
use ferrocuda_book::examples::course::hello_world::{self, compare_lines};
use ferrocuda_book::examples::course::vector_add_common::{Arrays, vector_add};
use ferrocuda_book::examples::course::vector_add_managed::{self, Migration};
use ferrocuda_book::examples::course::vector_add_streams::{self, Program, Setup};
use ferrocuda_book::reference::course::{hello_world as hello_reference, vector_add as add_reference};
use ferrocuda_testing::probe::{OutArgs, ProbeSharedReverse};

/// Sizes of the managed and streamed vector adds: one element, a block of 256 minus and plus
/// one, and a large non-multiple.
const SIZES: [usize; 4] = [1, 255, 257, 100_003];

/// Launch shapes `(blocks, threads)` of hello world: the course's, one thread, a warp plus and
/// minus one, a block of 256 plus and minus one.
const HELLO_SHAPES: [(usize, usize); 6] = [(2, 4), (1, 1), (1, 31), (3, 33), (2, 255), (2, 257)];

/// Child action: runs course-hello-world with `--blocks` and `--threads` and fails unless it
/// passed; its output is what the parent checks.
fn child_hello(args: &[&str]) -> TestResult {
    let [blocks, threads] = args else {
        return Err(format!("`hello` takes blocks and threads, not {args:?}"));
    };
    let gpu = common::gpu().as_ref().map_err(|e| e.to_string())?;
    passes_with(gpu, "course-hello-world", &["--blocks", blocks, "--threads", threads])
}

fn course_hello_world_reference_by_hand() -> TestResult {
    let lines = hello_reference::lines(2, 4);
    ensure(
        lines.len() == 8 && lines[5] == "Hello from thread 1/4, block 1/2, my global index is 5/8",
        || format!("{lines:?}"),
    )?;
    let records = hello_reference::records(2, 4);
    ensure(records[5 * RECORD_WORDS..6 * RECORD_WORDS] == [1, 4, 1, 2], || {
        format!("{records:?}")
    })
}

fn course_hello_world_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "course-hello-world", &[])
}

/// Each thread's record, at every shape; on the simulator also its printed line (captured).
fn course_hello_world_shapes(gpu: &Gpu) -> TestResult {
    for (blocks, threads) in HELLO_SHAPES {
        let words = blocks * threads * RECORD_WORDS;
        let mut records_d = gpu.upload(&vec![u32::MAX; words]).map_err(fail)?;
        let ((), printed) = gpu
            .capture_output(|| hello_world::say_hello(gpu, blocks, threads, &mut records_d))
            .map_err(fail)?;
        gpu.synchronize_output().map_err(fail)?;
        let check = Check::compare(
            "records",
            &gpu.download(&records_d).map_err(fail)?,
            &hello_reference::records(blocks, threads),
            Tolerance::EXACT,
        );
        ensure(check.passed(), || format!("<<<{blocks}, {threads}>>>: {check}"))?;
        if let Some(text) = printed {
            let lines = compare_lines("lines", &text, &hello_reference::lines(blocks, threads));
            ensure(lines.passed(), || format!("<<<{blocks}, {threads}>>>: {lines}\n{text}"))?;
        }
    }
    Ok(())
}

/// The program's standard output, read from a child process (the only place CUDA's device
/// `printf` can be read): the kernel's lines, each exactly once, between "Kernel was launched"
/// and "Kernel execution completed".
fn course_hello_world_standard_output(_gpu: &Gpu) -> TestResult {
    for (blocks, threads) in [(2, 4), (3, 33)] {
        let stdout = common::child_output(&format!("hello {blocks} {threads}"))?;
        let lines: Vec<&str> = stdout.lines().collect();
        let position = |text: &str| lines.iter().position(|l| l.starts_with(text));
        let launching = position(&format!(
            "Launching the kernel with {blocks} blocks, each with {threads} threads"
        ));
        let (launched, completed) = (
            position("Kernel was launched, waiting for its completion"),
            position("Kernel execution completed"),
        );
        let (Some(launching), Some(launched), Some(completed)) = (launching, launched, completed) else {
            return Err(format!("a host line is missing:\n{stdout}"));
        };
        let hello: Vec<&str> = lines[launched + 1..completed]
            .iter()
            .copied()
            .filter(|l| l.starts_with("Hello"))
            .collect();
        let check = compare_lines(
            "lines between the host's",
            &hello.join("\n"),
            &hello_reference::lines(blocks, threads),
        );
        let stray = lines.iter().filter(|l| l.starts_with("Hello")).count() - hello.len();
        ensure(launching < launched && check.passed() && stray == 0, || {
            format!("<<<{blocks}, {threads}>>>: {check}, {stray} lines elsewhere:\n{stdout}")
        })?;
    }
    Ok(())
}

fn course_hello_world_rejects_bad_shapes(gpu: &Gpu) -> TestResult {
    for (blocks, threads) in [(0, 4), (2, 0), (1, 1025), (9, 1024)] {
        let (b, t) = (blocks.to_string(), threads.to_string());
        let outcome = run_args(gpu, "course-hello-world", &["--blocks", &b, "--threads", &t]);
        ensure(matches!(outcome, Err(Error::InvalidArgument(_))), || {
            format!("<<<{blocks}, {threads}>>> was not refused")
        })?;
    }
    let mut short = gpu.zeros::<u32>(3).map_err(fail)?;
    ensure(hello_world::say_hello(gpu, 2, 4, &mut short).is_err(), || {
        "a record buffer of 3 words accepted".into()
    })
}

fn course_vector_add_managed_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "course-vector-add-managed", &["--size", "100003", "--reps", "2"])
}

/// Both migrations at every size: C is 3 everywhere (it starts as NaN, so a missed element
/// fails).
fn course_vector_add_managed_sizes(gpu: &Gpu) -> TestResult {
    for n in SIZES {
        let mut arrays = Arrays::new(gpu, n).map_err(fail)?;
        for migration in Migration::ALL {
            if migration == Migration::Prefetch && !arrays.a.can_prefetch() {
                continue;
            }
            let timing = vector_add_managed::run_once(gpu, &mut arrays, migration).map_err(fail)?;
            let c = arrays.c.to_vec().map_err(fail)?;
            ensure(timing.wrong == 0 && c.iter().all(|&x| x == 3.0), || {
                format!("n = {n}, {migration:?}: {} wrong", timing.wrong)
            })?;
        }
    }
    Ok(())
}

/// A kernel reads and writes managed memory the host wrote and reads, at every size; the
/// prefetches and hints leave the values alone.
fn managed_buffer_host_and_kernel_share_it(gpu: &Gpu) -> TestResult {
    for n in SIZES {
        let a: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
        let b: Vec<f32> = (0..n).map(|i| 7.0 - (i % 13) as f32).collect();
        let a_m = gpu.managed_from(&a).map_err(fail)?;
        let mut b_m = gpu.managed::<f32>(n).map_err(fail)?;
        ensure(b_m.as_slice().map_err(fail)?.iter().all(|&x| x == 0.0), || {
            format!("n = {n}: a new managed buffer is not zeroed")
        })?;
        b_m.as_mut_slice().map_err(fail)?.copy_from_slice(&b);
        let mut c_m = gpu.managed::<f32>(n).map_err(fail)?;
        ensure(
            (c_m.len(), c_m.num_bytes(), c_m.is_empty()) == (n, 4 * n, false),
            || format!("n = {n}: len {}, {} bytes", c_m.len(), c_m.num_bytes()),
        )?;
        for (buffer, advice) in [(&a_m, Advice::ReadMostly), (&b_m, Advice::PreferDevice)] {
            buffer.advise(advice).map_err(fail)?;
        }
        c_m.advise(Advice::AccessedByDevice).map_err(fail)?;
        if c_m.can_prefetch() {
            for buffer in [&a_m, &b_m, &c_m] {
                buffer.prefetch_to_device().map_err(fail)?;
            }
        }
        vector_add(gpu, &a_m, &b_m, &mut c_m).map_err(fail)?;
        if c_m.can_prefetch() {
            c_m.prefetch_to_host().map_err(fail)?;
        }
        let check = Check::compare(
            "c",
            c_m.as_slice().map_err(fail)?,
            &add_reference::vector_add(&a, &b).map_err(fail)?,
            Tolerance::EXACT,
        );
        ensure(check.passed(), || format!("n = {n}: {check}"))?;
        c_m.advise(Advice::PreferHost).map_err(fail)?;
    }
    let mut empty: ManagedBuffer<f32> = gpu.managed(0).map_err(fail)?;
    let empty_ok = empty.is_empty()
        && empty.as_slice().map_err(fail)?.is_empty()
        && empty.advise(Advice::ReadMostly).is_ok()
        && (!empty.can_prefetch() || empty.prefetch_to_device().is_ok());
    ensure(empty_ok, || "an empty managed buffer".into())
}

/// On the simulator, a fault of a kernel that wrote managed memory is reported by the host's
/// next access to it, as CUDA's synchronisation reports it: `probe_shared_reverse` over 10
/// elements in blocks of 4 reads past the end.
fn managed_buffer_reports_a_kernel_fault_on_the_simulator() -> TestResult {
    let gpu = Gpu::simulator();
    let mut out = gpu.managed_from(&[1i32; 10]).map_err(fail)?;
    let shape = LaunchShape::new((3, 1, 1), (4, 1, 1)).with_shared_bytes(Tile1d::<i32>::bytes(4) as u32);
    ferrocuda_testing::probes(&gpu)?
        .launch(ProbeSharedReverse, shape, OutArgs { out: out.view_mut() })
        .map_err(fail)?;
    match out.as_slice() {
        Err(Error::Simulator(e)) => ensure(e.to_string().contains("probe_shared_reverse"), || e.to_string()),
        Err(e) => Err(format!("another error: {e}")),
        Ok(_) => Err("the fault was not reported".into()),
    }
}

/// On CUDA, a device with concurrent managed access prefetches (an H100 has it).
fn managed_buffer_prefetches_on_cuda(gpu: &Gpu) -> TestResult {
    let buffer = gpu.managed::<f32>(1 << 20).map_err(fail)?;
    ensure(buffer.can_prefetch(), || {
        "this GPU has no concurrent managed access".into()
    })?;
    buffer.prefetch_to_device().map_err(fail)?;
    buffer.prefetch_to_host().map_err(fail)?;
    gpu.synchronize().map_err(fail)
}

fn course_vector_add_streams_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "course-vector-add-streams", &["--size", "100003", "--reps", "2"])
}

/// The pipelined and the non-pipelined programs at every size, with one chunk, chunks that do
/// not divide the size, and more streams than chunks.
fn course_vector_add_streams_sizes(gpu: &Gpu) -> TestResult {
    for n in SIZES {
        let mut setup = Setup::new(gpu, n, 4).map_err(fail)?;
        let (a, b) = vector_add_streams::inputs(n).map_err(fail)?;
        let expected = add_reference::vector_add(&a, &b).map_err(fail)?;
        let programs = [
            Program::NonPipelined,
            Program::Pipelined { chunks: 1, streams: 1 },
            Program::Pipelined {
                chunks: n.min(3),
                streams: 2,
            },
            Program::Pipelined {
                chunks: n.min(7),
                streams: 3,
            },
            Program::Pipelined {
                chunks: n.min(2),
                streams: 4,
            },
        ];
        for program in programs {
            let (_, c) = vector_add_streams::timed(gpu, &mut setup, program).map_err(fail)?;
            let check = Check::compare("c", &c, &expected, Tolerance::EXACT);
            ensure(check.passed(), || format!("n = {n}, {}: {check}", program.label()))?;
        }
    }
    Ok(())
}

fn course_vector_add_streams_rejects_bad_flags(gpu: &Gpu) -> TestResult {
    for (flag, value) in [
        ("--chunks", "0"),
        ("--chunks", "1001"),
        ("--streams", "0"),
        ("--streams", "65"),
        ("--chunks", "x"),
    ] {
        let args = ["--size", "1000", "--reps", "1", flag, value];
        ensure(
            matches!(
                run_args(gpu, "course-vector-add-streams", &args),
                Err(Error::InvalidArgument(_))
            ),
            || format!("{flag} {value} was not refused"),
        )?;
    }
    Ok(())
}

fn main() {
    let children: [ChildAction; 1] = [("hello", child_hello)];
    common::run_child_action(&children);
    let cpu_tests: Vec<CpuTest> = vec![
        (
            "course_hello_world_reference_by_hand",
            course_hello_world_reference_by_hand,
        ),
        (
            "managed_buffer_reports_a_kernel_fault_on_the_simulator",
            managed_buffer_reports_a_kernel_fault_on_the_simulator,
        ),
    ];
    let gpu_tests: Vec<GpuTest> = vec![
        ("course_hello_world_program", course_hello_world_program),
        ("course_hello_world_shapes", course_hello_world_shapes),
        ("course_hello_world_standard_output", course_hello_world_standard_output),
        (
            "course_hello_world_rejects_bad_shapes",
            course_hello_world_rejects_bad_shapes,
        ),
        ("course_vector_add_managed_program", course_vector_add_managed_program),
        ("course_vector_add_managed_sizes", course_vector_add_managed_sizes),
        (
            "managed_buffer_host_and_kernel_share_it",
            managed_buffer_host_and_kernel_share_it,
        ),
        ("course_vector_add_streams_program", course_vector_add_streams_program),
        ("course_vector_add_streams_sizes", course_vector_add_streams_sizes),
        (
            "course_vector_add_streams_rejects_bad_flags",
            course_vector_add_streams_rejects_bad_flags,
        ),
    ];
    let cuda_tests: Vec<GpuTest> = vec![("managed_buffer_prefetches_on_cuda", managed_buffer_prefetches_on_cuda)];
    common::main_with_cuda_only(cpu_tests, gpu_tests, cuda_tests)
}
