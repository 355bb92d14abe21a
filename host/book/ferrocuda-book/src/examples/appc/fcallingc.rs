//! appc-fcallingc: a CUDA C kernel compiled by nvcc, launched from the Rust host (book
//! Appendix C.2, `fCallingC.cuf` and `zero.cu`): `a_d = 1.0`, `zero<<<1,n>>>(a_d)` with n = 4,
//! then `a` printed. Beside it the kernel's Rust twin, on either backend.
use crate::example::{Example, NoOptions, Outcome, Run};
use book_kernels::appc::fcallingc::{Zero, ZeroArgs};
use ferrocuda::gpu::{Gpu, KernelView, LaunchShape, LoadedKernels, Result};
use ferrocuda::verify::Check;

/// The book's `n`: one block of four threads.
pub const N: usize = 4;

/// The book's `zero.cu`, as the host calls it (see the file for the one change).
const ZERO_CU: &str = include_str!("../../../nvcc/appc/zero.cu");
/// The layouts `zero.cu` includes.
const COMMON_CUH: &str = include_str!("../../../nvcc/common.cuh");

/// `a_d = 1.0`, then `zero<<<1, N>>>(a_d)` from `kernels`; returns `a`.
pub fn zero_through(gpu: &Gpu, kernels: &LoadedKernels<'_>) -> Result<Vec<f32>> {
    let mut a_d = gpu.upload(&[1.0f32; N])?;
    kernels.launch(
        Zero,
        LaunchShape::new((1, 1, 1), (N as u32, 1, 1)),
        ZeroArgs { a: a_d.view_mut() },
    )?;
    gpu.download(&a_d)
}

/// Prints `a` after `{who} zero<<<1,N>>>` as the book's list-directed output does; checks that
/// it is all zeros.
fn print_zeroed(who: &str, a: &[f32]) -> Check {
    println!(" {who} zero<<<1,{N}>>>(a_d), a =");
    println!("{}", a.iter().map(|v| format!("    {v:.7}")).collect::<String>());
    Check::condition(&format!("{who} zero: a = 0 everywhere"), a.iter().all(|&v| v == 0.0))
}

/// nvcc's PTX of `zero.cu` for `gpu`'s architecture, and nvcc's version line.
fn compile_zero(gpu: &Gpu) -> Result<(String, String)> {
    let (nvcc, compiler) = crate::nvcc::nvcc_and_version()?;
    let dir = std::env::temp_dir().join(format!("ferrocuda-appc-{}", std::process::id()));
    crate::nvcc::write_source(&dir, "common.cuh", COMMON_CUH)?;
    let source = crate::nvcc::write_source(&dir, "appc/zero.cu", ZERO_CU)?;
    let arch = format!("sm_{}", gpu.properties().compute_capability_number());
    let ptx = crate::nvcc::compile(&nvcc, &source, &arch);
    let _ = std::fs::remove_dir_all(&dir);
    Ok((ptx?, compiler))
}

/// appc-fcallingc.
pub struct AppcFcallingc;

impl Example for AppcFcallingc {
    const ID: &'static str = "appc-fcallingc";
    const DESCRIPTION: &'static str = "a CUDA C kernel (zero.cu) compiled by nvcc at run time and launched from Rust through the typed path, beside its Rust twin (book C.2)";
    type Args = NoOptions;

    /// On a CUDA device nvcc's `zero.cu`, then on either backend its Rust twin.
    fn run(gpu: &Gpu, _run: &Run<NoOptions>) -> Result<Outcome> {
        let mut checks = Vec::new();
        if gpu.is_simulator() {
            println!(" the CUDA C kernel needs a CUDA device and nvcc: on the simulator only its Rust twin runs");
        } else {
            let (ptx, compiler) = compile_zero(gpu)?;
            let entry = ptx.lines().any(|l| l.contains(".entry zero("));
            println!(" nvcc: {compiler}; zero.cu -> PTX, entry `zero` unmangled: {entry}");
            let kernels = gpu.load_ptx(&ptx, "zero.cu (nvcc)")?;
            let a = zero_through(gpu, &kernels)?;
            checks.push(Check::condition(
                "zero.cu's entry symbol is `zero` (extern \"C\")",
                entry,
            ));
            checks.push(print_zeroed("CUDA C", &a));
        }
        checks.push(print_zeroed("Rust", &zero_through(gpu, &crate::kernels(gpu)?)?));
        Ok(Outcome { checks })
    }
}
