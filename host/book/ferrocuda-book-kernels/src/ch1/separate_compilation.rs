//! twoPlusThree: device data shared across modules (book §1.6.1, modules `a_m` and `b_m`).
//!
//! `b_m` holds the device variable `b_d`; `a_m` holds `a_d` and the kernel `aPlusB`, which reads
//! `b_d` from the other module. In CUDA Fortran that needs no relocatable device code, and here
//! both modules are Rust modules of one kernel crate, so one PTX module. The other half of §1.6.1,
//! twoMinusThree, calls a device *function* of another compilation unit: that is real separate
//! compilation, two kernel crates (`host/book/ferrocuda-book-c-m` and `d_m`) linked by the
//! driver.

/// Module `b_m`: the device variable `b_d`.
pub mod b_m {
    ferrocuda_device::device_variable! {
        /// The book's `b_d`.
        pub B_D: i32 = 0;
    }
}

/// Module `a_m`: the device variable `a_d` and the kernel `aPlusB`.
pub mod a_m {
    use super::b_m::B_D;
    use ferrocuda_device::prelude::*;

    ferrocuda_device::device_variable! {
        /// The book's `a_d`.
        pub A_D: i32 = 0;
    }

    /// Arguments of [`a_plus_b`]: none (a zero-sized struct is not a valid PTX parameter, so it
    /// carries one unused word).
    #[repr(C)]
    #[derive(Clone, Copy, Debug, Default, KernelArgs)]
    pub struct APlusBArgs {
        pub unused: u32,
    }

    /// `a_d = a_d + b_d`, launched `<<<1,1>>>`.
    #[kernel]
    pub fn a_plus_b(_args: APlusBArgs) {
        A_D.set(A_D.get() + B_D.get());
    }
}
