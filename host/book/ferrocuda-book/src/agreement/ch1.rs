//! Book chapter 1's kernels (§1.3-§1.5) on both backends: the increments in one block, over many
//! blocks and in 2D, the axpy in both precisions, and the separately compiled modules' variables
//! and linked device function; exact (integer adds, one rounding per element).
use super::{Comparison, ramp_i32, ramp_real};
use crate::examples::ch1::{increment_2d, increment_launch, precision, separate_compilation};
use ferrocuda::gpu::Result;
use ferrocuda::verify::Tolerance;

pub(super) fn chapter_one(c: &mut Comparison) -> Result<()> {
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
