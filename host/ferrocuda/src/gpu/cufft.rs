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
///
/// Each execution checks its buffers against the plan (kind, precision, at least the plan's
/// elements), since cuFFT itself reads and writes what the plan says, whatever the buffers hold.
pub struct Cufft {
    handle: sys::cufftHandle,
    context: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    sizes: PlanSizes,
}

/// What a plan reads and writes: its kind, its precision and its arrays' element counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct PlanSizes {
    kind: CufftKind,
    double: bool,
    /// Elements of a full array, all batches: complex for C2C, real for R2C's input and C2R's
    /// output.
    full: usize,
    /// Complex elements of the half spectrum (`nx / 2 + 1` per row), all batches.
    half: usize,
}

impl PlanSizes {
    fn new(dims: &[usize], batch: usize, kind: CufftKind, double: bool) -> Result<Self> {
        let too_large = || Error::InvalidArgument(format!("a cuFFT plan of {dims:?} x {batch} does not fit in memory"));
        let (&nx, outer) = dims
            .split_last()
            .ok_or_else(|| Error::InvalidArgument("a cuFFT plan needs 1 to 3 dimensions, not 0".into()))?;
        let rows = outer
            .iter()
            .try_fold(batch, |acc, &d| acc.checked_mul(d))
            .ok_or_else(too_large)?;
        let full = rows.checked_mul(nx).ok_or_else(too_large)?;
        // 2 half <= full + 2 rows, and 16-byte elements: checked so that no later product wraps.
        let half = rows.checked_mul(nx / 2 + 1).ok_or_else(too_large)?;
        half.checked_mul(32).ok_or_else(too_large)?;
        full.checked_mul(16).ok_or_else(too_large)?;
        Ok(Self {
            kind,
            double,
            full,
            half,
        })
    }

    /// Checks that an execution of `kind` in `double` precision on buffers of `lens` elements
    /// (with the counts each needs) stays inside them.
    fn check(&self, kind: CufftKind, double: bool, lens: &[(&str, usize, usize)]) -> Result<()> {
        if (kind, double) != (self.kind, self.double) {
            let precision = |d: bool| if d { "f64" } else { "f32" };
            return Err(Error::InvalidArgument(format!(
                "this cuFFT plan computes {:?} in {}, not {kind:?} in {}",
                self.kind,
                precision(self.double),
                precision(double)
            )));
        }
        for &(what, got, want) in lens {
            if got < want {
                return Err(Error::InvalidArgument(format!(
                    "the {what} of this cuFFT plan needs {want} elements, not {got}"
                )));
            }
        }
        Ok(())
    }
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
        let sizes = PlanSizes::new(dims, batch, kind, double)?;
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
            sizes,
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
        let full = self.sizes.full;
        let input_len = input.map_or(full, |buffer| buffer.len());
        self.sizes.check(
            CufftKind::C2c,
            T::DOUBLE,
            &[("input", input_len, full), ("output", output.len(), full)],
        )?;
        let s = self.prepare(stream)?;
        let direction = if inverse { CUFFT_INVERSE } else { CUFFT_FORWARD };
        let input_ptr = match input {
            Some(buffer) => Some(cuda_slice(buffer)?.device_ptr(&s)),
            None => None,
        };
        let (output_ptr, _output_record) = cuda_slice_mut(output)?.device_ptr_mut(&s);
        let input_address = input_ptr.as_ref().map_or(output_ptr, |(p, _)| *p);
        // SAFETY: both addresses are live allocations of at least the plan's elements in its
        // precision (checked above), used on `s`, which orders this execution before later work
        // on them.
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
        let PlanSizes { full, half, .. } = self.sizes;
        self.sizes.check(
            CufftKind::R2c,
            T::DOUBLE,
            &[
                ("real input", input.len(), full),
                ("complex output", output.len(), half),
            ],
        )?;
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
        let PlanSizes { full, half, .. } = self.sizes;
        self.sizes.check(
            CufftKind::C2r,
            T::DOUBLE,
            &[
                ("complex input", input.len(), half),
                ("real output", output.len(), full),
            ],
        )?;
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
        let kind = if r2c { CufftKind::R2c } else { CufftKind::C2r };
        let padded = 2 * self.sizes.half;
        self.sizes
            .check(kind, T::DOUBLE, &[("padded real data", data.len(), padded)])?;
        let s = self.prepare(stream)?;
        let (ptr, _record) = cuda_slice_mut(data)?.device_ptr_mut(&s);
        // SAFETY: `ptr` addresses at least the plan's padded array in its precision (checked
        // above), used on `s`; cuFFT's in-place real transforms take one address for both sides.
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The checks that keep a safe execution inside its buffers: a wrong kind or precision, or a
    /// buffer shorter than the plan, is refused; the exact and larger lengths pass.
    #[test]
    fn cufft_plan_sizes_refuse_what_cufft_would_overrun() {
        let sizes = PlanSizes::new(&[4, 6], 3, CufftKind::R2c, false).unwrap();
        assert_eq!((sizes.full, sizes.half), (3 * 4 * 6, 3 * 4 * 4));
        let (full, half) = (sizes.full, sizes.half);
        assert!(
            sizes
                .check(CufftKind::R2c, false, &[("in", full, full), ("out", half, half)])
                .is_ok()
        );
        assert!(
            sizes
                .check(CufftKind::R2c, false, &[("in", full + 1, full), ("out", half, half)])
                .is_ok()
        );
        assert!(sizes.check(CufftKind::R2c, false, &[("in", full - 1, full)]).is_err());
        assert!(
            sizes.check(CufftKind::R2c, true, &[]).is_err(),
            "f64 buffers on an f32 plan"
        );
        assert!(sizes.check(CufftKind::C2c, false, &[]).is_err(), "C2C on an R2C plan");
        let message = sizes
            .check(CufftKind::R2c, false, &[("in", 1, full)])
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("needs 72 elements, not 1") && !message.contains('\n'),
            "{message}"
        );
        assert!(PlanSizes::new(&[], 1, CufftKind::C2c, false).is_err());
        assert!(PlanSizes::new(&[1 << 31, 1 << 31, 1 << 31], 1 << 31, CufftKind::C2c, true).is_err());
    }
}
