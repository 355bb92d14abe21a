//! `colorConvert` on the CPU, rounded as nvcc compiles the course's C (see
//! `book_kernels::course::color_convert`), and unfused, for comparison.
use book_kernels::course::color_convert::{CHANNELS, WEIGHTS};
use ferrocuda::Result;
use rayon::prelude::*;

/// `0.21f*r + 0.71f*g + 0.07f*b` as nvcc contracts it: `fma(b, 0.07f, fma(r, 0.21f, g *
/// 0.71f))`, truncated toward zero to a byte.
pub fn gray(r: u8, g: u8, b: u8) -> u8 {
    let [wr, wg, wb] = WEIGHTS;
    let green = f32::from(g) * wg;
    f32::from(b).mul_add(wb, f32::from(r).mul_add(wr, green)) as u8
}

/// The same sum with every product and sum rounded on its own, left to right (`-fmad=false`).
pub fn gray_unfused(r: u8, g: u8, b: u8) -> u8 {
    let [wr, wg, wb] = WEIGHTS;
    (wr * f32::from(r) + wg * f32::from(g) + wb * f32::from(b)) as u8
}

/// The gray image of an interleaved RGB image, allocated fallibly.
pub fn color_convert(rgb: &[u8]) -> Result<Vec<u8>> {
    crate::reference::try_collect(rgb.par_chunks_exact(CHANNELS).map(|p| gray(p[0], p[1], p[2])))
}

/// Of the 2^24 colours, those whose gray byte the unfused sum changes.
pub fn colours_changed_by_fusion() -> usize {
    (0u32..1 << 24)
        .into_par_iter()
        .filter(|c| {
            let [r, g, b, _] = c.to_le_bytes();
            gray(r, g, b) != gray_unfused(r, g, b)
        })
        .count()
}
