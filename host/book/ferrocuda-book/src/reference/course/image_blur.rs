//! The course's blur on the CPU: the integer average of the 5 x 5 box over its in-image pixels.
use book_kernels::course::image_blur::BLUR_SIZE;
use ferrocuda::Result;
use rayon::prelude::*;

/// The blur of a `w x h` image, row-major, allocated fallibly.
pub fn blur(input: &[u8], w: usize, h: usize) -> Result<Vec<u8>> {
    let reach = BLUR_SIZE as isize;
    let mut out = ferrocuda::footprint::try_vec(input.len(), 0u8)?;
    out.par_chunks_mut(w.max(1)).enumerate().for_each(|(row, out_row)| {
        for (col, out) in out_row.iter_mut().enumerate() {
            let (mut pix_val, mut pixels) = (0u32, 0u32);
            for cur_row in row as isize - reach..=row as isize + reach {
                for cur_col in col as isize - reach..=col as isize + reach {
                    if (0..h as isize).contains(&cur_row) && (0..w as isize).contains(&cur_col) {
                        pix_val += u32::from(input[cur_row as usize * w + cur_col as usize]);
                        pixels += 1;
                    }
                }
            }
            *out = (pix_val / pixels) as u8;
        }
    });
    Ok(out)
}
