//! Simulator against GPU: every kernel, the same inputs on both backends, the outputs compared
//! (exactly for integer and deterministic kernels; within the documented tolerance for the sines,
//! whose multiply-adds the GPU contracts into FMAs and whose hardware sine the simulator
//! replaces by the accurate one). `cargo xtask agree` prints the table; `tests/agreement.rs`
//! requires every row to agree.
mod appc;
mod ch3_cuf;
mod ch4;
mod ch6_laplace;
mod course_heat;
mod course_images;
mod course_runtime;
mod fft;

use crate::examples::ch1::{increment_2d, increment_launch, precision, separate_compilation};
use crate::examples::ch2::limiting_factor::{self, ACCURATE_SIN, FAST_SIN, Variant};
use crate::examples::ch5::bs_european_mc::McReal;
use crate::examples::ch5::pi::PiFloat;
use crate::examples::course::histogram::{self, Data, Variant as HistoVariant};
use crate::examples::course::reduction::{self as course_reduction, Variant as ReductionVariant};
use crate::examples::course::vector_add;
use crate::examples::stream::{self, Layout, Op, StreamReal};
use crate::examples::tutorial::sum_reduction;
use crate::examples::tutorial::vector_copy::{self, Variant as CopyVariant};
use book_kernels::tutorial::vector_copy::{EmptyArgs, EmptyKernel};
use ferrocuda::device::shared::Tile1d;
use ferrocuda::gpu::{Element, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::kernels::probe::*;
use ferrocuda::random::{self as rng, RandomFloat};
use ferrocuda::reduce::{self, Kind, Plan, Reduce};
use ferrocuda::sor::SorReal;
use ferrocuda::verify::{Check, Tolerance};

mod ch6_deriv;
mod ch7;

/// One kernel compared.
#[derive(Clone, Debug)]
pub struct Row {
    pub kernel: String,
    pub check: Check,
    pub tolerance: Tolerance,
}

impl Row {
    /// True when the simulator's output equals the GPU's within the tolerance.
    pub fn agrees(&self) -> bool {
        self.check.passed()
    }
}

/// The backends and the rows compared so far.
struct Comparison<'a> {
    cuda: &'a Gpu,
    sim: &'a Gpu,
    rows: Vec<Row>,
}

impl Comparison<'_> {
    /// Runs `run` on both backends and compares what it returns.
    fn compare<T: Element + Into<f64>>(
        &mut self,
        kernel: &str,
        tolerance: Tolerance,
        run: impl Fn(&Gpu) -> Result<Vec<T>>,
    ) -> Result<()> {
        let (on_gpu, on_sim) = (run(self.cuda)?, run(self.sim)?);
        let check = Check::compare(kernel, &on_sim, &on_gpu, tolerance);
        self.rows.push(Row {
            kernel: kernel.to_string(),
            check,
            tolerance,
        });
        Ok(())
    }
}

/// Inputs that differ per element, so a wrong index shows.
fn ramp_i32(n: usize) -> Vec<i32> {
    (0..n).map(|i| (i * 7919 % 1000) as i32).collect()
}
fn ramp_real<T: StreamReal>(n: usize, scale: f64) -> Vec<T> {
    (0..n)
        .map(|i| T::from_f64(((i * 37 % 1001) as f64 / 1000.0 - 0.5) * scale))
        .collect()
}

/// Compares every kernel of the library on `cuda` and `sim`.
/// The library's own kernels (probes, reductions) on `gpu`.
fn library(gpu: &Gpu) -> Result<ferrocuda::Kernels<'_>> {
    gpu.load(&ferrocuda::ptx::LIBRARY)
}

pub fn run(cuda: &Gpu, sim: &Gpu) -> Result<Vec<Row>> {
    let mut c = Comparison {
        cuda,
        sim,
        rows: Vec::new(),
    };
    chapter_one(&mut c)?;
    chapter_two(&mut c)?;
    chapter_three_shared_memory(&mut c)?;
    chapter_three_transfers(&mut c)?;
    ch3_access::<f32>(&mut c)?;
    ch3_access::<f64>(&mut c)?;
    chapter_three_compute(&mut c)?;
    matmul(&mut c)?;
    stream_kernels::<f32>(&mut c)?;
    stream_kernels::<f64>(&mut c)?;
    others(&mut c)?;
    course_runtime::course_runtime(&mut c)?;
    sums_and_histograms(&mut c)?;
    course_images::course_images(&mut c)?;
    pi_counts::<f32>(&mut c)?;
    pi_counts::<f64>(&mut c)?;
    bs_european_mc::<f32>(&mut c)?;
    bs_european_mc::<f64>(&mut c)?;
    philox::<f32>(&mut c)?;
    philox::<f64>(&mut c)?;
    probes(&mut c)?;
    ch6_laplace::compare_all(&mut c)?;
    sor::<f32>(&mut c)?;
    sor::<f64>(&mut c)?;
    course_heat::course_heat(&mut c)?;
    fft::rows(&mut c)?;
    reductions::<i32>(&mut c)?;
    reductions::<u32>(&mut c)?;
    reductions::<u64>(&mut c)?;
    reductions::<f32>(&mut c)?;
    reductions::<f64>(&mut c)?;
    ch6_deriv::ch6_deriv(&mut c)?;
    ch7::ch7(&mut c)?;
    ch4::ch4(&mut c)?;
    appc::appc(&mut c)?;
    ch3_cuf::ch3_cuf(&mut c)?;
    c.compare("count_nonzero_i32", Tolerance::EXACT, |gpu| {
        let input = gpu.upload(&ramp_i32(100_003).iter().map(|x| x % 3).collect::<Vec<_>>())?;
        Ok(vec![reduce::count_nonzero(gpu, &input)? as f64])
    })?;
    // Float sums depend on the launch shape, which `reduce::sum_kahan` takes from the SM count:
    // both backends launch the same one here.
    c.compare("reduce_sum_kahan_f32", Tolerance::EXACT, |gpu| {
        use ferrocuda::kernels::reduce::{ReduceArgs, ReduceSum, ReduceSumKahan, shared_bytes};
        let input = gpu.upload(&vec![0.1f32; 1_000_003])?;
        let mut partials = gpu.zeros::<f32>(64)?;
        let mut total = gpu.zeros::<f32>(1)?;
        let shape = |blocks| {
            LaunchShape::new((blocks, 1, 1), (reduce::THREADS_PER_BLOCK, 1, 1))
                .with_shared_bytes(shared_bytes::<f32>() as u32)
        };
        let first = ReduceArgs {
            input: input.view(),
            partials: partials.view_mut(),
        };
        library(gpu)?.launch(ReduceSumKahan, shape(64), first)?;
        let second = ReduceArgs {
            input: partials.view(),
            partials: total.view_mut(),
        };
        library(gpu)?.launch(ReduceSum, shape(1), second)?;
        gpu.download(&total)
    })?;
    Ok(c.rows)
}

