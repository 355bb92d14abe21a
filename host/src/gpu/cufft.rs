//! cuFFT (through cudarc, loaded at run time like the driver): the baseline of this library's own
//! FFT kernels, and the engine `ferrocuda::fft::Engine::Cufft`.
use super::error::{Error, Result};
use super::memory::{DeviceBuffer, Element, Repr};
use super::{Gpu, Stream};
use cudarc::cufft::{result, sys};
use cudarc::driver::{CudaContext, CudaStream, DevicePtr, DevicePtrMut};
use ferrocuda_device::complex::{Complex, ComplexScalar};
use std::ffi::c_int;
use std::sync::Arc;

/// `CUFFT_FORWARD` (the exponent's sign).
const CUFFT_FORWARD: c_int = -1;
/// `CUFFT_INVERSE`.
const CUFFT_INVERSE: c_int = 1;

/// What a cuFFT plan transforms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CufftKind {
    /// Complex to complex (`CUFFT_C2C`, `CUFFT_Z2Z`).
    C2c,
    /// Real to complex (`CUFFT_R2C`, `CUFFT_D2Z`).
    R2c,
    /// Complex to real (`CUFFT_C2R`, `CUFFT_Z2D`).
    C2r,
}

fn cufft_error(call: &str) -> impl FnOnce(result::CufftError) -> Error + '_ {
    move |e| Error::Library {
        call: call.to_string(),
        error: format!("{:?}", e.0),
    }
}

/// `f32` (`cufftComplex`) or `f64` (`cufftDoubleComplex`): the executions of its precision.
pub trait CufftFloat: ComplexScalar + Element {
    /// True for `f64`.
    const DOUBLE: bool;
    /// `cufftExecC2C` / `cufftExecZ2Z`.
    ///
    /// # Safety
    /// `plan` is a live plan of this precision and kind; the pointers address its arrays.
    unsafe fn exec_c2c(plan: sys::cufftHandle, input: u64, output: u64, direction: c_int) -> Result<()>;
    /// `cufftExecR2C` / `cufftExecD2Z`.
    ///
    /// # Safety
    /// As [`CufftFloat::exec_c2c`].
    unsafe fn exec_r2c(plan: sys::cufftHandle, input: u64, output: u64) -> Result<()>;
    /// `cufftExecC2R` / `cufftExecZ2D`.
    ///
    /// # Safety
    /// As [`CufftFloat::exec_c2c`].
    unsafe fn exec_c2r(plan: sys::cufftHandle, input: u64, output: u64) -> Result<()>;
}

impl CufftFloat for f32 {
    const DOUBLE: bool = false;
    unsafe fn exec_c2c(plan: sys::cufftHandle, input: u64, output: u64, direction: c_int) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { result::exec_c2c(plan, input as *mut _, output as *mut _, direction) }
            .map_err(cufft_error("cufftExecC2C"))
    }
    unsafe fn exec_r2c(plan: sys::cufftHandle, input: u64, output: u64) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { result::exec_r2c(plan, input as *mut _, output as *mut _) }.map_err(cufft_error("cufftExecR2C"))
    }
    unsafe fn exec_c2r(plan: sys::cufftHandle, input: u64, output: u64) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { result::exec_c2r(plan, input as *mut _, output as *mut _) }.map_err(cufft_error("cufftExecC2R"))
    }
}

impl CufftFloat for f64 {
    const DOUBLE: bool = true;
    unsafe fn exec_c2c(plan: sys::cufftHandle, input: u64, output: u64, direction: c_int) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { result::exec_z2z(plan, input as *mut _, output as *mut _, direction) }
            .map_err(cufft_error("cufftExecZ2Z"))
    }
    unsafe fn exec_r2c(plan: sys::cufftHandle, input: u64, output: u64) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { result::exec_d2z(plan, input as *mut _, output as *mut _) }.map_err(cufft_error("cufftExecD2Z"))
    }
    unsafe fn exec_c2r(plan: sys::cufftHandle, input: u64, output: u64) -> Result<()> {
        // SAFETY: forwarded to the caller.
        unsafe { result::exec_z2d(plan, input as *mut _, output as *mut _) }.map_err(cufft_error("cufftExecZ2D"))
    }
}

