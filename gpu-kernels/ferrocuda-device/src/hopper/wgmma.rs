//! `wgmma.mma_async` and its ordering instructions, on typed accumulators.
//!
//! A use, by all 128 threads of a warpgroup (four consecutive warps, the first a multiple of 4):
//!
//! ```text
//! let mut acc = Accumulator::<64>::zeroed();           // a 64 x 128 tile of f32
//! for k0 in (0..64).step_by(16) {                       // K of 64 in steps of 16 (BF16)
//!     unsafe { wgmma::fence(); wgmma::bf16_m64n128k16(&mut acc, a.descriptor(k0), b.descriptor(k0), true) };
//! }
//! unsafe { wgmma::commit_group(); wgmma::wait_all(&mut acc) };
//! acc.for_each(|row, col, x| c.set(row * 128 + col, x));
//! ```
use super::MatrixDescriptor;
use crate::arch;

/// A warpgroup's 64 x N tile of f32 (`REGS = N / 2` in each thread): register `i` of the
/// thread at lane `l` of warp `w` of the warpgroup holds row `16 w + l / 4 + 8 (i / 2 % 2)`,
/// column `8 (i / 4) + 2 (l % 4) + i % 2` ([`Accumulator::position`]).
#[derive(Clone, Copy, Debug)]
pub struct Accumulator<const REGS: usize> {
    regs: [f32; REGS],
}

impl<const REGS: usize> Accumulator<REGS> {
    /// Columns of the tile.
    pub const N: usize = 2 * REGS;

    /// Every element 0.
    #[inline(always)]
    pub fn zeroed() -> Self {
        // A constant, not the repeat expression `[0.0; REGS]`, which rustc lowers to a loop of
        // stores for a generic length: LLVM cannot split a loop-written array into registers,
        // and the accumulator stayed in local memory.
        Self { regs: Self::ZEROS }
    }

    const ZEROS: [f32; REGS] = [0.0; REGS];

    /// The (row, column) register `i` of the calling thread holds.
    #[inline(always)]
    pub fn position(i: usize) -> (usize, usize) {
        position_in_warpgroup(crate::index::thread_rank_in_block() % 128, i)
    }

    /// Calls `f(row, column, value)` for each element the calling thread holds. Only after the
    /// group that wrote them has been waited for ([`wait_all`]).
    ///
    /// Spelled out for every register (LLVM leaves a loop of 64 or 128 rolled, and a rolled loop
    /// over the registers would keep them in local memory).
    #[inline(always)]
    pub fn for_each(&self, mut f: impl FnMut(usize, usize, f32)) {
        let thread = crate::index::thread_rank_in_block() % 128;
        macro_rules! each {
            ($($i:literal)*) => {$(
                if let Some(&x) = self.regs.get($i) {
                    let (row, col) = position_in_warpgroup(thread, $i);
                    f(row, col, x);
                }
            )*};
        }
        each!(
            0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23 24 25 26 27 28 29 30 31
            32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53 54 55 56 57 58 59 60 61 62 63
            64 65 66 67 68 69 70 71 72 73 74 75 76 77 78 79 80 81 82 83 84 85 86 87 88 89 90 91 92 93 94 95
            96 97 98 99 100 101 102 103 104 105 106 107 108 109 110 111 112 113 114 115 116 117 118 119 120 121 122 123 124 125 126 127
        );
        const { assert!(REGS <= 128, "an accumulator holds at most 128 registers (N = 256)") };
    }
}

/// The (row, column) of register `i` of thread `thread` (0..128) of a warpgroup's accumulator.
#[inline(always)]
pub(crate) fn position_in_warpgroup(thread: usize, i: usize) -> (usize, usize) {
    let (warp, lane) = (thread / 32, thread % 32);
    (
        16 * warp + lane / 4 + 8 * (i / 2 % 2),
        8 * (i / 4) + 2 * (lane % 4) + i % 2,
    )
}

