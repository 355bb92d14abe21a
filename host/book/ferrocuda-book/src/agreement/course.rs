//! The course's and the tutorial's kernels on both backends: the vector add and copies, the
//! empty kernel, the matrix multiplies, the sums and the histograms. `course_heat.rs`,
//! `course_images.rs` and `course_runtime.rs` hold the course's other examples.
use super::{Comparison, ramp_real};
use crate::examples::course::histogram::{self, Data, Variant as HistoVariant};
use crate::examples::course::reduction::{self as course_reduction, Variant as ReductionVariant};
use crate::examples::course::vector_add_common::vector_add;
use crate::examples::tutorial::sum_reduction;
use crate::examples::tutorial::vector_copy::{self, Variant as CopyVariant};
use book_kernels::tutorial::vector_copy::{EmptyArgs, EmptyKernel};
use ferrocuda::gpu::{LaunchShape, Result};
use ferrocuda::verify::Tolerance;

pub(super) fn others(c: &mut Comparison) -> Result<()> {
    c.compare("vec_add_kernel", Tolerance::EXACT, |gpu| {
        let (a, b) = (
            gpu.upload(&ramp_real::<f32>(100_003, 5.0))?,
            gpu.upload(&ramp_real::<f32>(100_003, 9.0))?,
        );
        let mut out = gpu.zeros::<f32>(100_003)?;
        vector_add(gpu, &a, &b, &mut out)?;
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
pub(super) fn sums_and_histograms(c: &mut Comparison) -> Result<()> {
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
            let input = gpu.upload(&course_reduction::bits(n)?)?;
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
        (HistoVariant::BytesPacked, Data::Skewed),
        (HistoVariant::BytesWarpAtomic, Data::Uniform),
    ] {
        c.compare(variant.name(), Tolerance::EXACT, |gpu| {
            let buffer = gpu.upload(&data.generate(n, 11)?)?;
            let mut histo = gpu.zeros::<u32>(variant.bins())?;
            histogram::histogram(gpu, variant, &buffer, &mut histo, histogram::THREADS_PER_BLOCK)?;
            gpu.download(&histo)
        })?;
    }
    Ok(())
}

/// The matrix multiplies: one fma per step in the same order on both backends, so bit for bit.
pub(super) fn matmul(c: &mut Comparison) -> Result<()> {
    use crate::examples::course::matmul_tiled::{Operands, Variant, random_matrix};
    for dims @ (m, n, k) in [(33, 65, 17), (256, 256, 64)] {
        for variant in Variant::KERNELS {
            c.compare(&format!("{} {m}x{n}x{k}", variant.kernel()), Tolerance::EXACT, |gpu| {
                let mut ops = Operands::new(gpu, dims, &random_matrix(m * k, 1)?, &random_matrix(k * n, 2)?)?;
                ops.launch(gpu, variant)?;
                gpu.download(&ops.c_d)
            })?;
        }
    }
    Ok(())
}