fn chapter_one(c: &mut Comparison) -> Result<()> {
    c.compare("increment", Tolerance::EXACT, |gpu| {
        let mut a = gpu.upload(&ramp_i32(1000))?;
        increment_launch::increment_one_block(gpu, &mut a, 3)?;
        gpu.download(&a)
    })?;
    c.compare("increment_multiblock", Tolerance::EXACT, |gpu| {
        let mut a = gpu.upload(&ramp_i32(100_003))?;
        increment_launch::increment(gpu, &mut a, 3, 256)?;
        gpu.download(&a)
    })?;
    c.compare("increment_2d", Tolerance::EXACT, |gpu| {
        let mut a = gpu.upload(&ramp_i32(1000 * 33))?;
        increment_2d::increment(gpu, &mut a, 1000, 33, 3, (32, 8))?;
        gpu.download(&a)
    })?;
    c.compare("precision_axpy_f32", Tolerance::EXACT, |gpu| {
        let (x, mut y) = (
            gpu.upload(&ramp_real::<f32>(100_003, 3.0))?,
            gpu.upload(&ramp_real::<f32>(100_003, 7.0))?,
        );
        precision::axpy(gpu, 2.0f32 / 3.0, &x, &mut y)?;
        gpu.download(&y)
    })?;
    c.compare("precision_axpy_f64", Tolerance::EXACT, |gpu| {
        let (x, mut y) = (
            gpu.upload(&ramp_real::<f64>(100_003, 3.0))?,
            gpu.upload(&ramp_real::<f64>(100_003, 7.0))?,
        );
        precision::axpy(gpu, 2.0 / 3.0, &x, &mut y)?;
        gpu.download(&y)
    })?;
    // Device variables of another module (a_plus_b), and a device function of another kernel
    // crate, linked (c_minus_d): each pair through the whole program, variables written and read.
    let pairs = [(2, 3), (-7, 11), (1_000_000, -999_999), (0, 0)];
    c.compare("a_plus_b", Tolerance::EXACT, |gpu| {
        pairs
            .iter()
            .map(|&(a, b)| separate_compilation::two_plus_three(gpu, a, b))
            .collect()
    })?;
    c.compare("c_minus_d", Tolerance::EXACT, |gpu| {
        let mut out = Vec::new();
        for &(c, d) in &pairs {
            let (c, d) = separate_compilation::two_minus_three(gpu, c, d)?;
            out.extend([c, d]);
        }
        Ok(out)
    })
}

fn chapter_two(c: &mut Comparison) -> Result<()> {
    let n = 100_003;
    let cases = [
        ("base", Variant::Base, false, ACCURATE_SIN),
        ("base_fast", Variant::Base, true, FAST_SIN),
        ("memory", Variant::Memory, false, Tolerance::EXACT),
        ("math", Variant::Math, false, Tolerance::EXACT),
        ("math_fast", Variant::Math, true, Tolerance::EXACT),
    ];
    for (kernel, variant, fast, tolerance) in cases {
        c.compare(kernel, tolerance, |gpu| {
            let b = gpu.upload(&ramp_real::<f32>(n, 2.0 * std::f64::consts::PI))?;
            let mut a = gpu.upload(&vec![f32::NAN; n])?;
            limiting_factor::launch(gpu, variant, fast, &mut a, &b, 1.0)?;
            // `math` must store nothing: compare which elements kept their NaN poison.
            let out = gpu.download(&a)?;
            Ok(if variant == Variant::Math {
                out.iter().map(|v| f32::from(u8::from(v.is_nan()))).collect()
            } else {
                out
            })
        })?;
    }
    Ok(())
}

/// ch3-async's kernel over chunks at three offsets, on streams, with arguments up to 2^22 (past
/// `sincosf`'s small-argument paths): `libm`'s `sincosf` on both backends, but the GPU may fuse
/// the multiply-adds inside it (as for `base`), so the tolerance is the sine's.
fn chapter_three_transfers(c: &mut Comparison) -> Result<()> {
    use book_kernels::ch3::async_overlap::{AsyncArgs, Kernel as AsyncKernel};
    c.compare("kernel", ACCURATE_SIN, |gpu| {
        let (n, streams) = (1 << 22, 4);
        let chunk = n / streams;
        let mut a = gpu.upload(&ramp_real::<f32>(n, 1.0))?;
        let streams = (0..streams).map(|_| gpu.new_stream()).collect::<Result<Vec<_>>>()?;
        for (i, stream) in streams.iter().enumerate() {
            let args = AsyncArgs {
                a: a.view_mut(),
                offset: (i * chunk) as u32,
            };
            crate::kernels(gpu)?.launch_on(stream, AsyncKernel, LaunchShape::cover_1d(chunk, 256)?, args)?;
        }
        gpu.download(&a)
    })
}

