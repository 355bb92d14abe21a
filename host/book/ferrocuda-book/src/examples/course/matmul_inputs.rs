//! The inputs and figures both paths of course-matmul-tiled share (the SGEMM kernels and the
//! tensor-core GEMM): the dimensions, the seeded random matrices, GFLOP/s, cuBLAS to compare with.
use ferrocuda::footprint::try_with_capacity;
use ferrocuda::gpu::{Cublas, Gpu, LaunchShape, Result};

/// Matrix dimensions `(m, n, k)`.
pub type Dims = (usize, usize, usize);

/// Uniform inputs in [-1, 1) from a fixed seed (a 64-bit LCG, so runs are reproducible).
pub fn random_matrix(len: usize, seed: u64) -> Result<Vec<f32>> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut values = try_with_capacity(len)?;
    values.extend((0..len).map(|_| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0
    }));
    Ok(values)
}

/// `2 m n k / time`, GFLOP/s.
pub fn gflop_per_s((m, n, k): Dims, ms: f64) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64 / ms * 1e-6
}

/// cuBLAS for `what`, or `None` where there is none (the simulator), said in one line.
pub fn cublas_if_any<'g>(gpu: &'g Gpu, what: &str) -> Option<Cublas<'g>> {
    match gpu.cuda(what).and_then(Cublas::new) {
        Ok(cublas) => Some(cublas),
        Err(e) => {
            println!(" cuBLAS not measured: {e}");
            None
        }
    }
}

/// Prints a run's table, a row per `(variant, launch shape, ms)` (no shape: cuBLAS's, whose time
/// the others are compared with), names `width` wide, rates in GFLOP/s (TFLOP/s when `tera`).
pub fn print_table(dims: Dims, width: usize, tera: bool, rows: &[(&str, Option<LaunchShape>, f64)]) {
    let (unit, scale) = if tera { ("TFLOP/s", 1e-3) } else { ("GFLOP/s", 1.0) };
    let cublas_ms = rows.iter().find(|row| row.1.is_none()).map(|row| row.2);
    println!(
        "   {:<width$} {:<44} {:>12} {:>10} {:>10}",
        "variant", "launch shape", "time (ms)", unit, "/ cuBLAS"
    );
    for &(name, shape, ms) in rows {
        let shape = shape.map_or("(cuBLAS's own)".into(), |s| s.to_string());
        let fraction = cublas_ms.map_or("-".into(), |c| format!("{:.3}", c / ms));
        let rate = gflop_per_s(dims, ms) * scale;
        println!("   {name:<width$} {shape:<44} {ms:>12.4} {rate:>10.1} {fraction:>10}");
    }
}
