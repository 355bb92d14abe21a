//! GPU-vs-CPU tests of STREAM (PGI article).
mod common;

use common::{GpuTest, TestResult, awkward_sizes, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda_book::example::Precision;
use ferrocuda_book::examples::stream::{self, Layout, Op, THREADS_PER_BLOCK};
use ferrocuda_book::reference::stream as reference;

fn stream_program_f32_and_f64(gpu: &Gpu) -> TestResult {
    for precision in ["f32", "f64"] {
        for n in awkward_sizes(THREADS_PER_BLOCK as usize) {
            passes_with(
                gpu,
                "stream",
                &["--size", &n.to_string(), "--precision", precision, "--reps", "2"],
            )
            .map_err(|e| format!("{precision}, n = {n}: {e}"))?;
        }
    }
    Ok(())
}

fn stream_each_kernel_block_shapes(gpu: &Gpu) -> TestResult {
    let n = 10_007;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 - i as f32 * 0.125).collect();
    let (a_d, b_d) = (gpu.upload(&a).map_err(fail)?, gpu.upload(&b).map_err(fail)?);
    let s = 0.4f32;
    for (threads, layout) in [1, 7, 32, 65, 128, 1024]
        .into_iter()
        .flat_map(|t| Layout::ALL.map(|l| (t, l)))
    {
        for op in Op::ALL {
            let mut c_d = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
            let expected: Vec<f32> = match op {
                Op::Copy => a.clone(),
                Op::Scale => a.iter().map(|&x| s * x).collect(),
                Op::Add => a.iter().zip(&b).map(|(x, y)| x + y).collect(),
                Op::Triad => reference::triad(&a, &b, s).map_err(fail)?,
            };
            match op {
                Op::Copy | Op::Scale => stream::unary(gpu, op, layout, &a_d, &mut c_d, s, threads),
                Op::Add | Op::Triad => stream::binary(gpu, op, layout, [&a_d, &b_d], &mut c_d, s, threads),
            }
            .map_err(fail)?;
            let check = Check::compare(
                op.label(),
                &gpu.download(&c_d).map_err(fail)?,
                &expected,
                Tolerance::EXACT,
            );
            ensure(check.passed(), || format!("{threads} threads, {layout:?}: {check}"))?;
        }
    }
    Ok(())
}

fn stream_triad_four_per_thread_tails(gpu: &Gpu) -> TestResult {
    for n in [1, 2, 3, 4, 5, 2047, 2049] {
        let a: Vec<f64> = (0..n).map(|i| i as f64).collect();
        let b: Vec<f64> = (0..n).map(|i| 0.5 + i as f64).collect();
        let (a_d, b_d) = (gpu.upload(&a).map_err(fail)?, gpu.upload(&b).map_err(fail)?);
        let mut c_d = gpu.upload(&vec![f64::NAN; n]).map_err(fail)?;
        stream::binary(gpu, Op::Triad, Layout::FourPerThread, [&a_d, &b_d], &mut c_d, 3.0, 128).map_err(fail)?;
        let check = Check::compare(
            "c",
            &gpu.download(&c_d).map_err(fail)?,
            &reference::triad(&a, &b, 3.0).map_err(fail)?,
            Tolerance::EXACT,
        );
        ensure(check.passed(), || format!("n = {n}: {check}"))?;
    }
    Ok(())
}

/// Views that start off a 16-byte boundary take the scalar path of the `_vec4` kernels.
fn stream_vec4_unaligned_views(gpu: &Gpu) -> TestResult {
    use book_kernels::stream::{BinaryArgs, StreamTriadVec4};
    use ferrocuda::KernelView;
    let n = 1027;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let a_d = gpu.upload(&a).map_err(fail)?;
    let mut c_d = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
    for offset in 1..4 {
        let len = n - offset;
        // SAFETY: both views lie inside their live allocations (offset + len == n).
        let (view_a, view_c) = unsafe {
            (
                ferrocuda::Slice::from_raw_parts(a_d.view().as_ptr().add(offset), len),
                ferrocuda::SliceMut::from_raw_parts(c_d.view_mut().as_mut_ptr().add(offset), len),
            )
        };
        let shape = ferrocuda::LaunchShape::cover_1d(len.div_ceil(4), 64).map_err(fail)?;
        common::book(gpu)?
            .launch(
                StreamTriadVec4,
                shape,
                BinaryArgs {
                    a: view_a,
                    b: view_a,
                    c: view_c,
                    scalar: 2.0f32,
                },
            )
            .map_err(fail)?;
        let got = gpu.download(&c_d).map_err(fail)?;
        let expected = reference::triad(&a[offset..], &a[offset..], 2.0).map_err(fail)?;
        let check = Check::compare("c", &got[offset..], &expected, Tolerance::EXACT);
        ensure(check.passed(), || format!("offset {offset}: {check}"))?;
    }
    Ok(())
}