/// The chapter 3 memory-access kernels (book §3.2.2, §3.2.3, §3.5): increments at an offset and a
/// stride, strided and stencil reads through plain and read-only loads, the TLP and ILP copies;
/// exact (adds of one and halves, sums in a fixed order, copies).
fn ch3_access<T>(c: &mut Comparison) -> Result<()>
where
    T: StreamReal
        + crate::examples::ch3::offset_stride::OffsetStrideReal
        + crate::examples::ch3::stride_texture::StrideReal
        + crate::examples::ch3::copy::CopyReal,
{
    use crate::examples::ch3::copy::{self, Variant as Ch3Copy};
    use crate::examples::ch3::offset_stride::{self, Pattern, Placement};
    use crate::examples::ch3::stride_texture::{self, Load};
    let n = 10_007;
    let a = ramp_real::<T>(33 * n, 64.0);
    for pattern in Pattern::ALL {
        for placement in Placement::ALL {
            let name = match placement {
                Placement::InPlace => format!("{}_{}", pattern.label().to_lowercase(), T::NAME),
                Placement::OutOfPlace => format!("{}_out_of_place_{}", pattern.label().to_lowercase(), T::NAME),
            };
            c.compare(&name, Tolerance::EXACT, |gpu| {
                let mut x = gpu.upload(&a)?;
                match placement {
                    Placement::InPlace => offset_stride::in_place(gpu, pattern, &mut x, n, 7, 256)?,
                    Placement::OutOfPlace => {
                        offset_stride::out_of_place(gpu, pattern, &gpu.upload(&a)?, &mut x, n, 7, 256)?
                    }
                }
                gpu.download(&x)
            })?;
        }
    }
    // The stride kernels with their load cached in L2 only (`ld.global.cg`).
    for placement in Placement::ALL {
        let name = match placement {
            Placement::InPlace => format!("stride_cg_{}", T::NAME),
            Placement::OutOfPlace => format!("stride_out_of_place_cg_{}", T::NAME),
        };
        c.compare(&name, Tolerance::EXACT, |gpu| {
            let mut x = gpu.upload(&a)?;
            let cg = offset_stride::Cache::Cg;
            match placement {
                Placement::InPlace => offset_stride::in_place_cached(gpu, Pattern::Stride, cg, &mut x, n, 7, 256)?,
                Placement::OutOfPlace => {
                    let a_d = gpu.upload(&a)?;
                    offset_stride::out_of_place_cached(gpu, Pattern::Stride, cg, &a_d, &mut x, n, 7, 256)?
                }
            }
            gpu.download(&x)
        })?;
    }
    for (load, kernel) in [(Load::Global, "stride_global"), (Load::ReadOnly, "stride_tex")] {
        c.compare(&format!("{kernel}_{}", T::NAME), Tolerance::EXACT, |gpu| {
            let mut b = gpu.zeros::<T>(n)?;
            stride_texture::stride_read(gpu, load, &gpu.upload(&a)?, &mut b, 9, 256)?;
            gpu.download(&b)
        })?;
    }
    for (variant, name) in [(Ch3Copy::Tlp, "tlp_copy"), (Ch3Copy::Ilp, "ilp_copy")] {
        c.compare(&format!("{name}_{}", T::NAME), Tolerance::EXACT, |gpu| {
            let mut b = gpu.zeros::<T>(a.len())?;
            copy::copy(gpu, variant, &gpu.upload(&a)?, &mut b, 96, 0)?;
            gpu.download(&b)
        })?;
    }
    if T::NAME == "f32" {
        use crate::examples::ch3::texture_average::{self, Load as AverageLoad, Points};
        let side = 100;
        let input = texture_average::input(side, 5)?;
        for (points, load, kernel) in [
            (Points::Four, AverageLoad::Global, "average4"),
            (Points::Eight, AverageLoad::Global, "average8"),
            (Points::Four, AverageLoad::ReadOnly, "average4_tex"),
            (Points::Eight, AverageLoad::ReadOnly, "average8_tex"),
        ] {
            c.compare(kernel, Tolerance::EXACT, |gpu| {
                let mut b = gpu.zeros::<f32>(side * side)?;
                texture_average::average(gpu, points, load, &gpu.upload(&input)?, &mut b, side, 32)?;
                gpu.download(&b)
            })?;
        }
    }
    Ok(())
}

