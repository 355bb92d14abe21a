//! Module `d_m` of twoMinusThree (book §1.6.1): the device variable `d_d` and the device
//! subroutine `negateD`, compiled on their own into one PTX module that exports both
//! (`.visible .global D_D`, `.visible .func negate_d`) and holds no kernel. Module `c_m` calls
//! them from its own PTX module; the driver's linker joins the two (`Gpu::link`).
#![no_std]

ferrocuda_device::device_variable! {
    /// The book's `d_d`.
    pub D_D: i32 = 0;
}

/// `d_d = -d_d`: the book's `attributes(device) subroutine negateD()`, callable from another
/// module's kernels. `#[no_mangle]` and the C ABI give it a fixed PTX symbol, which c_m declares.
#[unsafe(no_mangle)]
pub extern "C" fn negate_d() {
    D_D.set(-D_D.get());
}
