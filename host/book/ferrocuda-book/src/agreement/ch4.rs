//! Book chapter 4's kernels (§4.1, Appendix D.4.1) on both backends: `assign`, and the library's
//! `cuda_transpose` and `transpose_wide` on sections with leading dimensions and ragged tiles,
//! compared exactly (a transpose and an assignment move values without arithmetic).
use super::Comparison;
use crate::examples::ch4::minimal;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::transpose::{self, TransposeTile};
use ferrocuda::verify::Tolerance;

/// Every chapter-4 kernel.
pub(super) fn ch4(c: &mut Comparison) -> Result<()> {
    c.compare("assign", Tolerance::EXACT, |gpu| {
        let mut a_d = gpu.upload(&[-1.0f32; minimal::N])?;
        minimal::assign(gpu, &mut a_d, 3.0)?;
        gpu.download(&a_d)
    })?;
    // A 97 x 70 section (ragged last tiles both ways) inside pitched buffers.
    c.compare("cuda_transpose", Tolerance::EXACT, |gpu| {
        section(gpu, false, (97, 70, 101, 75, 5, 3))
    })?;
    // 130 x 200 with even offsets and leading dimensions (the 8-byte path on full tiles, 4-byte
    // accesses on the ragged ones), then 97 x 70 with odd ones (4-byte throughout).
    c.compare("transpose_wide", Tolerance::EXACT, |gpu| {
        let even = section(gpu, true, (130, 200, 132, 202, 6, 4))?;
        Ok([even, section(gpu, true, (97, 70, 101, 75, 5, 3))?].concat())
    })
}

/// The output of `transpose_wide` (`wide`) or `cuda_transpose` on an `nx` x `ny` section: input
/// rows `ldi` apart from `idata_offset`, output rows `ldo` apart from `odata_offset`, the rest
/// poisoned with -1.
fn section(
    gpu: &Gpu,
    wide: bool,
    (nx, ny, ldi, ldo, idata_offset, odata_offset): (usize, usize, usize, usize, usize, usize),
) -> Result<Vec<f32>> {
    let input: Vec<f32> = (0..idata_offset + ny * ldi).map(|i| (i * 7919 % 4099) as f32).collect();
    let idata = gpu.upload(&input)?;
    let mut odata = gpu.upload(&vec![-1.0f32; odata_offset + nx * ldo])?;
    let tile = TransposeTile {
        odata_offset,
        ldo,
        idata_offset,
        ldi,
        nx,
        ny,
    };
    match wide {
        true => transpose::transpose(gpu, None, &mut odata, &idata, tile)?,
        false => transpose::cuda_transpose(gpu, None, &mut odata, &idata, tile)?,
    }
    gpu.download(&odata)
}