/// ch3: every kernel bit for bit (explicit roundings, same orders), except the sines: the
/// accurate one's `libm` code is contracted into FMAs on the GPU, and the simulator replaces the
/// fast one's approximations by the accurate functions.
fn chapter_three_compute(c: &mut Comparison) -> Result<()> {
    use crate::examples::ch3::{constant_increment, divergence, intrinsics, localmem};
    use book_kernels::ch3::constant_increment::{B_WORD, COEFF_WORD};
    let n = 100_003;
    for variant in localmem::Variant::ALL {
        c.compare(variant.kernel(), Tolerance::EXACT, |gpu| {
            let x = gpu.upload(&ramp_real::<f32>(n, 50.0))?;
            let mut a = gpu.zeros::<f32>(n)?;
            localmem::launch(gpu, variant, &mut a, &x)?;
            gpu.download(&a)
        })?;
    }
    for source in constant_increment::Source::ALL {
        c.compare(source.increment_kernel(), Tolerance::EXACT, |gpu| {
            crate::kernels(gpu)?.write_constant(B_WORD, &[5i32])?;
            let (mut a, b) = (gpu.upload(&ramp_i32(1000))?, gpu.upload(&[5i32])?);
            constant_increment::increment(gpu, source, &mut a, 5, &b)?;
            gpu.download(&a)
        })?;
        c.compare(source.poly_kernel(), Tolerance::EXACT, |gpu| {
            let coeffs = constant_increment::coefficients();
            crate::kernels(gpu)?.write_constant(COEFF_WORD, &coeffs)?;
            let (x, c_d) = (gpu.upload(&ramp_real::<f32>(n, 2.0))?, gpu.upload(&coeffs)?);
            let mut y = gpu.zeros::<f32>(n)?;
            constant_increment::poly(gpu, source, &mut y, &x, &c_d)?;
            gpu.download(&y)
        })?;
    }
    for variant in intrinsics::Variant::ALL {
        let tolerance = match variant {
            intrinsics::Variant::Accurate => intrinsics::ACCURATE,
            intrinsics::Variant::Fast => intrinsics::FAST,
            _ => Tolerance::EXACT,
        };
        c.compare(variant.kernel(), tolerance, |gpu| {
            let x = gpu.upload(&intrinsics::inputs(n)?)?;
            let mut y = gpu.zeros::<f32>(n)?;
            intrinsics::launch(gpu, variant, &mut y, &x)?;
            gpu.download(&y)
        })?;
    }
    // Directed rounding and flush to zero: the simulator rounds exactly in software.
    c.compare("directed_rounding_f32", Tolerance::EXACT, |gpu| {
        directed_rounding_outputs::<f32>(gpu)
    })?;
    c.compare("directed_rounding_f64", Tolerance::EXACT, |gpu| {
        directed_rounding_outputs::<f64>(gpu)
    })?;
    c.compare("flush_to_zero", Tolerance::EXACT, |gpu| {
        let (a, b): (Vec<f32>, Vec<f32>) = intrinsics::FLUSH_PAIRS.iter().copied().unzip();
        let mut out = gpu.zeros::<f32>(book_kernels::ch3::intrinsics::FLUSH_RESULTS * a.len())?;
        intrinsics::flush_to_zero(gpu, &mut out, &gpu.upload(&a)?, &gpu.upload(&b)?)?;
        gpu.download(&out)
    })?;
    // sincos: explicit fmas and roundings, bit for bit; sinf/cosf apart: libm's code, contracted
    // on the GPU, within the example's ulp bound (relative, at values of at most 1).
    for variant in intrinsics::SinCos::ALL {
        let tolerance = match variant {
            intrinsics::SinCos::OneReduction => Tolerance::EXACT,
            intrinsics::SinCos::Separate => Tolerance {
                abs: 1e-30,
                rel: 2.0 * intrinsics::SEPARATE_ULPS as f64 * f32::EPSILON as f64,
            },
        };
        c.compare(variant.kernel(), tolerance, |gpu| {
            let x = gpu.upload(&intrinsics::sincos_inputs(n)?)?;
            let (mut s, mut co) = (gpu.zeros::<f32>(n)?, gpu.zeros::<f32>(n)?);
            intrinsics::sincos(gpu, variant, &mut s, &mut co, &x)?;
            let mut both = gpu.download(&s)?;
            both.extend(gpu.download(&co)?);
            Ok(both)
        })?;
    }
    c.compare("staged_copy", Tolerance::EXACT, |gpu| {
        let input = gpu.upload(&ramp_real::<f32>(2 * book_kernels::ch3::cache_config::CHUNK + 77, 10.0))?;
        let mut output = gpu.zeros::<f32>(input.len())?;
        crate::examples::ch3::cache_config::staged_copy(gpu, &input, &mut output)?;
        gpu.download(&output)
    })?;
    for variant in divergence::Variant::ALL {
        c.compare(variant.kernel(), Tolerance::EXACT, |gpu| {
            let mut x = gpu.zeros::<f32>(10_007)?;
            divergence::launch(gpu, variant, &mut x, 128)?;
            gpu.download(&x)
        })?;
    }
    Ok(())
}

/// ch3-intrinsics' directed roundings of its pairs, on `gpu`.
fn directed_rounding_outputs<T>(gpu: &Gpu) -> Result<Vec<T>>
where
    T: ferrocuda::device::real::Real + Element,
    book_kernels::ch3::intrinsics::DirectedRounding: ferrocuda::Kernel<book_kernels::ch3::intrinsics::RoundingArgs<T>>,
{
    use crate::examples::ch3::intrinsics;
    let (a, b) = intrinsics::rounding_inputs::<T>(intrinsics::ROUNDING_PAIRS)?;
    let mut out = gpu.zeros::<T>(book_kernels::ch3::intrinsics::ROUNDINGS * a.len())?;
    intrinsics::directed_rounding(gpu, &mut out, &gpu.upload(&a)?, &gpu.upload(&b)?)?;
    gpu.download(&out)
}

