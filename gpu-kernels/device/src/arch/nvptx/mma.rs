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
