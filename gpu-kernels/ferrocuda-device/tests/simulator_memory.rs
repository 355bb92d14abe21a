//! The simulator's memory accesses as the device library makes them: a kernel with a data race
//! (legal CUDA, an unspecified result) runs to the end with some value, and a view read or
//! written from host code, outside a kernel, panics with one sentence instead of dereferencing
//! what on the CUDA backend is a device address.
//!
//! The racy kernel is sound only because every global load and store of the simulator is a
//! relaxed atomic of the element's width (`arch/host/memory.rs`): with plain reads and writes it
//! is a data race between the host threads that run its blocks, which ThreadSanitizer reports.
use ferrocuda_device::global::{Slice, SliceMut};
use ferrocuda_device::index::global_idx_x;
use ferrocuda_sim::{self as sim, Checks, Launch};
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Enough blocks that the simulator's host threads (rayon) run several of them at once.
const BLOCKS: u32 = 256;
const THREADS: u32 = 64;
/// Increments per thread: long enough that blocks on different host threads overlap.
const ITERS: u32 = 64;

fn launch_of(kernel: &'static str) -> Launch {
    Launch {
        kernel,
        grid: [BLOCKS, 1, 1],
        block: [THREADS, 1, 1],
        shared_bytes: 0,
        views: Vec::new(),
    }
}

#[derive(Clone, Copy)]
struct RacyArgs<'a> {
    word: SliceMut<'a, u32>,
    wide: SliceMut<'a, u64>,
    byte: SliceMut<'a, u8>,
    chunk: SliceMut<'a, f32>,
    /// The bytes of `chunk`, read through a read-only view.
    chunk_in: Slice<'a, f32>,
}

/// Every thread of every block reads one element and writes it back plus one, `ITERS` times,
/// without an atomic, in each width the device library loads and stores (1, 4, 8 and 16 bytes).
fn racy_increments(args: RacyArgs) {
    let gid = global_idx_x();
    for _ in 0..ITERS {
        args.word.set(0, args.word.get(0).wrapping_add(1));
        args.wide.set(0, args.wide.get(0).wrapping_add(1));
        args.byte.set(0, args.byte.get(0).wrapping_add(1));
        let [a, b, c, d] = args.chunk_in.get4(0);
        args.chunk.set4(0, [a + 1.0, b, c, d + gid as f32]);
    }
}

#[test]
fn sim_racy_global_increments_finish_with_some_value() {
    let mut word = vec![0u32; 1];
    let mut wide = vec![0u64; 1];
    let mut byte = vec![0u8; 1];
    // 16-byte aligned for the 16-byte accesses.
    let mut chunk = vec![0u128; 1];
    // SAFETY: each view addresses its vector, which outlives the launch; nothing else touches
    // them while it runs.
    let args = unsafe {
        RacyArgs {
            word: SliceMut::from_raw_parts(word.as_mut_ptr(), 1),
            wide: SliceMut::from_raw_parts(wide.as_mut_ptr(), 1),
            byte: SliceMut::from_raw_parts(byte.as_mut_ptr(), 1),
            chunk: SliceMut::from_raw_parts(chunk.as_mut_ptr().cast::<f32>(), 4),
            chunk_in: Slice::from_raw_parts(chunk.as_ptr().cast::<f32>(), 4),
        }
    };
    let total = u64::from(BLOCKS * THREADS * ITERS);
    // The global race detector would stop the launch at the first race: off, as on a GPU.
    let result = sim::with_checks(Checks::NONE, || {
        // SAFETY: the arguments are views of the atomics above, which outlive the launch.
        unsafe { sim::launch(&launch_of("racy_increments"), racy_increments, args) }
    });
    assert_eq!(result, Ok(()));
    // Some increments are lost or not, as the blocks happened to interleave: no value is
    // asserted, only that it is one a sequence of the kernel's stores can leave.
    assert!((1..=total).contains(&u64::from(word[0])), "word {}", word[0]);
    assert!((1..=total).contains(&wide[0]), "wide {}", wide[0]);
    let lanes = f32_lanes(chunk[0]);
    assert!(lanes[0] >= 1.0 && lanes[0] <= total as f32, "chunk {lanes:?}");
    println!(
        "{total} racy increments (the u8 wraps): u32 {}, u64 {}, u8 {}, f32 {}",
        word[0], wide[0], byte[0], lanes[0]
    );
}

/// The four `f32`s of a 16-byte word, low first.
fn f32_lanes(bits: u128) -> [f32; 4] {
    core::array::from_fn(|k| f32::from_bits((bits >> (32 * k)) as u32))
}

/// A view read from host code panics with the sentence, and reads nothing.
#[test]
fn sim_view_read_outside_kernel_panics() {
    let data = [7u32; 4];
    // SAFETY: the view addresses `data`, which outlives it (the read under test never happens).
    let view = unsafe { Slice::from_raw_parts(data.as_ptr(), data.len()) };
    assert_outside_kernel_panic(|| {
        let _ = view.get(0);
    });
    assert_outside_kernel_panic(|| {
        let _ = view.get_nc(1);
    });
}

/// A view written from host code, with a store or an atomic, panics with the sentence, and
/// writes nothing.
#[test]
fn sim_view_write_outside_kernel_panics() {
    // 16-byte aligned, so that `set4` passes its alignment test and reaches the store.
    let mut data = [u128::MAX; 1];
    // SAFETY: as in the read test.
    let view = unsafe { SliceMut::from_raw_parts(data.as_mut_ptr().cast::<u32>(), 4) };
    assert_outside_kernel_panic(|| view.set(0, 1));
    assert_outside_kernel_panic(|| {
        let _ = view.atomic_add(1, 1);
    });
    assert_outside_kernel_panic(|| view.set4(0, [1; 4]));
    assert_eq!(data, [u128::MAX]);
}

fn assert_outside_kernel_panic(access: impl FnOnce()) {
    let payload = catch_unwind(AssertUnwindSafe(access)).expect_err("a view access outside a kernel must panic");
    let message = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .expect("a panic with a message");
    assert_eq!(message, sim::OUTSIDE_KERNEL);
    assert!(message.starts_with("a view of device memory is read or written only inside a kernel"));
}