/// The matrix multiplies: one fma per step in the same order on both backends, so bit for bit.
fn matmul(c: &mut Comparison) -> Result<()> {
    use crate::examples::course::matmul_tiled::{Operands, Variant, random_matrix};
    for dims @ (m, n, k) in [(33, 65, 17), (256, 256, 64)] {
        for variant in Variant::KERNELS {
            c.compare(&format!("{} {m}x{n}x{k}", variant.kernel()), Tolerance::EXACT, |gpu| {
                let mut ops = Operands::new(gpu, dims, &random_matrix(m * k, 1), &random_matrix(k * n, 2))?;
                ops.launch(gpu, variant)?;
                gpu.download(&ops.c_d)
            })?;
        }
    }
    Ok(())
}

/// The shared-memory examples of chapter 3 (§3.3.3, §3.4): the reversals, the bank-conflict
/// sums at a conflict-free, a conflicting and the padded stride, and every transpose at a
/// ragged 100 x 70 (full and edge tiles both) and a rectangular 96 x 64 (the diagonal kernels'
/// rectangular block order).
fn chapter_three_shared_memory(c: &mut Comparison) -> Result<()> {
    use crate::examples::ch3::{bank_conflicts, shared_reverse, transpose};
    for variant in shared_reverse::Variant::ALL {
        c.compare(variant.kernel(), Tolerance::EXACT, |gpu| {
            let mut d = gpu.upload(&ramp_real::<f32>(64, 5.0))?;
            shared_reverse::reverse(gpu, variant, &mut d)?;
            gpu.download(&d)
        })?;
    }
    for stride in [1, 32, 33] {
        c.compare(&format!("bank_conflicts stride {stride}"), Tolerance::EXACT, |gpu| {
            let mut out = gpu.zeros::<u32>(2 * bank_conflicts::THREADS_PER_BLOCK as usize)?;
            bank_conflicts::launch(gpu, &mut out, stride, 3)?;
            gpu.download(&out)
        })?;
    }
    for variant in transpose::Variant::ALL {
        c.compare(variant.kernel(), Tolerance::EXACT, |gpu| {
            let mut out = Vec::new();
            for (nx, ny) in [(100, 70), (96, 64)] {
                let idata = gpu.upload(&ramp_real::<f32>(nx * ny, 8.0))?;
                let mut odata = gpu.upload(&vec![-1.0f32; nx * ny])?;
                transpose::transpose(gpu, variant, &mut odata, &idata, nx, ny)?;
                out.extend(gpu.download(&odata)?);
            }
            Ok(out)
        })?;
    }
    Ok(())
}

fn stream_kernels<T: StreamReal>(c: &mut Comparison) -> Result<()> {
    let n = 100_003;
    for layout in Layout::ALL {
        for op in Op::ALL {
            let kernel = format!("stream_{}{}_{}", op.label().to_lowercase(), layout.label(), T::NAME);
            c.compare(&kernel, Tolerance::EXACT, |gpu| {
                let (a, b) = (
                    gpu.upload(&ramp_real::<T>(n, 10.0))?,
                    gpu.upload(&ramp_real::<T>(n, 3.0))?,
                );
                let mut out = gpu.zeros::<T>(n)?;
                let scalar = T::from_f64(0.4);
                match op {
                    Op::Copy | Op::Scale => stream::unary(gpu, op, layout, &a, &mut out, scalar, 512)?,
                    Op::Add | Op::Triad => stream::binary(gpu, op, layout, [&a, &b], &mut out, scalar, 512)?,
                }
                gpu.download(&out)
            })?;
        }
    }
    c.compare(
        &format!("stream_triad_four_per_thread_{}", T::NAME),
        Tolerance::EXACT,
        |gpu| {
            let (a, b) = (
                gpu.upload(&ramp_real::<T>(n, 10.0))?,
                gpu.upload(&ramp_real::<T>(n, 3.0))?,
            );
            let mut out = gpu.zeros::<T>(n)?;
            stream::triad_four_per_thread(gpu, &a, &b, &mut out, T::from_f64(0.4), 512)?;
            gpu.download(&out)
        },
    )
}

fn others(c: &mut Comparison) -> Result<()> {
    c.compare("vec_add_kernel", Tolerance::EXACT, |gpu| {
        let (a, b) = (
            gpu.upload(&ramp_real::<f32>(100_003, 5.0))?,
            gpu.upload(&ramp_real::<f32>(100_003, 9.0))?,
        );
        let mut out = gpu.zeros::<f32>(100_003)?;
        vector_add::vector_add(gpu, &a, &b, &mut out)?;
        gpu.download(&out)
    })?;
    for (kernel, variant) in [
        ("gcopy1", CopyVariant::OneD),
        ("gcopy2a", CopyVariant::RowOfBlocks),
        ("gcopy2b", CopyVariant::BlockPerRow),
        ("gcopy3", CopyVariant::Tiled),
    ] {
        c.compare(kernel, Tolerance::EXACT, |gpu| {
            let (nx, ny) = (1000, 33);
            let b = gpu.upload(&ramp_real::<f32>(nx * ny, 4.0))?;
            let mut a = gpu.upload(&vec![f32::NAN; nx * ny])?;
            vector_copy::copy(gpu, variant, &mut a, &b, nx, ny)?;
            gpu.download(&a)
        })?;
    }
    c.compare("empty_kernel", Tolerance::EXACT, |gpu| {
        crate::kernels(gpu)?.launch(
            EmptyKernel,
            LaunchShape::new((4, 1, 1), (32, 1, 1)),
            EmptyArgs::default(),
        )?;
        gpu.synchronize().map(|()| Vec::<u32>::new())
    })
}

