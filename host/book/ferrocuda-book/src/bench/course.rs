//! The course's kernels: vector add (256 threads per block), the naive and improved reductions,
//! and the 256-bin histograms (global atomics, privatized shared atomics, packed counters).
use super::{Measured, Row, Settings, measure, measure_twin};
use crate::examples::course::vector_add_common::THREADS_PER_BLOCK;
use book_kernels::course::vector_add::{VecAddArgs, VecAddKernel};
use ferrocuda::gpu::{Gpu, KernelView, LaunchShape, LoadedKernels, Result};

/// Measures `vec_add_kernel`.
pub fn run(gpu: &Gpu, settings: &Settings, twin: Option<&LoadedKernels>) -> Result<Vec<Measured>> {
    let n = settings.elements::<f32>()?;
    let a: Vec<f32> = (0..n).map(|i| (i % 1024) as f32).collect();
    let (a_d, b_d) = (gpu.upload(&a)?, gpu.upload(&a)?);
    let mut c_d = gpu.zeros::<f32>(n)?;
    let shape = LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?;
    let args = VecAddArgs {
        a: a_d.view(),
        b: b_d.view(),
        c: c_d.view_mut(),
    };
    let bytes = 3 * n * size_of::<f32>();
    let row = Row::kernel(gpu, "vec_add_kernel".into(), shape, bytes, VecAddKernel, args);
    Ok(vec![measure_twin(gpu, row, twin, args.c.as_slice(), settings.reps)?])
}

/// Measures the course's naive and improved reductions over the working set, all passes of the
/// host-iterated sum: bytes read once, so GB/s compares with the read half of memcpy's traffic.
pub fn reduction(gpu: &Gpu, settings: &Settings) -> Result<Vec<Measured>> {
    use crate::examples::course::reduction::{BLOCK_SIZE, Plan, Variant, bits};
    let n = settings.elements::<f32>()?;
    let input = gpu.upload(&bits(n)?)?;
    let mut rows = Vec::new();
    for variant in Variant::ALL {
        let mut plan = Plan::new(gpu, n, BLOCK_SIZE)?;
        let shape = plan.shape();
        let input = &input;
        let row = Row {
            name: format!("{} ({} passes)", variant.kernel(), plan.passes()),
            shape,
            bytes: n * size_of::<f32>(),
            launch: Box::new(move |_: Option<&LoadedKernels>| plan.launch(gpu, variant, input)),
        };
        rows.push(measure(gpu, row, None, settings.reps)?);
    }
    Ok(rows)
}

/// Measures the 256-bin histograms (global atomics, privatized shared ones, per-thread packed
/// counters, per-warp copies with an atomic per byte) on 2^28 bytes of uniform and of skewed (90%
/// one value) data: GB/s of input read.
pub fn histogram(gpu: &Gpu, settings: &Settings) -> Result<Vec<Measured>> {
    use crate::examples::course::histogram::{self, Data, THREADS_PER_BLOCK, Variant};
    let n = settings.elements::<u8>()?.min(histogram::N);
    let mut rows = Vec::new();
    for data in [Data::Uniform, Data::Skewed] {
        let buffer = gpu.upload(&data.generate(n, 1234)?)?;
        let buffer = &buffer;
        for variant in Variant::BYTES {
            let mut histo = gpu.zeros::<u32>(variant.bins())?;
            let row = Row {
                name: format!("{} {}", variant.name(), format!("{data:?}").to_lowercase()),
                shape: variant.shape(gpu, n, THREADS_PER_BLOCK)?,
                bytes: n,
                launch: Box::new(move |_: Option<&LoadedKernels>| {
                    histogram::histogram(gpu, variant, buffer, &mut histo, THREADS_PER_BLOCK)
                }),
            };
            rows.push(measure(gpu, row, None, settings.reps)?);
        }
    }
    Ok(rows)
}

/// The course's matrix multiply at 4096^3 against cuBLAS's FP32 SGEMM (`CUBLAS_DEFAULT_MATH`, no
/// tensor cores), all variants on the same operands in one run: GFLOP/s (2 m n k flops per
/// product) and each kernel's fraction of cuBLAS. Prints its own table (GFLOP/s, not GB/s).
pub fn matmul(gpu: &Gpu, settings: &Settings) -> Result<()> {
    use crate::examples::course::matmul_tiled::{self, Operands, SIZE, gflop_per_s, random_matrix};
    use ferrocuda::gpu::Cublas;
    let dims = (SIZE, SIZE, SIZE);
    let (a, b) = (random_matrix(SIZE * SIZE, 1)?, random_matrix(SIZE * SIZE, 2)?);
    let mut ops = Operands::new(gpu, dims, &a, &b)?;
    let mut cublas = match gpu.cuda("cuBLAS SGEMM").and_then(Cublas::new) {
        Ok(cublas) => Some(cublas),
        Err(e) => {
            println!("matmul: cuBLAS not measured ({e})");
            None
        }
    };
    let (rows, _) = matmul_tiled::measure(gpu, &mut ops, cublas.as_mut(), settings.reps, None)?;
    let cublas_ms = rows
        .iter()
        .find(|r| r.variant == matmul_tiled::Variant::Cublas)
        .map(|r| r.stats.median_ms);
    println!();
    println!(
        "{:<30} {:<46} {:>10} {:>10} {:>10}",
        "SGEMM 4096^3 (f32)", "launch shape", "ms", "GFLOP/s", "/cuBLAS"
    );
    for row in &rows {
        let ms = row.stats.median_ms;
        println!(
            "{:<30} {:<46} {:>10.3} {:>10.0} {:>10}",
            row.variant.kernel(),
            row.shape.map_or("(cuBLAS's own)".to_string(), |s| s.to_string()),
            ms,
            gflop_per_s(dims, ms),
            cublas_ms.map_or("-".to_string(), |c| format!("{:.3}", c / ms))
        );
    }
    println!(
        "(median of {} runs each; cuBLAS in CUBLAS_DEFAULT_MATH: FP32 SIMT, no tensor cores)",
        settings.reps
    );
    Ok(())
}