/// A cuFFT plan (`cufftPlanMany`, default layouts: row-major arrays, contiguous batches).
pub struct Cufft {
    handle: sys::cufftHandle,
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

// SAFETY: the handle is an integer naming a plan; cuFFT allows a plan to be used from any thread
// as long as calls do not overlap, which `&mut self` on every execution guarantees.
unsafe impl Send for Cufft {}

impl Cufft {
    /// True when `libcufft` can be loaded.
    pub fn available() -> bool {
        // SAFETY: only probes for the library (cudarc would panic on first use without it).
        unsafe { sys::is_culib_present() }
    }

    /// A plan of `kind` for `batch` arrays of `dims` (outermost first), in `f64` when `double`.
    pub fn new(gpu: &Gpu, dims: &[usize], batch: usize, kind: CufftKind, double: bool) -> Result<Self> {
        let device = gpu.cuda("cuFFT")?;
        if !Self::available() {
            return Err(Error::Io(
                "cuFFT (libcufft.so) was not found: add the CUDA toolkit's lib64 folder to LD_LIBRARY_PATH".into(),
            ));
        }
        let to_int = |v: usize| {
            c_int::try_from(v)
                .map_err(|_| Error::InvalidArgument(format!("cuFFT takes sizes and batches below 2^31, not {v}")))
        };
        let mut n = dims.iter().map(|&d| to_int(d)).collect::<Result<Vec<_>>>()?;
        let batch = to_int(batch)?;
        let type_ = match (kind, double) {
            (CufftKind::C2c, false) => sys::cufftType::CUFFT_C2C,
            (CufftKind::R2c, false) => sys::cufftType::CUFFT_R2C,
            (CufftKind::C2r, false) => sys::cufftType::CUFFT_C2R,
            (CufftKind::C2c, true) => sys::cufftType::CUFFT_Z2Z,
            (CufftKind::R2c, true) => sys::cufftType::CUFFT_D2Z,
            (CufftKind::C2r, true) => sys::cufftType::CUFFT_Z2D,
        };
        device
            .context
            .bind_to_thread()
            .map_err(Error::cuda("binding the context for cuFFT"))?;
        // SAFETY: `n` holds `rank` sizes; null embeddings select the default (packed) layouts,
        // for which the strides and distances are ignored.
        let handle = unsafe {
            result::plan_many(
                n.len() as c_int,
                n.as_mut_ptr(),
                std::ptr::null_mut(),
                1,
                0,
                std::ptr::null_mut(),
                1,
                0,
                type_,
                batch,
            )
        }
        .map_err(cufft_error("cufftPlanMany"))?;
        Ok(Self {
            handle,
            context: device.context.clone(),
            stream: device.stream.clone(),
        })
    }

    /// Binds the context and sets the plan's stream: `stream`, or the device's.
    fn prepare(&mut self, stream: Option<&Stream>) -> Result<Arc<CudaStream>> {
        let stream = match stream {
            Some(s) => s.cuda().cloned().ok_or_else(super::stream::mixed)?,
            None => self.stream.clone(),
        };
        self.context
            .bind_to_thread()
            .map_err(Error::cuda("binding the context for cuFFT"))?;
        // SAFETY: the plan is live; the stream outlives this execution's queued work (a
        // `Stream` waits for its work when dropped, the device's stream lives in the device).
        unsafe { result::set_stream(self.handle, stream.cu_stream() as _) }.map_err(cufft_error("cufftSetStream"))?;
        Ok(stream)
    }

