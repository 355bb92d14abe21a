//! Tests of the generators (book §5.1): `--generator curand-seeded` refused on the simulator,
//! and ch5-curand-basic with Philox, with cuRAND (the book's numbers) and its flags. Included
//! by `tests/ferrocuda-tests/ch5.rs`.
use crate::common::{TestResult, ensure, fail, passes_with, run_args};
use ferrocuda::Gpu;
use ferrocuda::random::Generator;
use ferrocuda_book::examples::ch5::curand_basic::{BOOK_F32, BOOK_F64, N, SEED as BOOK_SEED, printed};

/// `--generator curand-seeded` is parsed, and refused on the simulator in one sentence.
pub fn ch5_curand_seeded_needs_cuda() -> TestResult {
    let generator: Generator = "curand-seeded".parse().map_err(fail)?;
    ensure(generator == Generator::CurandSeeded, || format!("parsed {generator:?}"))?;
    let args = ["--size", "1000", "--generator", "curand-seeded"];
    match run_args(&Gpu::simulator(), "ch5-bs-european-mc", &args) {
        Err(e) if e.to_string().contains("cuRAND") && !e.to_string().contains('\n') => Ok(()),
        Err(e) => Err(format!("curand-seeded on the simulator: {e}")),
        Ok(_) => Err("curand-seeded ran on the simulator".into()),
    }
}

/// ch5-curand-basic with Philox (either backend): the GPU's uniforms equal the CPU reference's
/// bit for bit, in both precisions, at the listing's n and at sizes short of one Philox block.
pub fn ch5_curand_basic_philox_program(gpu: &Gpu) -> TestResult {
    for precision in ["f32", "f64"] {
        for size in [None, Some("1"), Some("3"), Some("1025")] {
            let mut args = vec!["--precision", precision, "--generator", "philox", "--seed", "7"];
            args.extend(size.map(|n| ["--size", n]).into_iter().flatten());
            passes_with(gpu, "ch5-curand-basic", &args)?;
        }
    }
    Ok(())
}

/// ch5-curand-basic with cuRAND and seed 1234: the book's first four, digit for digit.
pub fn ch5_curand_basic_book(gpu: &Gpu) -> TestResult {
    for precision in ["f32", "f64"] {
        passes_with(
            gpu,
            "ch5-curand-basic",
            &["--precision", precision, "--generator", "curand"],
        )?;
    }
    Ok(())
}

/// ch5-curand-basic takes exactly `--generator` and `--seed` (the pi examples' first two flags).
pub fn ch5_curand_basic_flags() -> TestResult {
    let names = crate::common::own_options("ch5-curand-basic")?;
    ensure(names == ["--generator", "--seed"], || format!("flags {names:?}"))
}

/// The book's §5.1 output (`curand_example`, seed 1234, `CURAND_RNG_PSEUDO_DEFAULT`): the first
/// four of 20 uniforms, as printed, in both precisions.
pub fn ch5_curand_matches_the_book(gpu: &Gpu) -> TestResult {
    let mut x_d = gpu.zeros::<f32>(N).map_err(fail)?;
    Generator::Curand.fill_uniform(gpu, BOOK_SEED, &mut x_d).map_err(fail)?;
    let x = printed(&gpu.download(&x_d).map_err(fail)?[..4]);
    ensure(x == BOOK_F32, || format!("single precision: {x:?}"))?;
    let mut y_d = gpu.zeros::<f64>(N).map_err(fail)?;
    Generator::Curand.fill_uniform(gpu, BOOK_SEED, &mut y_d).map_err(fail)?;
    let y = printed(&gpu.download(&y_d).map_err(fail)?[..4]);
    ensure(y == BOOK_F64, || format!("double precision: {y:?}"))
}
