//! The host side of device variables (`ferrocuda_device::variable`): CUDA C's
//! `cudaMemcpyToSymbol` and `cudaMemcpyFromSymbol` on a `__device__` variable, CUDA Fortran's
//! assignments to and from a module's `device` variable (book §1.6.1).
//!
//! On CUDA the variable is found in the loaded (or linked) module by its PTX symbol with
//! `cuModuleGetGlobal`, so each module has its own copy, as in CUDA. On the simulator the
//! variable is the kernel crate's static: one copy per process, shared by every set loaded or
//! linked, as the simulator's constant bank is. Both backends refuse, with one sentence, a symbol
//! the kernels' PTX does not define and a handle whose value type has another size than the
//! symbol (a hand-written `Variable` for the wrong type).
use super::Backend;
use super::error::{Error, Result};
use super::kernels::LoadedKernels;
use super::memory::{Element, Repr};
use cudarc::driver::sys::CUresult;
use cudarc::driver::{CudaStream, CudaViewMut};
use ferrocuda_device::variable::Variable;
use std::sync::Arc;

impl LoadedKernels<'_> {
    /// Writes `value` into the device variable `V` of these kernels' module, in stream order:
    /// kernels launched after it read the new value (`a_d = 2` in the book's host code).
    ///
    /// ```
    /// ferrocuda::device::device_variable! { pub N_D: i32 = 0; }
    /// # fn demo(kernels: &ferrocuda::LoadedKernels) -> ferrocuda::Result<()> {
    /// kernels.write_variable::<N_D>(2)?;
    /// assert_eq!(kernels.read_variable::<N_D>()?, 2);
    /// # Ok(()) }
    /// ```
    pub fn write_variable<V: Variable>(&self, value: V::Value) -> Result<()>
    where
        V::Value: Element,
    {
        match (&self.gpu.backend, self.module()) {
            (Backend::Sim(_), _) => {
                self.gpu.check_simulator_fault()?;
                self.check_simulated_symbol::<V>()?;
                V::on_host().set(value);
                Ok(())
            }
            (Backend::Cuda(cuda), Some(module)) => {
                let cuda_module = module.cuda_module();
                let mut symbol = symbol::<V>(cuda_module, &cuda.stream, module.what())?;
                let mut typed = typed::<V>(&mut symbol, module.what())?;
                cuda.stream
                    .memcpy_htod(std::slice::from_ref(&Repr(value)), &mut typed)
                    .map_err(Error::cuda(format!("copying to device variable `{}`", V::NAME)))
            }
            (Backend::Cuda(_), None) => Err(super::stream::mixed()),
        }
    }

    /// The value of the device variable `V` once the work queued before has finished
    /// (`a = a_d` in the book's host code).
    pub fn read_variable<V: Variable>(&self) -> Result<V::Value>
    where
        V::Value: Element,
    {
        match (&self.gpu.backend, self.module()) {
            (Backend::Sim(_), _) => {
                self.gpu.check_simulator_fault()?;
                self.check_simulated_symbol::<V>()?;
                Ok(V::on_host().get())
            }
            (Backend::Cuda(cuda), Some(module)) => {
                let cuda_module = module.cuda_module();
                let mut symbol = symbol::<V>(cuda_module, &cuda.stream, module.what())?;
                let typed = typed::<V>(&mut symbol, module.what())?;
                let values = cuda
                    .stream
                    .clone_dtoh(&typed)
                    .map_err(Error::cuda(format!("copying from device variable `{}`", V::NAME)))?;
                values.first().map(|value| value.0).ok_or_else(|| {
                    Error::InvalidArgument(format!("device variable `{}`: the copy returned nothing", V::NAME))
                })
            }
            (Backend::Cuda(_), None) => Err(super::stream::mixed()),
        }
    }

    /// On the simulator, what `cuModuleGetGlobal` and the size check refuse on CUDA: a symbol
    /// the sets' PTX does not define, or one of another size than `V::Value`.
    fn check_simulated_symbol<V: Variable>(&self) -> Result<()> {
        let what = format!(
            "the PTX of {}",
            self.sets
                .iter()
                .map(|s| format!("`{}`", s.name()))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let defined = self
            .sets
            .iter()
            .flat_map(|set| set.linkage().variables.iter())
            .find(|v| v.defined && v.name == V::NAME)
            .ok_or_else(|| missing::<V>(&what))?;
        check_size::<V>(defined.bytes, &what)
    }
}

/// The symbol `V::NAME` of `module`, as bytes, its size checked against `V::Value`.
fn symbol<'a, V: Variable>(
    module: &'a Arc<cudarc::driver::CudaModule>,
    stream: &'a Arc<CudaStream>,
    what: &str,
) -> Result<CudaViewMut<'a, u8>> {
    let symbol = module.get_global(V::NAME, stream).map_err(|error| {
        if error.0 == CUresult::CUDA_ERROR_NOT_FOUND {
            missing::<V>(what)
        } else {
            Error::Cuda {
                call: format!("cuModuleGetGlobal(`{}`) in {what}", V::NAME),
                error,
            }
        }
    })?;
    check_size::<V>(symbol.len(), what)?;
    Ok(symbol)
}

/// The symbol's bytes as one `V::Value`.
fn typed<'s, V: Variable>(symbol: &'s mut CudaViewMut<'_, u8>, what: &str) -> Result<CudaViewMut<'s, Repr<V::Value>>>
where
    V::Value: Element,
{
    let bytes = symbol.len();
    // SAFETY: the symbol is exactly `size_of::<V::Value>()` bytes (checked by `symbol`), the
    // variable that `device_variable!` declared as a `DeviceVariable<V::Value>` under this name,
    // aligned for it by its PTX declaration; `V::Value` is plain data (`Element`).
    unsafe { symbol.transmute_mut::<Repr<V::Value>>(1) }.ok_or_else(|| size_error::<V>(bytes, what))
}

/// The error for a symbol `V::NAME` that `what` does not define.
fn missing<V: Variable>(what: &str) -> Error {
    Error::InvalidArgument(format!(
        "no device variable `{}` in {what}: declare it with `device_variable!` in a kernel crate of the set (or of a set linked with it)",
        V::NAME
    ))
}

/// Refuses a symbol of `bytes` bytes for a handle whose value has another size.
fn check_size<V: Variable>(bytes: usize, what: &str) -> Result<()> {
    if bytes == size_of::<V::Value>() {
        Ok(())
    } else {
        Err(size_error::<V>(bytes, what))
    }
}

fn size_error<V: Variable>(bytes: usize, what: &str) -> Error {
    Error::InvalidArgument(format!(
        "device variable `{}` of {what} holds {bytes} bytes, but its handle's type `{}` has {}: the handle does not match the variable's declaration",
        V::NAME,
        std::any::type_name::<V::Value>(),
        size_of::<V::Value>()
    ))
}
