//! `dot [n]`: the dot product of two vectors of `n` f32 values (default 2^20) in `[0, 1)`, on GPU
//! 0, or on the CPU simulator when there is no GPU (`FERROCUDA_BACKEND=auto|cuda|sim` decides
//! otherwise), checked against the CPU.
//!
//! Exit codes: 0 PASSED, 1 FAILED or a GPU error, 2 bad arguments; errors are one sentence on
//! stderr.
use ferrocuda::Gpu;
use std::process::ExitCode;

fn main() -> ExitCode {
    let n = match parse_n(std::env::args().skip(1).collect()) {
        Ok(n) => n,
        Err(message) => {
            eprintln!("error: {message}");
            return ExitCode::from(2);
        }
    };
    match run(n) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

/// The element count from the arguments: none (2^20) or one positive integer.
fn parse_n(args: Vec<String>) -> Result<usize, String> {
    match args.as_slice() {
        [] => Ok(1 << 20),
        [n] => n
            .parse()
            .ok()
            .filter(|&n: &usize| n > 0)
            .ok_or_else(|| format!("the number of elements must be a positive integer, not `{n}`")),
        _ => Err("dot takes at most one argument, the number of elements (default 1048576)".into()),
    }
}

/// Runs the dot product of `n` elements and prints the comparison; true when it passed.
fn run(n: usize) -> ferrocuda::Result<bool> {
    let gpu = Gpu::from_env(0)?;
    let p = gpu.properties();
    if gpu.is_simulator() {
        println!("device: {}", p.name);
    } else {
        println!("device: {} (sm_{})", p.name, p.compute_capability_number());
    }
    let (x, y) = (dot::sample(n, 1), dot::sample(n, 2));
    let shape = dot::launch_shape(&gpu, n, dot::THREADS)?;
    println!("n = {n}, launch: {shape}");

    let result = dot::dot(&gpu, &x, &y)?;
    let (reference, scale) = dot::cpu_reference(&x, &y);
    // The inputs are non-negative, so `scale` (Σ|x y|) equals `reference` and the bound is a
    // relative tolerance: the worst-case rounding error of f32 sums as deep as this launch's
    // (see `relative_tolerance`): for 2^20 elements on an H100 (1056 blocks of 256 threads, four
    // elements per thread), 16 roundings of 2^-24, about 1e-6.
    let tolerance = dot::relative_tolerance(&shape, n);
    let error = (f64::from(result) - reference).abs() / scale.max(f64::MIN_POSITIVE);
    println!("result:    {result}");
    println!("reference: {reference} (f64 on the CPU)");
    println!("relative error {error:.2e}, tolerance {tolerance:.2e}");
    let passed = error <= tolerance;
    println!("{}", if passed { "PASSED" } else { "FAILED" });
    Ok(passed)
}