/// Orders this warpgroup's earlier writes of accumulators and shared memory before the
/// `wgmma` instructions that follow (`wgmma.fence`).
///
/// # Safety
/// Every thread of the warpgroup executes it, converged.
#[inline(always)]
pub unsafe fn fence() {
    // SAFETY: forwarded to the caller.
    unsafe { arch::wgmma_fence() }
}

/// Closes the group of `wgmma` instructions issued since the last (`wgmma.commit_group`).
///
/// # Safety
/// Every thread of the warpgroup executes it, converged.
#[inline(always)]
pub unsafe fn commit_group() {
    // SAFETY: forwarded to the caller.
    unsafe { arch::wgmma_commit_group() }
}

/// Waits for every committed group (`wgmma.wait_group 0`); `acc` is readable after it (it
/// passes through here, so its reads stay after the wait).
///
/// # Safety
/// Every thread of the warpgroup executes it, converged.
#[inline(always)]
pub unsafe fn wait_all<const REGS: usize>(acc: &mut Accumulator<REGS>) {
    // SAFETY: forwarded to the caller.
    unsafe { arch::wgmma_wait_group_0() };
    arch::fence_registers(&mut acc.regs);
}

/// Waits until at most one committed group is pending (`wgmma.wait_group 1`): the one before
/// it is done. `retired` is the accumulator of that one.
///
/// # Safety
/// Every thread of the warpgroup executes it, converged.
#[inline(always)]
pub unsafe fn wait_all_but_one<const REGS: usize>(retired: &mut Accumulator<REGS>) {
    // SAFETY: forwarded to the caller.
    unsafe { arch::wgmma_wait_group_1() };
    arch::fence_registers(&mut retired.regs);
}

macro_rules! shapes {
    ($($(#[$doc:meta])* $name:ident => $arch:ident, $regs:literal;)*) => {$(
        $(#[$doc])*
        ///
        /// # Safety
        /// Every thread of the warpgroup executes it, converged, after a [`fence`]; `a` and `b`
        /// name K-major matrices of this launch's shared memory (a [`MatrixTile`]'s
        /// descriptors); neither they nor `acc` are touched until a wait has retired the group.
        ///
        /// [`MatrixTile`]: super::MatrixTile
        #[inline(always)]
        #[cfg_attr(not(target_arch = "nvptx64"), track_caller)]
        pub unsafe fn $name(acc: &mut Accumulator<$regs>, a: MatrixDescriptor, b: MatrixDescriptor, accumulate: bool) {
            // SAFETY: forwarded to the caller.
            unsafe { arch::$arch(&mut acc.regs, a.0, b.0, accumulate) }
        }
    )*};
}
shapes! {
    /// `acc = a b (+ acc)`: `a` 64 x 16 BF16, `b` 16 x 64 (as 64 rows of 16), f32 accumulation.
    bf16_m64n64k16 => wgmma_bf16_m64n64k16, 32;
    /// As [`bf16_m64n64k16`], N = 128.
    bf16_m64n128k16 => wgmma_bf16_m64n128k16, 64;
    /// As [`bf16_m64n64k16`], N = 256.
    bf16_m64n256k16 => wgmma_bf16_m64n256k16, 128;
    /// `acc = a b (+ acc)`: FP16 operands, f32 accumulation, N = 64.
    f16_m64n64k16 => wgmma_f16_m64n64k16, 32;
    /// As [`f16_m64n64k16`], N = 128.
    f16_m64n128k16 => wgmma_f16_m64n128k16, 64;
    /// As [`f16_m64n64k16`], N = 256.
    f16_m64n256k16 => wgmma_f16_m64n256k16, 128;
    /// `acc = a b (+ acc)`: TF32 operands (f32 in the tiles, their low 13 bits ignored), K = 8,
    /// N = 64.
    tf32_m64n64k8 => wgmma_tf32_m64n64k8, 32;
    /// As [`tf32_m64n64k8`], N = 128.
    tf32_m64n128k8 => wgmma_tf32_m64n128k8, 64;
    /// As [`tf32_m64n64k8`], N = 256.
    tf32_m64n256k8 => wgmma_tf32_m64n256k8, 128;
}
