//! ch3-constant-increment: constant memory (book §3.2.5, `incrementTest` with
//! `integer, constant :: b`).
//!
//! Rust has no `__constant__`: a static with `#[link_section]` stays in `.global` (the nvptx
//! backend ignores the section), and a static cannot name PTX's constant address space. Two
//! routes work. Kernel parameters live in constant bank 0 (`ld.param`, `c[0x0][..]` in SASS).
//! And a `.const` array declared in PTX with `global_asm!` (the library's constant bank), read
//! with `ld.const` through inline PTX and written from the host with `cuModuleGetGlobal`
//! (`Gpu::write_constant`). The example runs the book's increment (n = 256, one block, b = 3)
//! with `b` from each place, prints the PTX load of each, then times a polynomial whose 64
//! coefficients every thread reads (a warp-wide broadcast) from the constant bank, from the
//! parameters, or from global memory.
use super::print_ptx_lines;
use crate::defaults::Pick;
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::reference;
use book_kernels::ch1::increment::{Increment, IncrementArgs};
use book_kernels::ch3::constant_increment::{
    B_WORD, COEFF_WORD, COEFFS, ConstantIncrementArgs, GlobalIncrementArgs, IncrementConstant, IncrementGlobal,
    PolyArgs, PolyConstant, PolyGlobal, PolyGlobalArgs, PolyParam, PolyParamArgs,
};
use ferrocuda::footprint::{Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

/// The book's `n` and `b`.
pub const N: usize = 256;
pub const B: i32 = 3;
/// Elements of the polynomial timing on a GPU, and on the simulator.
pub const POLY_N: usize = 1 << 24;
pub const POLY_N_SIMULATOR: usize = 1 << 16;
pub const THREADS_PER_BLOCK: u32 = 256;
/// The largest increment: the book's one block of `n` threads.
pub const MAX_N: usize = crate::examples::ch1::increment_launch::MAX_THREADS_PER_BLOCK;

/// Where a kernel reads its shared values from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    Constant,
    Param,
    Global,
}

impl Source {
    pub const ALL: [Source; 3] = [Source::Constant, Source::Param, Source::Global];

    /// The increment kernel reading `b` from here.
    pub fn increment_kernel(self) -> &'static str {
        ["increment_constant", "increment", "increment_global"][self as usize]
    }

    /// The polynomial kernel reading its coefficients from here.
    pub fn poly_kernel(self) -> &'static str {
        ["poly_constant", "poly_param", "poly_global"][self as usize]
    }

    /// The PTX load it shows.
    pub fn ptx_load(self) -> &'static str {
        ["ld.const", "ld.param", "ld.global"][self as usize]
    }
}

/// `a += b` with `b` from `source`: the constant bank's word [`B_WORD`] (which the caller wrote),
/// the parameter, or `b_d[0]`; one block of `a.len()` threads, as in the book, for `a.len()` up
/// to 1024 (more elements: blocks of 256).
pub fn increment(
    gpu: &Gpu,
    source: Source,
    a_d: &mut DeviceBuffer<i32>,
    b: i32,
    b_d: &DeviceBuffer<i32>,
) -> Result<()> {
    let n = a_d.len();
    let shape = if n <= 1024 {
        LaunchShape::new((1, 1, 1), (n as u32, 1, 1))
    } else {
        LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?
    };
    match source {
        Source::Constant => {
            crate::kernels(gpu)?.launch(IncrementConstant, shape, ConstantIncrementArgs { a: a_d.view_mut() })
        }
        // ch1's kernel: `b` by value in the parameter block; one thread per element, no bounds test.
        Source::Param => crate::kernels(gpu)?.launch(
            Increment,
            LaunchShape::new((1, 1, 1), (n as u32, 1, 1)),
            IncrementArgs { a: a_d.view_mut(), b },
        ),
        Source::Global => crate::kernels(gpu)?.launch(
            IncrementGlobal,
            shape,
            GlobalIncrementArgs {
                a: a_d.view_mut(),
                b: b_d.view(),
            },
        ),
    }
}

/// The polynomial's coefficients, highest degree first: `(-1)^k / (k + 1)`.
pub fn coefficients() -> [f32; COEFFS] {
    std::array::from_fn(|k| if k % 2 == 0 { 1.0 } else { -1.0 } / (k as f32 + 1.0))
}

