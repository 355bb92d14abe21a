//! appc-sgemm: cuBLAS's SGEMM called from the host on device data (book Appendix C.1, program
//! `sgemmDevice`): m = n = k = 100, `a = 1`, `b = 2`, `c = 0`, `alpha = 1`, `beta = 0`, then
//! `'Max error =', maxval(c - k*2.0)`. The simulator has no cuBLAS: there the same product runs
//! through the book's naive SGEMM kernel, said in the output. Then the same product through the
//! library GEMM's own kernel (`ferrocuda::blas::gemm`, `Engine::Rust`: `wgmma` on TF32, exact
//! here), on the simulator and on a Hopper GPU.
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use book_kernels::course::matmul_tiled::{MatmulArgs, MatmulNaive};
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Cublas, DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::Check;

/// The book's `m = n = k`.
pub const N: usize = 100;

/// appc-sgemm.
pub struct AppcSgemm;

impl Example for AppcSgemm {
    const ID: &'static str = "appc-sgemm";
    const DESCRIPTION: &'static str =
        "cuBLAS SGEMM on device arrays from the host (a = 1, b = 2, m = n = k = 100): Max error = 0 (book C.1)";
    const SIZE: Option<Size> = Some(Size {
        unit: "m = n = k, the matrices' side",
        gpu: N,
        simulator: N,
        min: 1,
        // cuBLAS takes dimensions below 2^31, and the naive kernel's indices are u32.
        max: u32::MAX as usize,
    });
    type Args = NoOptions;

    /// The run's peak at side `n`: A, B and C on the device, C downloaded on the host.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let square = run.size.checked_mul(run.size)?;
        Footprint::NONE.device::<f32>(3, square)?.host::<f32>(1, square)
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        // `memory` has no plan for an `n` whose square overflows: the runner refused it.
        let square = n * n;
        let a_d = gpu.upload(&try_vec(square, 1.0f32)?)?;
        let b_d = gpu.upload(&try_vec(square, 2.0f32)?)?;
        let mut c_d = gpu.upload(&try_vec(square, 0.0f32)?)?;
        let routine = sgemm(gpu, n, &a_d, &b_d, &mut c_d)?;
        let c = gpu.download(&c_d)?;
        // Every element is a sum of n products 1 x 2: exact in f32 while 2n < 2^24.
        let expected = 2.0 * n as f64;
        let max_error = c.iter().map(|&v| (f64::from(v) - expected).abs()).fold(0.0, f64::max);
        println!(" m = n = k = {n}, a = 1.0, b = 2.0, alpha = 1, beta = 0: {routine}");
        println!(" Max error = {max_error:.7}");
        let check = format!("c = 2k = {expected} everywhere (Max error = 0)");
        let mut checks = vec![Check::condition(&check, max_error == 0.0)];
        if gpu.is_simulator() || gpu.properties().compute_capability_number() == 90 {
            use ferrocuda::blas::{self, Engine, F32Math, Matrix, MatrixMut, Options};
            let options = Options {
                engine: Engine::Rust,
                f32_math: F32Math::Tf32,
            };
            // C from NaN: every element the product does not write stays wrong.
            gpu.upload_into(&try_vec(square, f32::NAN)?, &mut c_d)?;
            blas::gemm(
                gpu,
                options,
                1.0,
                Matrix::row_major(a_d.view(), n, n),
                Matrix::row_major(b_d.view(), n, n),
                0.0,
                MatrixMut::row_major(c_d.view_mut(), n, n),
            )?;
            let c = gpu.download(&c_d)?;
            let max_error = c.iter().map(|&v| (f64::from(v) - expected).abs()).fold(0.0, f64::max);
            println!(" blas::gemm, the library's wgmma kernel (1 and 2 are exact in TF32): Max error = {max_error:.7}");
            checks.push(Check::condition(&format!("blas::gemm: {check}"), max_error == 0.0));
        }
        Ok(Outcome { checks })
    }
}

/// `C = A B` with cuBLAS on a CUDA device, the book's naive kernel on the simulator; returns
/// which ran.
fn sgemm(
    gpu: &Gpu,
    n: usize,
    a_d: &DeviceBuffer<f32>,
    b_d: &DeviceBuffer<f32>,
    c_d: &mut DeviceBuffer<f32>,
) -> Result<&'static str> {
    if gpu.is_simulator() {
        let side = u32::try_from(n).map_err(|_| Error::InvalidArgument(format!("--size {n} is past u32")))?;
        crate::kernels(gpu)?.launch(
            MatmulNaive,
            LaunchShape::cover_2d(n, n, (16, 16))?,
            MatmulArgs {
                a: a_d.view(),
                b: b_d.view(),
                c: c_d.view_mut(),
                m: side,
                n: side,
                k: side,
            },
        )?;
        return Ok("the book's naive SGEMM kernel (the simulator has no cuBLAS)");
    }
    let mut cublas = Cublas::new(gpu.cuda("cuBLAS")?)?;
    cublas.sgemm_row_major((n, n, n), a_d, b_d, c_d)?;
    Ok("cublasSgemm")
}
