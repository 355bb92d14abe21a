//! Module `c_m` of twoMinusThree (book §1.6.1): the device variable `c_d` and the kernel
//! `cMinusD`, which calls `negateD` and reads `d_d`, both defined in module `d_m`, another kernel
//! crate compiled to another PTX module.
//!
//! This crate only declares them (`unsafe extern "C"`), so its PTX holds `.extern .func negate_d`
//! and `.extern .global D_D` and no body: loaded alone, the driver refuses it (the unresolved
//! symbols are named), as CUDA Fortran refuses a call of another module's device routine without
//! `-Mcuda=rdc`. `Gpu::link(&[&C_M, &D_M])` links it with d_m's PTX, as `nvcc -rdc=true` and
//! `nvlink` link relocatable device code.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_gpu_kernel))]

use ferrocuda_device::prelude::*;
use ferrocuda_device::variable::DeviceVariable;

// On the host the definitions come from d_m, which the system linker must see: naming the crate
// links it (a dependency never named is not linked).
#[cfg(not(target_arch = "nvptx64"))]
extern crate d_m;

// d_m's items, by their PTX symbols: declarations only, resolved at link time.
unsafe extern "C" {
    /// d_m's `d_d`.
    static D_D: DeviceVariable<i32>;
    /// d_m's `negateD`.
    fn negate_d();
}

ferrocuda_device::device_variable! {
    /// The book's `c_d`.
    pub C_D: i32 = 0;
}

/// Arguments of [`c_minus_d`]: none (a zero-sized struct is not a valid PTX parameter, so it
/// carries one unused word).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, KernelArgs)]
pub struct CMinusDArgs {
    pub unused: u32,
}

/// `call negateD(); c_d = c_d + d_d`, launched `<<<1,1>>>`.
#[kernel]
pub fn c_minus_d(_args: CMinusDArgs) {
    // SAFETY: `negate_d` and `D_D` are d_m's `#[no_mangle]` function (no arguments, C ABI) and
    // `DeviceVariable<i32>` static, of exactly these signatures; the linker (the driver's on the
    // GPU, the system's on the host) resolves them to d_m's definitions.
    let d = unsafe {
        negate_d();
        D_D.get()
    };
    C_D.set(C_D.get() + d);
}