/// `y = p(x)` with the coefficients from `source` (`c_d` for global memory; the constant bank's
/// words from [`COEFF_WORD`], which the caller wrote).
pub fn poly(
    gpu: &Gpu,
    source: Source,
    y_d: &mut DeviceBuffer<f32>,
    x_d: &DeviceBuffer<f32>,
    c_d: &DeviceBuffer<f32>,
) -> Result<()> {
    let shape = LaunchShape::cover_1d(y_d.len(), THREADS_PER_BLOCK)?;
    let (y, x) = (y_d.view_mut(), x_d.view());
    match source {
        Source::Constant => crate::kernels(gpu)?.launch(PolyConstant, shape, PolyArgs { y, x }),
        Source::Param => crate::kernels(gpu)?.launch(
            PolyParam,
            shape,
            PolyParamArgs {
                y,
                x,
                c: coefficients(),
            },
        ),
        Source::Global => crate::kernels(gpu)?.launch(PolyGlobal, shape, PolyGlobalArgs { y, x, c: c_d.view() }),
    }
}

/// ch3-constant-increment.
pub struct Ch3ConstantIncrement;

impl Example for Ch3ConstantIncrement {
    const ID: &'static str = "ch3-constant-increment";
    const DESCRIPTION: &'static str = "b from constant memory (global_asm .const + ld.const), a parameter (ld.param) or global memory; broadcast read times (book 3.2.5)";
    const SIZE: Option<Size> = Some(
        Size::new(
            "elements of the increment's array, one block (the polynomial's size is fixed)",
            N,
            N,
        )
        .at_most(MAX_N),
    );
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak: the increment's array on the device and, on the host, the array, its
    /// reference and a download; then the polynomial's `x` and `y` on the device and `x`, the
    /// reference and a download on the host, at the GPU's [`POLY_N`] (the larger); `None` on
    /// overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let increment = Footprint::NONE.device::<i32>(2, run.size)?.host::<i32>(3, run.size)?;
        let poly = Footprint::NONE.device::<f32>(2, POLY_N)?.host::<f32>(3, POLY_N)?;
        Some(increment.max(poly))
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let mut checks = Vec::new();
        // The book's program: b = 3 set from the host, then increment.
        crate::kernels(gpu)?.write_constant(B_WORD, &[B])?;
        let a: Vec<i32> = (0..n as i32).collect();
        let expected = reference::ch3::constant_increment::increment(&a, B);
        let b_d = gpu.upload(&[B])?;
        for source in Source::ALL {
            let mut a_d = gpu.upload(&a)?;
            increment(gpu, source, &mut a_d, B, &b_d)?;
            let check = Check::compare(
                source.increment_kernel(),
                &gpu.download(&a_d)?,
                &expected,
                Tolerance::EXACT,
            );
            println!(
                " b from {source:?}: {}",
                if check.passed() {
                    "Program Passed"
                } else {
                    "**** Program Failed ****"
                }
            );
            checks.push(check);
        }
        for source in Source::ALL {
            print_ptx_lines(gpu, source.increment_kernel(), &[source.ptx_load()], 3);
        }

        // The broadcast: 64 coefficients, the same for every thread.
        let poly_n = gpu.pick(POLY_N, POLY_N_SIMULATOR);
        let coeffs = coefficients();
        crate::kernels(gpu)?.write_constant(COEFF_WORD, &coeffs)?;
        let x = try_from_fn(poly_n, |i| (i % 2001) as f32 / 1000.0 - 1.0)?;
        let expected = reference::ch3::constant_increment::poly(&x, &coeffs);
        let (x_d, c_d) = (gpu.upload(&x)?, gpu.upload(&coeffs)?);
        let mut y_d = gpu.zeros::<f32>(poly_n)?;
        println!(
            " y = p(x), {COEFFS} coefficients read by every thread, {poly_n} elements, median of {} runs ({}):",
            run.reps,
            gpu.timing_label()
        );
        let mut times = Vec::new();
        for source in Source::ALL {
            gpu.upload_into(&try_vec(poly_n, f32::NAN)?, &mut y_d)?;
            let stats = time_reps(gpu, run.reps, || poly(gpu, source, &mut y_d, &x_d, &c_d))?;
            // One fma per coefficient on both sides, in the same order: bit-identical.
            checks.push(Check::compare(
                source.poly_kernel(),
                &gpu.download(&y_d)?,
                &expected,
                Tolerance::EXACT,
            ));
            times.push(stats.median_ms);
            println!("   {:<14} {:>10.4} ms", source.poly_kernel(), stats.median_ms);
        }
        println!(
            "   global / constant: {:.2}x the time; parameter / constant: {:.2}x",
            times[2] / times[0],
            times[1] / times[0]
        );
        for source in Source::ALL {
            print_ptx_lines(gpu, source.poly_kernel(), &[source.ptx_load()], 2);
        }
        Ok(Outcome { checks })
    }
}