    /// Complex to complex: `input` to `output`, or in place on `output` when `input` is `None`.
    pub fn c2c<T: CufftFloat>(
        &mut self,
        _gpu: &Gpu,
        stream: Option<&Stream>,
        input: Option<&DeviceBuffer<Complex<T>>>,
        output: &mut DeviceBuffer<Complex<T>>,
        inverse: bool,
    ) -> Result<()> {
        let s = self.prepare(stream)?;
        let direction = if inverse { CUFFT_INVERSE } else { CUFFT_FORWARD };
        let input_ptr = match input {
            Some(buffer) => Some(cuda_slice(buffer)?.device_ptr(&s)),
            None => None,
        };
        let (output_ptr, _output_record) = cuda_slice_mut(output)?.device_ptr_mut(&s);
        let input_address = input_ptr.as_ref().map_or(output_ptr, |(p, _)| *p);
        // SAFETY: both addresses are live allocations of the plan's size (the caller checked the
        // lengths), used on `s`, which orders this execution before later work on them.
        unsafe { T::exec_c2c(self.handle, input_address, output_ptr, direction) }
    }

    /// Real to complex.
    pub fn r2c<T: CufftFloat>(
        &mut self,
        _gpu: &Gpu,
        stream: Option<&Stream>,
        input: &DeviceBuffer<T>,
        output: &mut DeviceBuffer<Complex<T>>,
    ) -> Result<()> {
        let s = self.prepare(stream)?;
        let (input_ptr, _input_record) = cuda_slice(input)?.device_ptr(&s);
        let (output_ptr, _output_record) = cuda_slice_mut(output)?.device_ptr_mut(&s);
        // SAFETY: as in `c2c`.
        unsafe { T::exec_r2c(self.handle, input_ptr, output_ptr) }
    }

    /// Complex to real (cuFFT may overwrite `input`).
    pub fn c2r<T: CufftFloat>(
        &mut self,
        _gpu: &Gpu,
        stream: Option<&Stream>,
        input: &mut DeviceBuffer<Complex<T>>,
        output: &mut DeviceBuffer<T>,
    ) -> Result<()> {
        let s = self.prepare(stream)?;
        let (input_ptr, _input_record) = cuda_slice_mut(input)?.device_ptr_mut(&s);
        let (output_ptr, _output_record) = cuda_slice_mut(output)?.device_ptr_mut(&s);
        // SAFETY: as in `c2c`.
        unsafe { T::exec_c2r(self.handle, input_ptr, output_ptr) }
    }
}

impl Cufft {
    /// Real to complex (`r2c`) or complex to real in place on `data` (padded rows).
    pub fn real_in_place<T: CufftFloat>(
        &mut self,
        _gpu: &Gpu,
        stream: Option<&Stream>,
        data: &mut DeviceBuffer<T>,
        r2c: bool,
    ) -> Result<()> {
        let s = self.prepare(stream)?;
        let (ptr, _record) = cuda_slice_mut(data)?.device_ptr_mut(&s);
        // SAFETY: `ptr` addresses the plan's padded array (the caller checked the length), used
        // on `s`; cuFFT's in-place real transforms take one address for both sides.
        unsafe {
            if r2c {
                T::exec_r2c(self.handle, ptr, ptr)
            } else {
                T::exec_c2r(self.handle, ptr, ptr)
            }
        }
    }
}

fn cuda_slice<T>(buffer: &DeviceBuffer<T>) -> Result<&cudarc::driver::CudaSlice<Repr<T>>> {
    buffer
        .as_cuda()
        .ok_or_else(|| Error::NeedsCuda("a cuFFT transform of a simulator buffer".into()))
}

fn cuda_slice_mut<T>(buffer: &mut DeviceBuffer<T>) -> Result<&mut cudarc::driver::CudaSlice<Repr<T>>> {
    buffer
        .as_cuda_mut()
        .ok_or_else(|| Error::NeedsCuda("a cuFFT transform of a simulator buffer".into()))
}

impl Drop for Cufft {
    fn drop(&mut self) {
        let _ = self.context.bind_to_thread();
        // Executions still queued must finish before the plan goes (the device's stream is the
        // legacy default stream, which waits for the other streams' work).
        let _ = self.stream.synchronize();
        // SAFETY: created in `new`, destroyed once here, after its queued work.
        let _ = unsafe { result::destroy(self.handle) };
    }
}
