//! Tensor-core instructions: `mma.sync` (PTX ISA §9.7.14.5.14, sm_80+ for these shapes) and the
//! conversion to TF32 (`cvt.rna.tf32.f32`, §9.7.9.21).
use core::arch::asm;

/// `mma.sync.aligned.<shape>.row.col.f32.<type>.<type>.f32`: `d = a b + c` for one warp, the
/// fragments in the ISA's register layout (see `crate::mma`); both shapes take four words of
/// `a`, two of `b` and four f32 of `c`.
macro_rules! mma {
    ($name:ident, $shape_and_types:literal) => {
        #[doc = concat!("`mma.sync.aligned.", $shape_and_types, "`.")]
        ///
        /// # Safety
        /// Every lane of the warp executes this same instruction, convergently (`.aligned`).
        #[inline(always)]
        pub unsafe fn $name(a: [u32; 4], b: [u32; 2], c: [f32; 4]) -> [f32; 4] {
            let (d0, d1, d2, d3): (f32, f32, f32, f32);
            // SAFETY: forwarded to the caller; registers only.
            unsafe {
                asm!(
                    concat!(
                        "mma.sync.aligned.", $shape_and_types,
                        " {{{}, {}, {}, {}}}, {{{}, {}, {}, {}}}, {{{}, {}}}, {{{}, {}, {}, {}}};"
                    ),
                    out(reg32) d0, out(reg32) d1, out(reg32) d2, out(reg32) d3,
                    in(reg32) a[0], in(reg32) a[1], in(reg32) a[2], in(reg32) a[3],
                    in(reg32) b[0], in(reg32) b[1],
                    in(reg32) c[0], in(reg32) c[1], in(reg32) c[2], in(reg32) c[3],
                    options(nostack, nomem)
                )
            };
            [d0, d1, d2, d3]
        }
    };
}
mma!(mma_bf16_m16n8k16, "m16n8k16.row.col.f32.bf16.bf16.f32");
mma!(mma_tf32_m16n8k8, "m16n8k8.row.col.f32.tf32.tf32.f32");

/// `cvt.rna.tf32.f32`: `x` rounded to TF32 (10 mantissa bits), to nearest with ties away from
/// zero, in a 32-bit register whose low 13 bits are zero.
#[inline(always)]
pub fn cvt_rna_tf32(x: f32) -> u32 {
    let out: u32;
    // SAFETY: a register-only conversion.
    unsafe { asm!("cvt.rna.tf32.f32 {}, {};", out(reg32) out, in(reg32) x, options(pure, nomem, nostack)) };
    out
}

/// `ldmatrix.sync.aligned.m8n8.x4.shared.b16` (PTX ISA §9.7.14.5.15): four 8 x 8 matrices of
/// 16-bit elements from shared memory, one warp together. Lanes `8i .. 8i + 8` give the
/// addresses of rows 0..8 of matrix `i` (16 bytes each, 16-byte aligned); lane `l` receives, in
/// word `i`, elements (`l / 4`, `2 (l % 4)`) and (`l / 4`, `2 (l % 4) + 1`) of matrix `i`, the
/// lower column in the low half: the `mma` fragment layout of an 8 x 8 block.
///
/// # Safety
/// Every lane of the warp executes it convergently (`.sync.aligned`), each with a generic
/// address of 16 readable bytes inside this launch's dynamic shared memory, 16-byte aligned.
#[inline(always)]
pub unsafe fn ldmatrix_x4_b16(row: *const u8) -> [u32; 4] {
    let row = super::shared_window_address(row);
    let (r0, r1, r2, r3): (u32, u32, u32, u32);
    // SAFETY: forwarded to the caller; the window address names the same shared bytes.
    unsafe {
        asm!(
            "ldmatrix.sync.aligned.m8n8.x4.shared.b16 {{{}, {}, {}, {}}}, [{}];",
            out(reg32) r0, out(reg32) r1, out(reg32) r2, out(reg32) r3, in(reg32) row,
            options(readonly, nostack, preserves_flags)
        )
    };
    [r0, r1, r2, r3]
}
