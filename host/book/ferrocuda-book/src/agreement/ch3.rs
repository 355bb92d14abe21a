//! Book chapter 3's kernels on both backends: the shared-memory examples (§3.3.3, §3.4), the
//! asynchronous transfers' kernel (§3.1.5), the memory-access kernels (§3.2, §3.5) and the
//! compute examples (§3.3: local and constant memory, intrinsics, roundings, divergence).
//! `ch3_cuf.rs` holds the CUF kernels.
use super::{Comparison, ramp_i32, ramp_real};
use crate::examples::ch2::limiting_factor::ACCURATE_SIN;
use crate::examples::stream::StreamReal;
use ferrocuda::gpu::{Element, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::Tolerance;

/// The shared-memory examples of chapter 3 (§3.3.3, §3.4): the reversals, the bank-conflict
/// sums at a conflict-free, a conflicting and the padded stride, and every transpose at a
/// ragged 100 x 70 (full and edge tiles both) and a rectangular 96 x 64 (the diagonal kernels'
/// rectangular block order).
pub(super) fn chapter_three_shared_memory(c: &mut Comparison) -> Result<()> {
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

/// ch3-async's kernel over chunks at three offsets, on streams, with arguments up to 2^22 (past
/// `sincosf`'s small-argument paths): `libm`'s `sincosf` on both backends, but the GPU may fuse
/// the multiply-adds inside it (as for `base`), so the tolerance is the sine's.
pub(super) fn chapter_three_transfers(c: &mut Comparison) -> Result<()> {
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
pub(super) fn ch3_access<T>(c: &mut Comparison) -> Result<()>
where
    T: StreamReal
        + crate::examples::ch3::offset_stride::OffsetStrideReal
        + crate::examples::ch3::stride_texture::StrideReal
        + crate::examples::ch3::copy::CopyReal,
{
    use crate::examples::ch3::copy::{self, Variant as Ch3Copy};
    use crate::examples::ch3::offset_stride::{self, Cache, Pattern, Placement};
    use crate::examples::ch3::stride_texture::{self, Load};
    let n = 10_007;
    let a = ramp_real::<T>(33 * n, 64.0);
    // Every pattern through L1, then the stride kernels with their load cached in L2 only
    // (`ld.global.cg`).
    let caches = Pattern::ALL.map(|pattern| (pattern, Cache::L1, ""));
    for (pattern, cache, suffix) in caches.into_iter().chain([(Pattern::Stride, Cache::Cg, "_cg")]) {
        let pattern_name = pattern.label().to_lowercase();
        for placement in Placement::ALL {
            let name = match placement {
                Placement::InPlace => format!("{pattern_name}{suffix}_{}", T::NAME),
                Placement::OutOfPlace => format!("{pattern_name}_out_of_place{suffix}_{}", T::NAME),
            };
            c.compare(&name, Tolerance::EXACT, |gpu| {
                let mut x = gpu.upload(&a)?;
                match placement {
                    Placement::InPlace => offset_stride::in_place(gpu, pattern, cache, &mut x, n, 7, 256)?,
                    Placement::OutOfPlace => {
                        offset_stride::out_of_place(gpu, pattern, cache, &gpu.upload(&a)?, &mut x, n, 7, 256)?
                    }
                }
                gpu.download(&x)
            })?;
        }
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
pub(super) fn chapter_three_compute(c: &mut Comparison) -> Result<()> {
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
    book_kernels::ch3::intrinsics::DirectedRounding:
        for<'a> ferrocuda::Kernel<book_kernels::ch3::intrinsics::RoundingArgs<'a, T>>,
{
    use crate::examples::ch3::intrinsics;
    let (a, b) = intrinsics::rounding_inputs::<T>(intrinsics::ROUNDING_PAIRS)?;
    let mut out = gpu.zeros::<T>(book_kernels::ch3::intrinsics::ROUNDINGS * a.len())?;
    intrinsics::directed_rounding(gpu, &mut out, &gpu.upload(&a)?, &gpu.upload(&b)?)?;
    gpu.download(&out)
}
