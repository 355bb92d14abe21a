//! The CUF loop bodies of ch3-cuf-* on both backends: the 1-D increment with a covering grid
//! (`<<<*,256>>>`) and a fixed one (`<<<1024,256>>>`, several elements per thread), and the 2-D
//! increment over a non-multiple of its 32 x 8 block.
use super::{Comparison, ramp_i32};
use crate::examples::ch3::cuf_increment::{self, Chevrons};
use crate::examples::ch3::cuf_increment_2d;
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

/// Every kernel of the CUF examples.
pub(super) fn ch3_cuf(c: &mut Comparison) -> Result<()> {
    let n = 300_007;
    for (kernel, chevrons) in [
        ("cuf_increment <<<*,256>>>", Chevrons::Increment),
        ("cuf_increment <<<1024,256>>>", Chevrons::Ilp),
    ] {
        c.compare(kernel, Tolerance::EXACT, |gpu| {
            let mut a_d = gpu.upload(&ramp_i32(n))?;
            cuf_increment::increment(gpu, &chevrons.kernel_loop(n)?, None, &mut a_d, 3)?;
            Ok(gpu.download(&a_d)?.into_iter().map(f64::from).collect())
        })?;
    }
    let (nx, ny) = (1000, 301);
    c.compare("cuf_increment_2d", Tolerance::EXACT, |gpu| {
        let mut a_d = gpu.upload(&ramp_i32(nx * ny))?;
        cuf_increment_2d::increment(gpu, &cuf_increment_2d::kernel_loop(nx, ny)?, &mut a_d, 3)?;
        Ok(gpu.download(&a_d)?.into_iter().map(f64::from).collect())
    })
}
