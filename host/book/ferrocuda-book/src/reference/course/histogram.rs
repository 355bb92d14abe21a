//! The course's histograms on the CPU, with rayon: letters in 7 bins of 4, and bytes in 256 bins.
use book_kernels::course::histogram::{BYTE_BINS, LETTER_BINS, letter_bin};
use rayon::prelude::*;

/// Counts of the letters `a..=z` of `text` in bins a-d, e-h, ..., y-z (other bytes skipped).
pub fn letters(text: &[u8]) -> Vec<u32> {
    let mut histo = vec![0; LETTER_BINS];
    for bin in text.iter().filter_map(|&c| letter_bin(c)) {
        histo[bin] += 1;
    }
    histo
}

/// Counts of each byte value of `data`.
pub fn bytes(data: &[u8]) -> Vec<u32> {
    data.par_chunks(1 << 20)
        .map(|chunk| {
            let mut histo = vec![0u32; BYTE_BINS];
            for &b in chunk {
                histo[b as usize] += 1;
            }
            histo
        })
        .reduce(
            || vec![0; BYTE_BINS],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                a
            },
        )
}
