//! Copies of array sections on the CPU (book §3.1.2.1): what one `cudaMemcpy2D` must produce.
use ferrocuda::gpu::{Copy2d, Error, Result};

/// Elements an array of `pitch` needs to hold a section of `width x height` at `offset` (0 for
/// an empty section), or `None` when that overflows.
fn span(offset: usize, pitch: usize, width: usize, height: usize) -> Option<usize> {
    if width == 0 || height == 0 {
        return Some(0);
    }
    (height - 1).checked_mul(pitch)?.checked_add(offset)?.checked_add(width)
}

/// Copies the section `copy` of `src` into `dst`, row by row. Refuses a section that does not
/// fit either array.
pub fn copy_section<T: Copy>(src: &[T], dst: &mut [T], copy: Copy2d) -> Result<()> {
    let Copy2d {
        src_offset,
        src_pitch,
        dst_offset,
        dst_pitch,
        width,
        height,
    } = copy;
    let fits = |offset, pitch, len| span(offset, pitch, width, height).is_some_and(|n| n <= len);
    if !fits(src_offset, src_pitch, src.len()) || !fits(dst_offset, dst_pitch, dst.len()) {
        return Err(Error::InvalidArgument(format!(
            "the section {copy:?} does not fit a source of {} and a destination of {} elements",
            src.len(),
            dst.len()
        )));
    }
    if width == 0 || height == 0 {
        return Ok(());
    }
    for row in 0..height {
        let s = src_offset + row * src_pitch;
        let d = dst_offset + row * dst_pitch;
        dst[d..d + width].copy_from_slice(&src[s..s + width]);
    }
    Ok(())
}
