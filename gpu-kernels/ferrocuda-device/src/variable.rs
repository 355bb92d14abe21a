//! Device variables: CUDA C's `__device__` variables and CUDA Fortran's module variables with the
//! `device` attribute (book §1.6.1; CUDA C++ Programming Guide, "Device Memory Space
//! Specifiers").
//!
//! ```
//! ferrocuda_device::device_variable! {
//!     /// The book's `a_d`.
//!     pub A_D: i32 = 0;
//! }
//! // In a kernel:
//! A_D.set(A_D.get() + 1);
//! ```
//!
//! [`device_variable!`](crate::device_variable) declares a `#[no_mangle]` static, which rustc
//! places in PTX's global state space as one named symbol (`.visible .global .align 4 .b8
//! A_D[4]`): every kernel of the module reads and writes the same variable, and it keeps its value
//! from one launch to the next. Beside it, a type of the same name (`A_D`, in the type namespace)
//! implements [`Variable`]: the host's handle, with which `LoadedKernels::write_variable::<A_D>` and
//! `read_variable::<A_D>` find the symbol (`cuModuleGetGlobal`) and check its size.
//!
//! Another kernel crate uses the variable without defining it by declaring it,
//! `unsafe extern "C" { static A_D: DeviceVariable<i32>; }`: its PTX then holds `.extern .global`
//! and the driver's linker resolves it (`Gpu::link`), as `nvcc -rdc=true` does for an `extern
//! __device__` variable.
//!
//! On the CPU simulator the static is an ordinary host static: one copy per process, which every
//! launch and every host access of the variable share.
use crate::global::Element;
use core::cell::UnsafeCell;

/// One variable in global memory, shared by every thread of every launch of its module: a
/// number of 1, 2, 4 or 8 bytes ([`Element`]).
///
/// Threads that write it in the same launch without an atomic race, as in CUDA C: a wrong value
/// (on the simulator too, whose accesses to it are relaxed atomics of its width, so the race is
/// no undefined behaviour of the host process); the book's programs touch it from one thread
/// (`<<<1,1>>>`).
#[repr(transparent)]
pub struct DeviceVariable<T>(UnsafeCell<T>);

// SAFETY: every access reads or writes the whole value at once: volatile on the GPU, a relaxed
// atomic of its width on the simulator, so the blocks' host threads and the host may share it;
// threads of one launch that write it concurrently race as in CUDA C (a wrong value, as the
// type's doc says), not as a data race of the host process.
unsafe impl<T: Element + Send> Sync for DeviceVariable<T> {}

impl<T: Element> DeviceVariable<T> {
    /// A variable holding `value` when its module is loaded.
    pub const fn new(value: T) -> Self {
        Self(UnsafeCell::new(value))
    }

    /// The value (`ld.volatile.global`): never cached in a register across calls, so a value
    /// another module's function wrote is seen.
    #[inline(always)]
    pub fn get(&self) -> T {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: the cell is valid and aligned for the program's lifetime; the read races only
        // as `DeviceVariable`'s doc says.
        return unsafe { self.0.get().read_volatile() };
        #[cfg(not(target_arch = "nvptx64"))]
        // SAFETY: as above; `T: Element` is a plain number of 1, 2, 4 or 8 bytes.
        return unsafe { crate::arch::relaxed_load(self.0.get()) };
    }

    /// Writes `value` (`st.volatile.global`).
    #[inline(always)]
    pub fn set(&self, value: T) {
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: as in `get`.
        unsafe {
            self.0.get().write_volatile(value)
        };
        #[cfg(not(target_arch = "nvptx64"))]
        // SAFETY: as in `get`.
        unsafe {
            crate::arch::relaxed_store(self.0.get(), value)
        };
    }
}

/// The host's handle of a device variable: its type and PTX symbol. Implemented by
/// [`device_variable!`](crate::device_variable) on a type named as the variable.
pub trait Variable {
    /// The type of the value.
    type Value: Element;
    /// The PTX symbol (the static's name).
    const NAME: &'static str;
    /// The static itself, which the CPU simulator reads and writes (one per process).
    #[cfg(not(target_arch = "nvptx64"))]
    fn on_host() -> &'static DeviceVariable<Self::Value>;
}

/// Declares device variables: `device_variable! { pub A_D: i32 = 0; }` makes the `#[no_mangle]`
/// static `A_D` (a [`DeviceVariable`](crate::variable::DeviceVariable)) for kernels, and the
/// handle type `A_D` ([`Variable`](crate::variable::Variable)) for the host.
#[macro_export]
macro_rules! device_variable {
    ($($(#[$attr:meta])* $vis:vis $name:ident: $t:ty = $value:expr;)+) => {$(
        $(#[$attr])*
        #[unsafe(no_mangle)]
        $vis static $name: $crate::variable::DeviceVariable<$t> = $crate::variable::DeviceVariable::new($value);

        $(#[$attr])*
        ///
        /// The host's handle of this device variable (`LoadedKernels::write_variable::<Self>`).
        #[allow(non_camel_case_types)]
        $vis struct $name {}

        impl $crate::variable::Variable for $name {
            type Value = $t;
            const NAME: &'static str = ::core::stringify!($name);
            #[cfg(not(target_arch = "nvptx64"))]
            fn on_host() -> &'static $crate::variable::DeviceVariable<$t> {
                &$name
            }
        }
    )+};
}
