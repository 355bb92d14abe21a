//! The simulator's `wgmma`: each thread computes the elements of its accumulator registers at
//! once, from the shared bytes the descriptors name (`hopper::descriptor_address`, the layout
//! the GPU reads), summed exactly in f64 from the accumulator and rounded once to f32. The
//! products of BF16, FP16 and TF32 values are exact in f64, so the GPU's result differs by its
//! accumulation order only. Fence, commit and wait have nothing to order: the products are there
//! when the instruction returns.
use crate::hopper::{MatrixDescriptor, descriptor_address};
use ferrocuda_sim_abi::{self as sim, Access};

/// The operand formats: bytes per element, and the value of its bits.
#[derive(Clone, Copy)]
enum Format {
    Bf16,
    F16,
    Tf32,
}

impl Format {
    fn bytes(self) -> usize {
        match self {
            Self::Bf16 | Self::F16 => 2,
            Self::Tf32 => 4,
        }
    }
    fn value(self, bits: u32) -> f64 {
        match self {
            Self::Bf16 => f32::from_bits(bits << 16) as f64,
            Self::F16 => f16_value(bits as u16),
            Self::Tf32 => f32::from_bits(bits & !0x1fff) as f64,
        }
    }
}

/// An IEEE half's value.
fn f16_value(bits: u16) -> f64 {
    let sign = if bits >> 15 != 0 { -1.0 } else { 1.0 };
    let (exponent, fraction) = ((bits >> 10 & 0x1f) as i32, (bits & 0x3ff) as f64);
    // 2^e for the exponents a half has (-24 ..= 15), exactly.
    let power = |e: i32| f64::from_bits(((1023 + e) as u64) << 52);
    sign * match exponent {
        0 => fraction * power(-24),
        31 if fraction == 0.0 => f64::INFINITY,
        31 => f64::NAN,
        e => (1.0 + fraction / 1024.0) * power(e - 15),
    }
}

/// Element `k` of row `row` of the matrix `descriptor` names, from the block's shared memory.
#[track_caller]
fn element(descriptor: u64, row: usize, k: usize, format: Format) -> f64 {
    let Some(offset) = descriptor_address(MatrixDescriptor(descriptor), row, k * format.bytes()) else {
        sim::fault(format_args!(
            "a wgmma descriptor ({descriptor:#x}) without a swizzle: the simulator reads the swizzled K-major layouts"
        ))
    };
    let address = (sim::shared_base() as usize + offset) as *const u8;
    let checked = sim::shared_access(address, format.bytes(), Access::Read);
    // SAFETY: `shared_access` checked that the bytes lie in the block's shared buffer, which only
    // this host thread touches; aligned, as the layout keeps elements at multiples of their size.
    let bits = unsafe {
        match format.bytes() {
            2 => checked.cast::<u16>().read() as u32,
            _ => checked.cast::<u32>().read(),
        }
    };
    format.value(bits)
}

/// `d = a b (+ d)` for the calling thread's registers (see `hopper::Accumulator`).
#[track_caller]
fn multiply<const REGS: usize>(d: &mut [f32; REGS], a: u64, b: u64, accumulate: bool, k: usize, format: Format) {
    let thread = crate::index::thread_rank_in_block() % 128;
    for (i, out) in d.iter_mut().enumerate() {
        let (row, col) = crate::hopper::wgmma::position_in_warpgroup(thread, i);
        let start = if accumulate { *out as f64 } else { 0.0 };
        let sum = (0..k).fold(start, |sum, kk| {
            sum + element(a, row, kk, format) * element(b, col, kk, format)
        });
        *out = sum as f32;
    }
}

macro_rules! shapes {
    ($($name:ident: $regs:literal, $k:literal, $format:ident;)*) => {$(
        /// The simulated instruction of the same name.
        ///
        /// # Safety
        /// As on the GPU; the simulator checks each shared read.
        #[track_caller]
        pub unsafe fn $name(d: &mut [f32; $regs], a: u64, b: u64, accumulate: bool) {
            multiply(d, a, b, accumulate, $k, Format::$format)
        }
    )*};
}
shapes! {
    wgmma_bf16_m64n64k16: 32, 16, Bf16;
    wgmma_bf16_m64n128k16: 64, 16, Bf16;
    wgmma_bf16_m64n256k16: 128, 16, Bf16;
    wgmma_f16_m64n64k16: 32, 16, F16;
    wgmma_f16_m64n128k16: 64, 16, F16;
    wgmma_f16_m64n256k16: 128, 16, F16;
    wgmma_tf32_m64n64k8: 32, 8, Tf32;
    wgmma_tf32_m64n128k8: 64, 8, Tf32;
    wgmma_tf32_m64n256k8: 128, 8, Tf32;
}

/// `wgmma.fence`: nothing to order on the simulator.
///
/// # Safety
/// None here; the GPU's contract.
pub unsafe fn wgmma_fence() {}
/// `wgmma.commit_group`: nothing to order on the simulator.
///
/// # Safety
/// None here; the GPU's contract.
pub unsafe fn wgmma_commit_group() {}
/// `wgmma.wait_group 0`: nothing pending on the simulator.
///
/// # Safety
/// None here; the GPU's contract.
pub unsafe fn wgmma_wait_group_0() {}
/// `wgmma.wait_group 1`: nothing pending on the simulator.
///
/// # Safety
/// None here; the GPU's contract.
pub unsafe fn wgmma_wait_group_1() {}

/// Keeps reads of `registers` after the instruction before it: nothing to keep on the simulator.
#[inline(always)]
pub fn fence_registers<const N: usize>(_registers: &mut [f32; N]) {}

/// The shared-window address of `address`: its offset in the block's shared memory.
#[inline(always)]
pub(crate) fn shared_window_address(address: *const u8) -> u32 {
    (address as usize).wrapping_sub(sim::shared_base() as usize) as u32
}
