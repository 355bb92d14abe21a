//! Copies of array sections on the CPU (book §3.1.2.1): what one `cudaMemcpy2D` must produce.
use ferrocuda::gpu::Copy2d;

/// Copies the section `copy` of `src` into `dst`, row by row.
///
/// Panics when the section does not fit (callers build it from the sizes they allocate).
pub fn copy_section<T: Copy>(src: &[T], dst: &mut [T], copy: Copy2d) {
    for row in 0..copy.height {
        let s = copy.src_offset + row * copy.src_pitch;
        let d = copy.dst_offset + row * copy.dst_pitch;
        dst[d..d + copy.width].copy_from_slice(&src[s..s + copy.width]);
    }
}
