//! GPU-vs-CPU tests of the IT4I course examples.
mod common;

use common::{GpuTest, TestResult, awkward_sizes, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda_book::examples::course::histogram::{self, Data, Variant as HistoVariant};
use ferrocuda_book::examples::course::reduction::{self, Plan, Variant};
use ferrocuda_book::examples::course::{vector_add, vector_add_common};
use ferrocuda_book::reference::course as reference;

/// The course's program (A = 1, B = 2) and the varied inputs, at the default size and one past
/// a block.
fn course_vector_add_program(gpu: &Gpu) -> TestResult {
    for inputs in [&[][..], &["--inputs", "course"], &["--inputs", "varied"]] {
        for size in [&[][..], &["--size", "257"]] {
            let args = [inputs, size, &["--reps", "2"]].concat();
            passes_with(gpu, "course-vector-add", &args).map_err(|e| format!("{args:?}: {e}"))?;
        }
    }
    Ok(())
}

/// Hands-on 3 on 1, 2 (the course's) and 3 logical devices, at sizes smaller than the device
/// count, one past a block, and odd; `--devices 0` is refused.
fn course_vector_add_multi_program(gpu: &Gpu) -> TestResult {
    for devices in ["1", "2", "3"] {
        for n in ["1", "2", "257", "1001"] {
            passes_with(
                gpu,
                "course-vector-add-multi",
                &["--size", n, "--reps", "1", "--devices", devices],
            )
            .map_err(|e| format!("--devices {devices}, n = {n}: {e}"))?;
        }
    }
    passes_with(gpu, "course-vector-add-multi", &["--reps", "1"])?;
    ensure(
        crate::common::run_args(gpu, "course-vector-add-multi", &["--devices", "0"]).is_err(),
        || "--devices 0 was accepted".into(),
    )
}

/// The split: the course's `n0 = floor(n/2)`, `n1 = n - n0` on two devices; on any count the
/// pieces cover `0..n` in order, without gaps, differing in length by at most one.
fn course_vector_add_multi_pieces() -> TestResult {
    use ferrocuda_book::examples::course::vector_add_multi::piece;
    for n in [0, 1, 2, 3, 10_000_000, 10_000_001] {
        ensure(
            piece(n, 2, 0).len() == n / 2 && piece(n, 2, 1).len() == n - n / 2,
            || format!("n = {n}: {:?} {:?}", piece(n, 2, 0), piece(n, 2, 1)),
        )?;
        for devices in 1..=7 {
            let pieces: Vec<_> = (0..devices).map(|i| piece(n, devices, i)).collect();
            let contiguous = pieces.windows(2).all(|w| w[0].end == w[1].start);
            let (min, max) = (
                pieces.iter().map(|p| p.len()).min().unwrap_or(0),
                pieces.iter().map(|p| p.len()).max().unwrap_or(0),
            );
            ensure(
                pieces[0].start == 0 && pieces[devices - 1].end == n && contiguous && max - min <= 1,
                || format!("n = {n}, {devices} devices: {pieces:?}"),
            )?;
        }
    }
    Ok(())
}

/// The course's inputs are 1 and 2 everywhere; the varied ones differ from element to element.
fn course_vector_add_inputs() -> TestResult {
    use vector_add::Inputs;
    ensure((0..1000).all(|i| Inputs::Course.element(i) == (1.0, 2.0)), || {
        "the course's inputs are not A = 1, B = 2".into()
    })?;
    ensure(Inputs::Varied.element(0) != Inputs::Varied.element(1), || {
        "the varied inputs do not vary".into()
    })?;
    let example = ferrocuda_book::registry::find("course-vector-add").ok_or("no course-vector-add")?;
    let parsed = ferrocuda_book::cli::command(example).try_get_matches_from(["--inputs", "other"]);
    ensure(parsed.is_err(), || "--inputs other was accepted".into())
}

fn course_vector_add_sizes(gpu: &Gpu) -> TestResult {
    for n in awkward_sizes(vector_add_common::THREADS_PER_BLOCK as usize) {
        let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
        let b: Vec<f32> = (0..n).map(|i| 0.5 * i as f32 - 3.0).collect();
        let (a_d, b_d) = (gpu.upload(&a).map_err(fail)?, gpu.upload(&b).map_err(fail)?);
        let mut c_d = gpu.upload(&vec![f32::NAN; n]).map_err(fail)?;
        vector_add_common::vector_add(gpu, &a_d, &b_d, &mut c_d).map_err(fail)?;
        let check = Check::compare(
            "c",
            &gpu.download(&c_d).map_err(fail)?,
            &reference::vector_add::vector_add(&a, &b).map_err(fail)?,
            Tolerance::EXACT,
        );
        ensure(check.passed(), || format!("n = {n}: {check}"))?;
    }
    Ok(())
}

fn course_vector_add_reference() -> TestResult {
    ensure(
        reference::vector_add::vector_add(&[1.0, 2.0], &[2.0, 0.5]).unwrap() == vec![3.0, 2.5],
        || "CPU vector add".into(),
    )
}

fn course_reduction_program(gpu: &Gpu) -> TestResult {
    passes_with(gpu, "course-reduction", &["--size", "100003", "--reps", "2"])
}

/// Both kernels at sizes that break each block size (one block of one thread, `2*block +- 1`,
/// several passes), on 0/1 values: every sum is an exact count.
fn course_reduction_sizes(gpu: &Gpu) -> TestResult {
    for block in [1u32, 2, 32, 64, 1024] {
        let two_blocks = 2 * block as usize;
        let mut sizes = awkward_sizes(two_blocks);
        // `two_blocks^2 + 1` values take three passes.
        sizes.extend([two_blocks, two_blocks * two_blocks + 1]);
        sizes.retain(|&n| n > 0 && n <= 200_000 && (block > 1 || n < 5000));
        for n in sizes {
            let input = reduction::bits(n).map_err(fail)?;
            let count = input.iter().filter(|&&v| v == 1.0).count() as f32;
            let input_d = gpu.upload(&input).map_err(fail)?;
            let mut plan = Plan::new(gpu, n, block).map_err(fail)?;
            for variant in Variant::ALL {
                plan.launch(gpu, variant, &input_d).map_err(fail)?;
                let sum = plan.result(gpu).map_err(fail)?;
                ensure(sum == count, || {
                    format!("{variant:?}, block {block}, n = {n}: {sum}, not {count}")
                })?;
            }
        }
    }
    Ok(())
}

/// Both trees double or halve a stride up to `blockDim`: other block sizes, an empty input, or
/// an input of another length than planned, are refused.
fn course_reduction_rejects_bad_arguments(gpu: &Gpu) -> TestResult {
    for block in [0u32, 3, 96, 2048] {
        ensure(Plan::new(gpu, 100, block).is_err(), || {
            format!("block {block} accepted")
        })?;
    }
    ensure(Plan::new(gpu, 0, 32).is_err(), || "an empty input accepted".into())?;
    let mut plan = Plan::new(gpu, 100, 32).map_err(fail)?;
    let other = gpu.upload(&vec![1.0f32; 200]).map_err(fail)?;
    ensure(plan.launch(gpu, Variant::Improved, &other).is_err(), || {
        "200 values launched on a plan for 100".into()
    })
}

fn course_histogram_program(gpu: &Gpu) -> TestResult {
    passes_with(
        gpu,
        "course-histogram",
        &["--size", "100003", "--reps", "2", "--data", "all"],
    )
}

/// The phrase's letters counted by hand: a-d 5, e-h 5, i-l 6, m-p 10, q-t 10, u-x 1, y-z 1.
const PHRASE_BY_HAND: [u32; 7] = [5, 5, 6, 10, 10, 1, 1];

fn course_histogram_text_by_hand(gpu: &Gpu) -> TestResult {
    let text = histogram::TEXT.to_lowercase().into_bytes();
    let buffer_d = gpu.upload(&text).map_err(fail)?;
    let mut histo_d = gpu.zeros::<u32>(7).map_err(fail)?;
    for variant in [HistoVariant::Letters, HistoVariant::LettersPrivatized] {
        for threads in [1, 7, 32, 256] {
            histogram::histogram(gpu, variant, &buffer_d, &mut histo_d, threads).map_err(fail)?;
            let histo = gpu.download(&histo_d).map_err(fail)?;
            ensure(histo == PHRASE_BY_HAND, || {
                format!("{variant:?}, {threads} threads: {histo:?}")
            })?;
        }
    }
    Ok(())
}

/// The byte kernels at lengths around the 16-byte chunks and the block sizes, with block sizes
/// of 1, 7, 32, 65 and 256 threads, on uniform and skewed data: exact counts.
fn course_histogram_sizes(gpu: &Gpu) -> TestResult {
    for data in [Data::Uniform, Data::Skewed] {
        for n in [1usize, 15, 16, 17, 31, 33, 4095, 4097, 100_003] {
            let input = data.generate(n, 7).map_err(fail)?;
            let expected = reference::histogram::bytes(&input);
            let buffer_d = gpu.upload(&input).map_err(fail)?;
            let mut histo_d = gpu.zeros::<u32>(256).map_err(fail)?;
            for threads in [1, 7, 32, 65, 256] {
                for variant in HistoVariant::BYTES {
                    histogram::histogram(gpu, variant, &buffer_d, &mut histo_d, threads).map_err(fail)?;
                    let histo = gpu.download(&histo_d).map_err(fail)?;
                    ensure(histo == expected, || {
                        format!("{variant:?} {data:?}, n = {n}, {threads} threads")
                    })?;
                }
            }
        }
    }
    Ok(())
}

/// The byte kernels on one byte repeated, long enough that each thread of `histo256_packed` would
/// wrap its 8-bit counter many times over without its folds (thousands of bytes a thread at 32
/// threads a block on a simulator of a few host threads), at lengths that leave a partial chunk
/// and tail bytes.
fn course_histogram_one_byte(gpu: &Gpu) -> TestResult {
    for (byte, n) in [
        (0u8, (1usize << 21) + 13),
        (0xff, 300_001),
        (histogram::SKEWED_BYTE, 4_111),
    ] {
        let buffer_d = gpu.upload(&vec![byte; n]).map_err(fail)?;
        let mut expected = vec![0u32; 256];
        expected[usize::from(byte)] = n as u32;
        let mut histo_d = gpu.zeros::<u32>(256).map_err(fail)?;
        for threads in [32, 256] {
            for variant in HistoVariant::BYTES {
                histogram::histogram(gpu, variant, &buffer_d, &mut histo_d, threads).map_err(fail)?;
                let histo = gpu.download(&histo_d).map_err(fail)?;
                ensure(histo == expected, || {
                    format!(
                        "{variant:?}, {n} x byte {byte}, {threads} threads: {} in its bin, {} in all",
                        histo[usize::from(byte)],
                        histo.iter().map(|&c| u64::from(c)).sum::<u64>()
                    )
                })?;
            }
        }
    }
    Ok(())
}

/// The byte kernels on views that start off a 16-byte boundary (their byte-by-byte paths), of
/// uniform bytes and of one byte repeated (hundreds a thread: the packed kernel's folds there).
fn course_histogram_unaligned_views(gpu: &Gpu) -> TestResult {
    for input in [Data::Uniform.generate(10_007, 5).map_err(fail)?, vec![7u8; 300_003]] {
        let n = input.len();
        let buffer_d = gpu.upload(&input).map_err(fail)?;
        let mut histo_d = gpu.zeros::<u32>(256).map_err(fail)?;
        for range in [1..n, 3..n - 5, 8..n - 1, 16..n - 3, 5..5, 2..19] {
            let expected = reference::histogram::bytes(&input[range.clone()]);
            for threads in [32, 65] {
                for variant in HistoVariant::BYTES {
                    histogram::histogram_range(gpu, variant, &buffer_d, range.clone(), &mut histo_d, threads)
                        .map_err(fail)?;
                    let histo = gpu.download(&histo_d).map_err(fail)?;
                    ensure(histo == expected, || {
                        format!("{variant:?}, bytes {range:?} of {n}, {threads} threads")
                    })?;
                }
            }
        }
    }
    Ok(())
}

fn course_histogram_rejects_bad_arguments(gpu: &Gpu) -> TestResult {
    let buffer_d = gpu.upload(&[1u8, 2, 3]).map_err(fail)?;
    let mut seven = gpu.zeros::<u32>(7).map_err(fail)?;
    ensure(
        histogram::histogram(gpu, HistoVariant::Bytes, &buffer_d, &mut seven, 32).is_err(),
        || "256 bins counted into 7".into(),
    )?;
    let mut bins = gpu.zeros::<u32>(256).map_err(fail)?;
    ensure(
        histogram::histogram(gpu, HistoVariant::BytesPrivatized, &buffer_d, &mut bins, 2048).is_err(),
        || "a block of 2048 threads accepted".into(),
    )?;
    ensure(
        histogram::histogram_range(gpu, HistoVariant::BytesPacked, &buffer_d, 1..4, &mut bins, 32).is_err(),
        || "bytes 1..4 of 3 accepted".into(),
    )
}

fn course_histogram_reference() -> TestResult {
    let text = histogram::TEXT.to_lowercase().into_bytes();
    ensure(reference::histogram::letters(&text) == PHRASE_BY_HAND, || {
        "CPU letter histogram".into()
    })?;
    let skewed = Data::Skewed.generate(1 << 16, 3).map_err(fail)?;
    let hot = skewed.iter().filter(|&&b| b == histogram::SKEWED_BYTE).count();
    ensure((0.89..0.92).contains(&(hot as f64 / skewed.len() as f64)), || {
        format!("{hot} of {} skewed bytes are the hot one", skewed.len())
    })
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("course_vector_add_program", course_vector_add_program),
        ("course_vector_add_sizes", course_vector_add_sizes),
        ("course_vector_add_multi_program", course_vector_add_multi_program),
        ("course_reduction_program", course_reduction_program),
        ("course_reduction_sizes", course_reduction_sizes),
        (
            "course_reduction_rejects_bad_arguments",
            course_reduction_rejects_bad_arguments,
        ),
        ("course_histogram_program", course_histogram_program),
        ("course_histogram_text_by_hand", course_histogram_text_by_hand),
        ("course_histogram_sizes", course_histogram_sizes),
        ("course_histogram_one_byte", course_histogram_one_byte),
        ("course_histogram_unaligned_views", course_histogram_unaligned_views),
        (
            "course_histogram_rejects_bad_arguments",
            course_histogram_rejects_bad_arguments,
        ),
    ];
    common::main(
        vec![
            ("course_vector_add_reference", course_vector_add_reference),
            ("course_vector_add_inputs", course_vector_add_inputs),
            ("course_vector_add_multi_pieces", course_vector_add_multi_pieces),
            ("course_histogram_reference", course_histogram_reference),
        ],
        gpu_tests,
    )
}