/// The tutorial's and the course's sums and histograms: integer-valued sums below 2^24 and
/// integer counts, so exact whatever order the atomics land in.
fn sums_and_histograms(c: &mut Comparison) -> Result<()> {
    let n: usize = 100_003;
    let values: Vec<f32> = (0..n).map(|j| (j % 7 + 1) as f32).collect();
    c.compare("gsum1", Tolerance::EXACT, |gpu| {
        let a = gpu.upload(&values)?;
        let mut sa = gpu.zeros::<f32>(1)?;
        sum_reduction::gpu_sum1(gpu, &a, &mut sa, sum_reduction::MX)?;
        gpu.download(&sa)
    })?;
    c.compare("gsum2", Tolerance::EXACT, |gpu| {
        let a = gpu.upload(&values)?;
        let mut d = gpu.zeros::<f32>(n.div_ceil(sum_reduction::MX as usize))?;
        sum_reduction::gpu_sum2(gpu, &a, &mut d, sum_reduction::MX)?;
        gpu.download(&d)
    })?;
    for variant in ReductionVariant::ALL {
        c.compare(variant.kernel(), Tolerance::EXACT, |gpu| {
            let input = gpu.upload(&course_reduction::bits(n))?;
            let mut plan = course_reduction::Plan::new(gpu, n, course_reduction::BLOCK_SIZE)?;
            plan.launch(gpu, variant, &input)?;
            Ok(vec![plan.result(gpu)?])
        })?;
    }
    for (variant, data) in [
        (HistoVariant::Letters, Data::Text),
        (HistoVariant::LettersPrivatized, Data::Text),
        (HistoVariant::Bytes, Data::Skewed),
        (HistoVariant::BytesPrivatized, Data::Skewed),
    ] {
        c.compare(variant.name(), Tolerance::EXACT, |gpu| {
            let buffer = gpu.upload(&data.generate(n, 11))?;
            let mut histo = gpu.zeros::<u32>(variant.bins())?;
            histogram::histogram(gpu, variant, &buffer, &mut histo, histogram::THREADS_PER_BLOCK)?;
            gpu.download(&histo)
        })?;
    }
    Ok(())
}

/// The pi examples' kernels (book §5.2, §5.3) over the same points on both backends: integer
/// counts and point indices, so exact whatever order the blocks finish in. The points are a
/// ramp plus Table 5.1's three, which the two roundings classify differently.
fn pi_counts<T: PiFloat>(c: &mut Comparison) -> Result<()> {
    use crate::examples::ch5::pi::{self, Rounding};
    use crate::examples::ch5::pi_fma::{self, TABLE_5_1};
    use crate::examples::ch5::pi_reduction_atomiclock::{self as atomiclock, LockedSum};
    use crate::examples::ch5::pi_reduction_twopass::{self as twopass, TwoPass};
    let n = 100_003;
    let mut x: Vec<T> = (0..n)
        .map(|i| T::from_f64((i * 7919 % 10007) as f64 / 10007.0))
        .collect();
    let mut y: Vec<T> = (0..n)
        .map(|i| T::from_f64((i * 104729 % 10009) as f64 / 10009.0))
        .collect();
    for (k, &(_, xk, yk)) in TABLE_5_1.iter().enumerate() {
        x[k] = T::from_f64(f32::from_bits(xk).into());
        y[k] = T::from_f64(f32::from_bits(yk).into());
    }
    let xy = [x, y].concat();
    let xy = &xy;
    for (kernel, rounding) in [("pi_count", Rounding::Separate), ("pi_count_fma", Rounding::Fma)] {
        c.compare(&format!("{kernel}_{}", T::NAME), Tolerance::EXACT, |gpu| {
            Ok(vec![pi::count(gpu, rounding, &gpu.upload(xy)?)? as f64])
        })?;
    }
    c.compare(&format!("pi_fma_mismatches_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let (count, indices) = pi_fma::mismatches(gpu, &gpu.upload(xy)?)?;
        Ok([count as f64]
            .into_iter()
            .chain(indices.into_iter().map(|i| i as f64))
            .collect())
    })?;
    c.compare(
        &format!("partial_sum_{} + final_sum", T::NAME),
        Tolerance::EXACT,
        |gpu| {
            let (blocks, threads) = twopass::BOOK_SHAPE;
            let mut two_pass = TwoPass::new(gpu, blocks, threads)?;
            two_pass.launch(gpu, &gpu.upload(xy)?)?;
            Ok(vec![two_pass.total(gpu)? as f64])
        },
    )?;
    c.compare(&format!("sum_{} (atomic lock)", T::NAME), Tolerance::EXACT, |gpu| {
        let (blocks, threads) = atomiclock::BOOK_SHAPE;
        let mut locked = LockedSum::new(gpu, blocks, threads)?;
        locked.launch(gpu, &gpu.upload(xy)?)?;
        Ok(vec![locked.total(gpu)? as f64])
    })
}

