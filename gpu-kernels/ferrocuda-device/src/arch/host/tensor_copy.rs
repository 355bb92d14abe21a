//! The simulator's bulk tensor copy: the box is read from the matrix the map describes (a
//! `hopper::SimulatorMap`, through the simulator's checked global loads), written into shared
//! memory in the swizzled layout the GPU's copy engine writes (through the race detector, as the
//! issuing thread's writes), and its bytes completed on the barrier, which releases them to the
//! threads that wait on its phase. Elements outside the matrix land as zeros, as on the GPU.
use crate::global::Element;
use crate::hopper::{SimulatorMap, Swizzle};
use ferrocuda_sim_abi::{self as sim, Access};

/// `cp.async.bulk.tensor.2d...complete_tx::bytes`, at once.
///
/// # Safety
/// As on the GPU; the simulator checks the map, the shared bytes and the barrier.
#[track_caller]
pub unsafe fn bulk_tensor_load_2d(
    destination: *mut u8,
    map: *const u64,
    c0: i32,
    c1: i32,
    barrier: *mut u64,
    [rows, cols, element_bytes]: [usize; 3],
) {
    // SAFETY: `map` addresses the map's 128 bytes (the caller's contract); the loads are checked.
    let words: [u64; 5] = core::array::from_fn(|i| unsafe { u64::load(map.wrapping_add(i)) });
    let Some(description) = SimulatorMap::from_words(&words) else {
        sim::fault(format_args!(
            "a bulk tensor copy through a map that is not the simulator's (one encoded for a GPU?)"
        ))
    };
    let Some(swizzle) = Swizzle::for_row_bytes(cols * element_bytes) else {
        sim::fault(format_args!(
            "a bulk tensor copy into rows of {} bytes, which no swizzle has",
            cols * element_bytes
        ))
    };
    if (c0 as i64 * element_bytes as i64).rem_euclid(16) != 0 {
        sim::fault(format_args!(
            "a bulk tensor copy of a box starting at column {c0}: the copy engine needs the column times the element size ({element_bytes} bytes) to be a multiple of 16 bytes"
        ))
    }
    for r in 0..rows {
        for c in 0..cols {
            let (row, col) = (c1 as i64 + r as i64, c0 as i64 + c as i64);
            let inside = (0..description.rows as i64).contains(&row) && (0..description.cols as i64).contains(&col);
            let bits = if inside {
                let address = description.address as usize
                    + row as usize * description.row_stride_bytes as usize
                    + col as usize * element_bytes;
                // SAFETY: inside the matrix the map describes, which lies in its buffer (the
                // host's encoder checked it); the simulator checks the access all the same.
                unsafe {
                    match element_bytes {
                        2 => u16::load(address as *const u16) as u32,
                        _ => u32::load(address as *const u32),
                    }
                }
            } else {
                0
            };
            let offset = crate::hopper::layout_swizzled(r * cols * element_bytes + c * element_bytes, swizzle);
            let checked = sim::shared_access(destination.wrapping_add(offset), element_bytes, Access::Write);
            // SAFETY: `shared_access` checked the bytes lie in the block's shared memory, which
            // only this host thread touches; aligned as the element (the tile is 1024-aligned).
            unsafe {
                match element_bytes {
                    2 => checked.cast::<u16>().write(bits as u16),
                    _ => checked.cast::<u32>().write(bits),
                }
            }
        }
    }
    sim::mbarrier_complete_tx(
        barrier,
        (rows * cols * element_bytes) as u32,
        core::panic::Location::caller(),
    );
}

/// `prefetch.tensormap`: nothing to fetch on the simulator.
///
/// # Safety
/// None here.
pub unsafe fn prefetch_tensor_map(_map: *const u64) {}

/// `fence.proxy.async`: the simulator's copies and `wgmma` read shared memory as its stores do.
pub fn fence_proxy_async_shared() {}

/// `setmaxnreg.dec`: the simulator has no register file.
///
/// # Safety
/// None here.
pub unsafe fn setmaxnreg_dec<const N: u32>() {}

/// `setmaxnreg.inc`: as `setmaxnreg_dec`.
///
/// # Safety
/// None here.
pub unsafe fn setmaxnreg_inc<const N: u32>() {}
