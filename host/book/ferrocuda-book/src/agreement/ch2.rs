//! Book chapter 2's `limiting_factor` kernels (§2.2.2) on both backends: exact where they store
//! or skip plain arithmetic, within the sine's tolerance where they call it.
use super::{Comparison, ramp_real};
use crate::examples::ch2::limiting_factor::{self, ACCURATE_SIN, FAST_SIN, Variant};
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

pub(super) fn chapter_two(c: &mut Comparison) -> Result<()> {
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