/// The Monte Carlo kernels (book §5.5) at one launch shape on both backends, since their float
/// partial sums follow it: every payoff and every block's sums, bit for bit (the exponential and
/// every multiply-add are rounded explicitly, so the GPU rounds as the simulator does).
fn bs_european_mc<T: McReal>(c: &mut Comparison) -> Result<()> {
    use crate::examples::ch5::bs_european_mc::McBuffers;
    use crate::reference::ch5::bs_european_mc::BOOK_OPTION;
    use book_kernels::ch5::bs_european_mc::shared_bytes;
    let n = 100_003;
    let shape = LaunchShape::new((64, 1, 1), (128, 1, 1)).with_shared_bytes(shared_bytes::<T>() as u32);
    // Normals from -4 to 4, in an order that differs per element.
    let normals: Vec<T> = (0..n)
        .map(|i| T::from_f64(((i * 7919 % 10007) as f64 / 10007.0 - 0.5) * 8.0))
        .collect();
    let normals = &normals;
    let payoffs = |gpu: &Gpu| -> Result<McBuffers<T>> {
        let mut buffers = McBuffers::new(gpu, n, shape)?;
        buffers.launch_payoffs(gpu, shape, &gpu.upload(normals)?, BOOK_OPTION.model::<T>())?;
        Ok(buffers)
    };
    c.compare(&format!("mc_payoffs_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let buffers = payoffs(gpu)?;
        let outputs = [
            &buffers.put_d,
            &buffers.call_d,
            &buffers.put_partials_d,
            &buffers.call_partials_d,
        ];
        Ok(outputs
            .map(|output| gpu.download(output))
            .into_iter()
            .collect::<Result<Vec<_>>>()?
            .concat())
    })?;
    c.compare(&format!("mc_squared_deviations_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let mut buffers = payoffs(gpu)?;
        buffers.launch_squared_deviations(gpu, shape, T::from_f64(0.128), T::from_f64(1.32))?;
        Ok([
            gpu.download(&buffers.put_partials_d)?,
            gpu.download(&buffers.call_partials_d)?,
        ]
        .concat())
    })
}

/// The SOR kernels, bit for bit, on a grid whose sides are not multiples of any block: each
/// kernel's 10 iterations and, for the split layout, its residual.
fn sor<T: SorReal>(c: &mut Comparison) -> Result<()> {
    use ferrocuda::sor::single::{Stop, solve, solve_iterations};
    let (rows, cols) = (67, 229);
    let initial: Vec<T> = ferrocuda::sor::Problem::Harmonic.initial(rows, cols)?;
    for variant in ferrocuda::sor::Variant::ALL {
        c.compare(&format!("sor_{variant}_{}", T::NAME), Tolerance::EXACT, |gpu| {
            Ok(solve_iterations(gpu, variant, &initial, rows, cols, 1.7, 10)?.grid)
        })?;
    }
    c.compare(&format!("sor_residual_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let stop = Stop::Tolerance {
            tolerance: 1e-30,
            max_iterations: 3,
            check_every: 3,
        };
        let solution = solve(gpu, ferrocuda::sor::Variant::Split, &initial, rows, cols, 1.7, stop)?;
        Ok(vec![solution.residual.unwrap_or(f64::NAN)])
    })
}

/// The Philox kernels, bit for bit: their logarithm and sine round every operation explicitly,
/// so the simulator's result is the GPU's (a 16-byte-aligned buffer and its tail of three).
fn philox<T: RandomFloat + Into<f64>>(c: &mut Comparison) -> Result<()> {
    let n = 100_003;
    c.compare(&format!("philox_uniform_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let mut x = gpu.zeros::<T>(n)?;
        rng::fill_uniform(gpu, 1234, 5, &mut x)?;
        gpu.download(&x)
    })?;
    c.compare(&format!("philox_normal_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let mut x = gpu.zeros::<T>(n)?;
        rng::fill_normal(gpu, 1234, 5, &mut x)?;
        gpu.download(&x)
    })
}

fn probes(c: &mut Comparison) -> Result<()> {
    c.compare("probe_index", Tolerance::EXACT, |gpu| {
        let mut out = gpu.zeros::<u32>(INDEX_FIELDS * 12 * 6 * 4)?;
        library(gpu)?.launch(
            ProbeIndex,
            LaunchShape::new((3, 2, 2), (4, 3, 2)),
            OutArgs { out: out.view_mut() },
        )?;
        gpu.download(&out)
    })?;
    c.compare("probe_grid_stride", Tolerance::EXACT, |gpu| {
        let mut out = gpu.zeros::<u32>(100_003)?;
        library(gpu)?.launch(
            ProbeGridStride,
            LaunchShape::new((7, 1, 1), (128, 1, 1)),
            OutArgs { out: out.view_mut() },
        )?;
        gpu.download(&out)
    })?;
    c.compare("probe_shared_reverse", Tolerance::EXACT, |gpu| {
        let mut data = gpu.upload(&ramp_i32(65 * 40))?;
        let shape = LaunchShape::new((40, 1, 1), (65, 1, 1)).with_shared_bytes(Tile1d::<i32>::bytes(65) as u32);
        library(gpu)?.launch(ProbeSharedReverse, shape, OutArgs { out: data.view_mut() })?;
        gpu.download(&data)
    })?;
    c.compare("probe_tile_transpose", Tolerance::EXACT, |gpu| {
        let (nx, ny) = (100, 70);
        let input = gpu.upload(&ramp_real::<f32>(nx * ny, 8.0))?;
        let mut out = gpu.upload(&vec![f32::NAN; nx * ny])?;
        let shape = LaunchShape::new((4, 3, 1), (TILE_DIM as u32, BLOCK_ROWS as u32, 1))
            .with_shared_bytes(TransposeTile::BYTES as u32);
        let args = TransposeArgs {
            input: input.view(),
            output: out.view_mut(),
            nx: nx as u32,
            ny: ny as u32,
        };
        library(gpu)?.launch(ProbeTileTranspose, shape, args)?;
        gpu.download(&out)
    })?;
    c.compare("probe_warp", Tolerance::EXACT, |gpu| {
        let input = gpu.upload(&ramp_i32(256))?;
        let mut out = gpu.zeros::<i32>(WARP_FIELDS * 256)?;
        library(gpu)?.launch(
            ProbeWarp,
            LaunchShape::new((2, 1, 1), (128, 1, 1)),
            WarpArgs {
                input: input.view(),
                out: out.view_mut(),
            },
        )?;
        gpu.download(&out)
    })?;
    c.compare("probe_warp_sum_f64", Tolerance::EXACT, |gpu| {
        let input = gpu.upload(&(0..512).map(|i| (i as f64 - 200.0) * 0.25).collect::<Vec<_>>())?;
        let mut out = gpu.zeros::<f64>(16)?;
        library(gpu)?.launch(
            ProbeWarpSumF64,
            LaunchShape::cover_1d(512, 128)?,
            WarpSumF64Args {
                input: input.view(),
                out: out.view_mut(),
            },
        )?;
        gpu.download(&out)
    })?;
    c.compare("probe_atomics", Tolerance::EXACT, |gpu| {
        let mut i32s = gpu.upload(&[0, i32::MAX, i32::MIN])?;
        let mut u32s = gpu.upload(&[0, u32::MAX, 0, u32::MAX, 0, 0])?;
        let mut u64s = gpu.upload(&[0, u64::MAX, 0, u64::MAX, 0])?;
        let (mut f32s, mut f64s) = (gpu.upload(&[0.0f32])?, gpu.upload(&[0.0f64])?);
        let args = AtomicArgs {
            i32s: i32s.view_mut(),
            u32s: u32s.view_mut(),
            u64s: u64s.view_mut(),
            f32s: f32s.view_mut(),
            f64s: f64s.view_mut(),
        };
        let shape = LaunchShape::new((40, 1, 1), (256, 1, 1)).with_shared_bytes(Tile1d::<u32>::bytes(1) as u32);
        library(gpu)?.launch(ProbeAtomics, shape, args)?;
        let (i, u, l) = (gpu.download(&i32s)?, gpu.download(&u32s)?, gpu.download(&u64s)?);
        // The exchanges keep whichever thread came last, which differs by design: left out.
        let mut values: Vec<f64> = i.iter().map(|&v| v as f64).collect();
        values.extend([u[0], u[1], u[2], u[4], u[5]].map(f64::from));
        values.extend([l[0], l[1], l[2], l[4]].map(|v| v as f64));
        values.extend(gpu.download(&f32s)?.iter().map(|&v| v as f64));
        values.extend(gpu.download(&f64s)?);
        Ok(values)
    })?;
    rounding::<f32>(c)?;
    rounding::<f64>(c)
}

