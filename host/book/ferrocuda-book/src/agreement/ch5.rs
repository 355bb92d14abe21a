//! Book chapter 5's kernels on both backends: the pi counts and sums (§5.2, §5.3) and the Monte
//! Carlo option pricing (§5.5), exact.
use super::Comparison;
use crate::examples::ch5::bs_european_mc::McReal;
use crate::examples::ch5::pi::PiFloat;
use ferrocuda::gpu::{Gpu, LaunchShape, Result};
use ferrocuda::verify::Tolerance;

/// The pi examples' kernels (book §5.2, §5.3) over the same points on both backends: integer
/// counts and point indices, so exact whatever order the blocks finish in. The points are a
/// ramp plus Table 5.1's three, which the two roundings classify differently.
pub(super) fn pi_counts<T: PiFloat>(c: &mut Comparison) -> Result<()> {
    use crate::examples::ch5::pi::{self, Rounding};
    use crate::examples::ch5::pi_fma::{self, TABLE_5_1};
    use crate::examples::ch5::pi_reduction_atomiclock::{self as atomiclock, LockedSum};
    use crate::examples::ch5::pi_reduction_twopass::{self as twopass, TwoPass};
    // u64: `i * 104729` passes i32's range (a debug build's overflow check, a release build's wrap).
    let n = 100_003u64;
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
pub(super) fn bs_european_mc<T: McReal>(c: &mut Comparison) -> Result<()> {
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