fn stream_reference_sequence() -> TestResult {
    // One round from (a, b, c) = (2, 0.5, 0) with s = 0.4: c = 2, b = 0.8, c = 2.8, a = 0.8 + 1.12.
    let [a, b, c] =
        reference::sequence_range(0..1, |_| (2.0f64, 0.5, 0.0), 0.4, 1, reference::triad_element).map_err(fail)?;
    ensure(
        (a[0] - 1.92).abs() < 1e-12 && (b[0] - 0.8).abs() < 1e-12 && (c[0] - 2.8).abs() < 1e-12,
        || format!("{a:?} {b:?} {c:?}"),
    )?;
    // A range starting past 0 starts from its own elements' initial values.
    let [a, _, _] =
        reference::sequence_range(5..7, stream::initial::<f64>, 0.4, 1, reference::triad_element).map_err(fail)?;
    let (a5, b5, c5) = stream::initial::<f64>(5);
    ensure(
        a == [
            reference::sequence_element(a5, b5, c5, 0.4, 1, reference::triad_element).0,
            a[1],
        ] && a[0] != a[1],
        || format!("{a:?}"),
    )?;
    // Arrays of different lengths are refused rather than read past the shortest.
    ensure(reference::triad(&[2.0f64, 1.0], &[0.5], 0.4).is_err(), || {
        "arrays of different lengths were accepted".into()
    })
}

/// Sizes just past one verification chunk, in the default precision (f64, the article's):
/// the second chunk's elements are compared at their own offsets (a chunk verified against the
/// wrong initial values fails).
fn stream_verifies_across_chunks(gpu: &Gpu) -> TestResult {
    let n = stream::VERIFY_CHUNK + 3;
    defaults_to_f64()?;
    passes_with(gpu, "stream", &["--size", &n.to_string(), "--reps", "1"]).map_err(|e| format!("n = {n}: {e}"))
}

/// The run given no option: the article's f64 arrays of N = 1,000,000.
fn stream_default_is_the_articles(gpu: &Gpu) -> TestResult {
    ensure(stream::N == 1_000_000, || format!("N = {}", stream::N))?;
    defaults_to_f64()?;
    passes_with(gpu, "stream", &["--reps", "1"])
}

/// `stream` runs in the article's f64 given no `--precision`.
fn defaults_to_f64() -> TestResult {
    let precision = ferrocuda_book::registry::find("stream")
        .ok_or("no example stream")?
        .precisions()[0];
    ensure(precision == Precision::F64, || {
        format!("stream defaults to {precision}, not the article's f64")
    })
}

/// Views the arguments declare equal in length, of other lengths: refused before the launch,
/// with the kernel and both lengths named; nothing is written.
fn stream_triad_refuses_views_of_other_lengths(gpu: &Gpu) -> TestResult {
    use book_kernels::stream::{BinaryArgs, StreamTriad};
    use ferrocuda::{KernelView, LaunchShape};
    let a_d = gpu.upload(&vec![1.0f32; 1000]).map_err(fail)?;
    let b_d = gpu.upload(&vec![2.0f32; 500]).map_err(fail)?;
    let mut c_d = gpu.zeros::<f32>(1000).map_err(fail)?;
    let args = BinaryArgs {
        a: a_d.view(),
        b: b_d.view(),
        c: c_d.view_mut(),
        scalar: 3.0,
    };
    let shape = LaunchShape::cover_1d(1000, 256).map_err(fail)?;
    let message = match common::book(gpu)?.launch(StreamTriad, shape, args) {
        Err(e) => e.to_string(),
        Ok(()) => return Err("a triad over views of 1000, 500 and 1000 elements was launched".into()),
    };
    ensure(
        message.contains("stream_triad_f32") && message.contains("1000") && message.contains("500"),
        || format!("the error does not name the kernel and the lengths: {message}"),
    )?;
    ensure(gpu.download(&c_d).map_err(fail)?.iter().all(|&c| c == 0.0), || {
        "the refused launch wrote to c".into()
    })
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        (
            "stream_triad_refuses_views_of_other_lengths",
            stream_triad_refuses_views_of_other_lengths,
        ),
        ("stream_program_f32_and_f64", stream_program_f32_and_f64),
        ("stream_each_kernel_block_shapes", stream_each_kernel_block_shapes),
        ("stream_triad_four_per_thread_tails", stream_triad_four_per_thread_tails),
        ("stream_vec4_unaligned_views", stream_vec4_unaligned_views),
        ("stream_verifies_across_chunks", stream_verifies_across_chunks),
        ("stream_default_is_the_articles", stream_default_is_the_articles),
    ];
    common::main(
        vec![("stream_reference_sequence", stream_reference_sequence)],
        gpu_tests,
    )
}
