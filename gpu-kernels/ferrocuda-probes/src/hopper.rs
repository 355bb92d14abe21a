//! Probes of Hopper's `wgmma` (`ferrocuda_device::hopper`): one warpgroup multiplies a 64 x 64
//! tile by a 64 x N tile through swizzled shared tiles, for BF16 and FP16 (K = 64, rows of 128
//! bytes), TF32 (K = 32, rows of 128 bytes) and BF16 again with K = 16 and 32 (rows of 32 and 64
//! bytes, the other two swizzles). Their tests are in `host/ferrocuda/tests/hopper.rs`.
use ferrocuda_device::hopper::{Accumulator, MatrixTile, wgmma};
use ferrocuda_device::prelude::*;

/// Arguments of the probes: `a` row-major 64 x K, `b` as N rows of K (column `j` of the
/// product's right factor is row `j`), `c` row-major 64 x N.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct WgmmaProbeArgs<'a, T> {
    pub a: Slice<'a, T>,
    pub b: Slice<'a, T>,
    pub c: SliceMut<'a, f32>,
}

macro_rules! probe {
    ($(#[$doc:meta])* $name:ident, $layout:ident, $t:ty, $k:literal, $n:literal, $regs:literal, $step:literal, $op:ident) => {
        ferrocuda_device::shared_layout! {
            /// The probe's two operand tiles.
            pub struct $layout() {
                pub a: MatrixTile<$t, 64, $k>,
                pub b: MatrixTile<$t, $n, $k>,
            }
        }

        $(#[$doc])*
        ///
        /// Launch: one block of 128 threads, the layout's bytes of shared memory.
        #[kernel(max_threads = 128, requires = "sm_90a")]
        pub fn $name(args: WgmmaProbeArgs<'_, $t>) {
            let $layout { a, b } = $layout::carve();
            let t = thread_idx_x();
            for i in (t..64 * $k).step_by(128) {
                a.set(i / $k, i % $k, args.a.get(i));
            }
            for i in (t..$n * $k).step_by(128) {
                b.set(i / $k, i % $k, args.b.get(i));
            }
            // The tiles are written before any thread's instruction reads them.
            sync_threads();
            let mut acc = Accumulator::<$regs>::zeroed();
            for k0 in (0..$k).step_by($step) {
                // SAFETY: all 128 threads of the block (one warpgroup) run this loop together;
                // the descriptors name the two tiles, which nothing writes until the wait.
                unsafe {
                    wgmma::fence();
                    wgmma::$op(&mut acc, a.descriptor(k0), b.descriptor(k0), k0 > 0);
                }
            }
            // SAFETY: as above.
            unsafe {
                wgmma::commit_group();
                wgmma::wait_all(&mut acc);
            }
            acc.for_each(|row, col, x| args.c.set(row * $n + col, x));
        }
    };
}
probe!(
    /// BF16, N = 128, K = 64: the 128-byte swizzle.
    probe_wgmma_bf16_k64, WgmmaBf16K64, u16, 64, 128, 64, 16, bf16_m64n128k16
);
probe!(
    /// BF16, N = 64, K = 32: the 64-byte swizzle.
    probe_wgmma_bf16_k32, WgmmaBf16K32, u16, 32, 64, 32, 16, bf16_m64n64k16
);
probe!(
    /// BF16, N = 256, K = 16: the 32-byte swizzle, the widest N.
    probe_wgmma_bf16_k16, WgmmaBf16K16, u16, 16, 256, 128, 16, bf16_m64n256k16
);
probe!(
    /// FP16, N = 64, K = 64.
    probe_wgmma_f16_k64, WgmmaF16K64, u16, 64, 64, 32, 16, f16_m64n64k16
);
probe!(
    /// TF32, N = 64, K = 32 (rows of 128 bytes), steps of 8.
    probe_wgmma_tf32_k32, WgmmaTf32K32, f32, 32, 64, 32, 8, tf32_m64n64k8
);
