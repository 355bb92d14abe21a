//! The simulator's tensor-core instructions. `mma.sync` is built from the warp's shuffles: each
//! lane gathers the rows of `a` and columns of `b` its four outputs need from the lanes that hold
//! them (the fragment layouts of the PTX ISA, §9.7.14.5.14), so every lane must arrive, as on the
//! GPU. The dot products are summed in f64 from `c` and rounded once to f32: the products of
//! BF16 and TF32 values are exact there, so the result is the exactly rounded `a b + c`. The GPU's
//! accumulation order and internal rounding are not specified by PTX, so the two agree to a few
//! ulps of the sum of |products|, not bit for bit.
use super::shfl_idx_b32;
use ferrocuda_sim_abi as sim;

const FULL: u32 = 0xffff_ffff;

/// The value of `word` in lane `from` (every lane calls it, as `shfl.sync.idx`).
fn from_lane(word: u32, from: usize) -> u32 {
    // SAFETY: every lane of the warp runs the same sequence of these (the caller's contract).
    unsafe { shfl_idx_b32(FULL, word, from as u32, 0x1f) }
}

/// A BF16 number (the high half of an f32) as f32.
fn bf16(bits: u32) -> f32 {
    f32::from_bits((bits & 0xffff) << 16)
}

/// `d[r][j] = c + sum_k a[r][k] b[k][j]` for this lane's rows `g`, `g + 8` and columns `2t`,
/// `2t + 1`, in the C fragment's order.
fn accumulate<const K: usize>(rows: [[f32; K]; 2], cols: [[f32; K]; 2], c: [f32; 4]) -> [f32; 4] {
    core::array::from_fn(|i| {
        let (row, col) = (&rows[i / 2], &cols[i % 2]);
        let sum = row
            .iter()
            .zip(col)
            .fold(c[i] as f64, |sum, (&x, &y)| sum + x as f64 * y as f64);
        sum as f32
    })
}

/// The simulated `mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32`.
///
/// # Safety
/// Every lane of the warp executes it (a fault names the lanes that do not).
pub unsafe fn mma_bf16_m16n8k16(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    let lane = sim::lane_id() as usize;
    let (g, t) = (lane / 4, lane % 4);
    let mut rows = [[0.0f32; 16]; 2];
    let mut cols = [[0.0f32; 16]; 2];
    for q in 0..4 {
        // Lane 4g + q holds rows g (words 0, 2) and g + 8 (words 1, 3), columns 2q, 2q + 1
        // (words 0, 1) and 2q + 8, 2q + 9 (words 2, 3), the even column in the low half.
        for (w, &word) in a.iter().enumerate() {
            let pair = from_lane(word, 4 * g + q);
            let (row, col) = (w % 2, 2 * q + 8 * (w / 2));
            rows[row][col] = bf16(pair);
            rows[row][col + 1] = bf16(pair >> 16);
        }
        // Lane 4j + q holds column j, rows 2q, 2q + 1 (word 0) and 2q + 8, 2q + 9 (word 1).
        for (j, col) in cols.iter_mut().enumerate() {
            for (w, &word) in b.iter().enumerate() {
                let pair = from_lane(word, 4 * (2 * t + j) + q);
                col[2 * q + 8 * w] = bf16(pair);
                col[2 * q + 8 * w + 1] = bf16(pair >> 16);
            }
        }
    }
    accumulate(rows, cols, c)
}

/// The simulated `mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32`. Operands are used as
/// TF32: their low 13 bits are ignored, as the ISA's `.tf32` format has none.
///
/// # Safety
/// Every lane of the warp executes it (a fault names the lanes that do not).
pub unsafe fn mma_tf32_m16n8k8(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
    let tf32 = |bits: u32| f32::from_bits(bits & !0x1fff);
    let lane = sim::lane_id() as usize;
    let (g, t) = (lane / 4, lane % 4);
    let mut rows = [[0.0f32; 8]; 2];
    let mut cols = [[0.0f32; 8]; 2];
    for q in 0..4 {
        // Lane 4g + q holds rows g (words 0, 2) and g + 8 (words 1, 3), columns q (words 0, 1)
        // and q + 4 (words 2, 3).
        for (w, &word) in a.iter().enumerate() {
            rows[w % 2][q + 4 * (w / 2)] = tf32(from_lane(word, 4 * g + q));
        }
        // Lane 4j + q holds column j, rows q (word 0) and q + 4 (word 1).
        for (j, col) in cols.iter_mut().enumerate() {
            for (w, &word) in b.iter().enumerate() {
                col[q + 4 * w] = tf32(from_lane(word, 4 * (2 * t + j) + q));
            }
        }
    }
    accumulate(rows, cols, c)
}

/// The simulated `cvt.rna.tf32.f32`: to nearest, ties away from zero, on the low 13 bits;
/// infinities and NaNs keep their class.
pub fn cvt_rna_tf32(x: f32) -> u32 {
    let bits = x.to_bits();
    if !x.is_finite() {
        // A NaN stays a NaN (a payload bit is kept set), an infinity stays itself.
        return if x.is_nan() {
            (bits & !0x1fff) | 0x0040_0000
        } else {
            bits
        };
    }
    // Adding half an ulp of TF32 to the magnitude rounds ties away; a carry into the exponent is
    // the correct rounding up (to infinity past the largest finite).
    (bits + 0x1000) & !0x1fff
}

/// The simulated `ldmatrix.sync.aligned.m8n8.x4.shared.b16`, by its lane-address contract: lane
/// `l` reads word `l % 4` of the row whose address lane `8i + l / 4` gives, for each matrix `i`.
/// The addresses travel by shuffles (every lane must arrive, as on the GPU) and each word is a
/// checked shared read (bounds, never-written bytes and races are found as for any read).
///
/// # Safety
/// Every lane of the warp executes it; `row` lies in this launch's shared memory (checked),
/// 16-byte aligned (checked).
#[track_caller]
pub unsafe fn ldmatrix_x4_b16(row: *const u8) -> [u32; 4] {
    let base = sim::shared_base() as usize;
    let offset = (row as usize).wrapping_sub(base);
    if !offset.is_multiple_of(16) || u32::try_from(offset).is_err() {
        sim::fault(format_args!(
            "ldmatrix row address {row:p} is not 16-byte aligned inside shared memory"
        ));
    }
    let lane = sim::lane_id() as usize;
    let mut words = [0; 4];
    // A loop, not a closure, so that a race report names the caller's line (`track_caller`).
    for (i, word) in words.iter_mut().enumerate() {
        let source = from_lane(offset as u32, 8 * i + lane / 4) as usize;
        let address = (base + source + 4 * (lane % 4)) as *const u8;
        let checked = sim::shared_access(address, 4, sim::Access::Read);
        // SAFETY: `shared_access` checked that the 4 bytes lie in the block's shared buffer, which
        // only this host thread touches (a plain read, as `shared_load` says why); 4-byte aligned,
        // as `row` is 16-byte aligned (checked).
        *word = unsafe { checked.cast::<u32>().read() };
    }
    words
}