fn rounding<T: StreamReal>(c: &mut Comparison) -> Result<()>
where
    ProbeRounding: ferrocuda::device::launch::Kernel<RoundingArgs<T>>,
{
    c.compare(&format!("probe_rounding_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let n = 1000;
        let a: Vec<T> = (0..n).map(|i| T::from_f64(1.0 + i as f64 * 1.1e-4)).collect();
        let b: Vec<T> = (0..n).map(|i| T::from_f64(1.0 - i as f64 * 0.9e-4)).collect();
        let c_values: Vec<T> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| T::from_f64(-(x * y).to_f64()))
            .collect();
        let (a, b, c_d) = (gpu.upload(&a)?, gpu.upload(&b)?, gpu.upload(&c_values)?);
        let (mut fused, mut unfused) = (gpu.zeros::<T>(n)?, gpu.zeros::<T>(n)?);
        let args = RoundingArgs {
            a: a.view(),
            b: b.view(),
            c: c_d.view(),
            fused: fused.view_mut(),
            unfused: unfused.view_mut(),
        };
        library(gpu)?.launch(ProbeRounding, LaunchShape::cover_1d(n, 128)?, args)?;
        let mut out = gpu.download(&fused)?;
        out.extend(gpu.download(&unfused)?);
        Ok(out)
    })
}

/// Every reduction kind on `T` over 100003 integers from 0 to 7: every partial sum stays below
/// 2^24, exact even in `f32`, so the order the blocks finish in cannot matter.
fn reductions<T: Reduce>(c: &mut Comparison) -> Result<()> {
    let values: Vec<T> = ramp_i32(100_003)
        .into_iter()
        .map(|x| T::from_u32(x as u32 % 8))
        .collect();
    for kind in [Kind::Sum, Kind::Min, Kind::Max, Kind::SumAtomic] {
        let name = format!("reduce_{}_{}", kind.kernel_stem(), std::any::type_name::<T>());
        c.compare(&name, Tolerance::EXACT, |gpu| {
            let input = gpu.upload(&values)?;
            let mut plan = Plan::<T>::new(gpu, values.len(), reduce::THREADS_PER_BLOCK)?;
            plan.launch(gpu, None, kind, &input)?;
            Ok(vec![plan.result(gpu)?.to_f64()])
        })?;
    }
    Ok(())
}

/// Prints the rows as a table; returns true when all agree.
pub fn print(rows: &[Row]) -> bool {
    println!(
        "{:<36} {:>8} {:>12} {:>12}  verdict",
        "kernel", "values", "max |diff|", "tolerance"
    );
    for row in rows {
        let tolerance = if row.tolerance == Tolerance::EXACT {
            "exact".to_string()
        } else {
            format!("{:.1e}", row.tolerance.abs)
        };
        println!(
            "{:<36} {:>8} {:>12.3e} {:>12}  {}",
            row.kernel,
            row.check.len,
            row.check.max_abs_err,
            tolerance,
            if row.agrees() { "agree" } else { "DIFFER" }
        );
    }
    let differ = rows.iter().filter(|r| !r.agrees()).count();
    println!(
        "{} kernels compared (probe_clock reads clocks, which no two runs share), {differ} differ",
        rows.len()
    );
    differ == 0
}
