//! Probes of Hopper's `wgmma` (`ferrocuda_device::hopper`): one warpgroup multiplies a 64 x 64
//! tile by a 64 x N tile through swizzled shared tiles, for BF16 and FP16 (K = 64, rows of 128
//! bytes), TF32 (K = 32, rows of 128 bytes) and BF16 again with K = 16 and 32 (rows of 32 and 64
//! bytes, the other two swizzles). And a ring of two stages handed from a producer warp to four
//! consumer warps by `mbarrier`s. And one box copied by the bulk tensor copy engine. Their tests are in `host/ferrocuda/tests/hopper.rs`.
use ferrocuda_device::hopper::{Accumulator, MBarrier, MatrixTile, TensorMap, wgmma};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

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

/// Rounds of [`probe_mbarrier_ring`].
pub const RING_ROUNDS: usize = 8;
/// Values a stage of the ring holds: one per consumer thread.
pub const RING_STAGE: usize = 128;

/// The value the producer writes at place `i` of round `r`.
pub const fn ring_value(r: usize, i: usize) -> u32 {
    ((r * 1000 + i) as u32).wrapping_mul(2_654_435_761)
}

/// Arguments of [`probe_mbarrier_ring`]: each consumer's checksum, and a round in which the
/// producer writes its values again after marking the stage full, which nothing orders with the
/// consumers' reads (a race the simulator must report, though the values are the same;
/// [`RING_ROUNDS`] or more for none).
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct RingArgs<'a> {
    pub sums: SliceMut<'a, u32>,
    pub late_write_round: u32,
}

ferrocuda_device::shared_layout! {
    /// The ring: a barrier for each stage full and each stage empty, and the two stages.
    pub struct MBarrierRing() {
        pub full0: MBarrier,
        pub full1: MBarrier,
        pub empty0: MBarrier,
        pub empty1: MBarrier,
        pub data: Tile1d<u32>[2 * RING_STAGE],
    }
}

/// Warp 0 produces [`RING_ROUNDS`] rounds into two stages, waiting for a stage to be empty
/// before it refills it; threads 32..160 consume each round after waiting for its stage to be
/// full, fold it into a checksum, and mark the stage empty. Only `mbarrier`s order them.
///
/// Launch: one block of 160 threads, `MBarrierRing::bytes()` of shared memory.
#[kernel(max_threads = 160)]
pub fn probe_mbarrier_ring(args: RingArgs<'_>) {
    let MBarrierRing {
        full0,
        full1,
        empty0,
        empty1,
        data,
    } = MBarrierRing::carve();
    let t = thread_idx_x();
    if t == 0 {
        full0.init(32);
        full1.init(32);
        empty0.init(RING_STAGE as u32);
        empty1.init(RING_STAGE as u32);
    }
    // The barriers are initialised before any thread uses them.
    sync_threads();
    // Chosen by a select, not an indexed array (which would live in local memory).
    let full = |stage: usize| if stage == 0 { &full0 } else { &full1 };
    let empty = |stage: usize| if stage == 0 { &empty0 } else { &empty1 };
    if t < 32 {
        for r in 0..RING_ROUNDS {
            let (stage, use_) = (r % 2, r / 2);
            if use_ > 0 {
                empty(stage).wait_parity(((use_ - 1) % 2) as u32);
            }
            for j in 0..RING_STAGE / 32 {
                let i = RING_STAGE / 32 * t + j;
                data.set(stage * RING_STAGE + i, ring_value(r, i));
            }
            full(stage).arrive();
            if r == args.late_write_round as usize {
                for j in 0..RING_STAGE / 32 {
                    let i = RING_STAGE / 32 * t + j;
                    data.set(stage * RING_STAGE + i, ring_value(r, i));
                }
            }
        }
    } else if t < 32 + RING_STAGE {
        let c = t - 32;
        let mut sum = 0u32;
        for r in 0..RING_ROUNDS {
            let (stage, use_) = (r % 2, r / 2);
            full(stage).wait_parity((use_ % 2) as u32);
            sum = sum.wrapping_mul(31).wrapping_add(data.get(stage * RING_STAGE + c));
            empty(stage).arrive();
        }
        args.sums.set(c, sum);
    }
}

/// Arguments of [`probe_tensor_copy`]: the map of a matrix of f32 (boxes of 8 x 32), the box's
/// first element, the copied tile as read back (8 x 32, row-major), and whether the readers skip
/// their wait on the barrier (a race the simulator must report).
#[repr(C)]
#[derive(Clone, Copy, KernelArgs)]
pub struct TensorCopyArgs<'a> {
    pub map: TensorMap<'a, f32, 8, 32>,
    pub row: i32,
    pub col: i32,
    pub out: SliceMut<'a, f32>,
    pub skip_wait: u32,
}

ferrocuda_device::shared_layout! {
    /// The tile the box lands in, and its barrier.
    pub struct TensorCopyShared() {
        pub tile: MatrixTile<f32, 8, 32>,
        pub full: MBarrier,
    }
}

/// Thread 0 copies one box with the bulk tensor copy engine; every thread waits for the
/// barrier's phase (unless `skip_wait`) and reads its elements of the tile back through the
/// swizzled layout.
///
/// Launch: one block of 64 threads, `TensorCopyShared::bytes()` of shared memory.
#[kernel(max_threads = 64, requires = "sm_90a")]
pub fn probe_tensor_copy(args: TensorCopyArgs<'_>) {
    let TensorCopyShared { tile, full } = TensorCopyShared::carve();
    let t = thread_idx_x();
    if t == 0 {
        full.init(1);
    }
    // The barrier is initialised before any thread uses it.
    sync_threads();
    if t == 0 {
        full.arrive_expect_tx(TensorMap::<f32, 8, 32>::BOX_BYTES);
        // SAFETY: nothing touches the tile before the phase that counts its bytes completes,
        // except the readers the `skip_wait` case sends early on purpose (the race under test).
        unsafe { args.map.load(&tile, 0, (args.row, args.col), &full) };
    }
    if args.skip_wait == 0 {
        full.wait_parity(0);
    }
    for i in (t..8 * 32).step_by(64) {
        args.out.set(i, tile.get(i / 32, i % 32));
    }
}
