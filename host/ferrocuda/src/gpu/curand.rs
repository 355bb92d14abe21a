//! cuRAND's host API (through cudarc, loaded at run time): the book's generators, for runs that
//! must reproduce its printed numbers, and cuRAND's Philox, the yardstick of this library's own
//! device generator (`gpu_kernels::random`).
use super::cuda::CudaDevice;
use super::error::{Error, Result};
use super::memory::DeviceBuffer;
use cudarc::curand::{result, sys};
use cudarc::driver::DevicePtrMut;

/// Which cuRAND generator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CurandGenerator {
    /// `CURAND_RNG_PSEUDO_DEFAULT` (XORWOW), the book's generator; its streams are unchanged
    /// since the book.
    PseudoDefault,
    /// `CURAND_RNG_PSEUDO_PHILOX4_32_10`.
    Philox4x32_10,
}

/// The order in which a cuRAND pseudo-random generator's states are seeded and its results laid
/// out (`curandSetGeneratorOrdering`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CurandOrdering {
    /// `CURAND_ORDERING_PSEUDO_DEFAULT`: the book's streams.
    Default,
    /// `CURAND_ORDERING_PSEUDO_SEEDED`: every state seeded from the seed alone, much faster to
    /// set up (the book's suggested fix for `generate_seed_pseudo` taking most of the time in
    /// §5.3), at the price of another stream of numbers with weaker guarantees between states.
    Seeded,
}

/// A value type cuRAND generates (`f32`, `f64`).
pub trait CurandFloat: Copy + super::memory::Element {
    /// `curandGenerateUniform[Double]`.
    ///
    /// # Safety
    /// `generator` is live; `out` addresses `n` writable elements.
    unsafe fn generate_uniform(generator: sys::curandGenerator_t, out: *mut Self, n: usize) -> Result<()>;
    /// `curandGenerateNormal[Double]`.
    ///
    /// # Safety
    /// As [`CurandFloat::generate_uniform`].
    unsafe fn generate_normal(
        generator: sys::curandGenerator_t,
        out: *mut Self,
        n: usize,
        mean: Self,
        stddev: Self,
    ) -> Result<()>;
}

fn curand_error(call: &str) -> impl FnOnce(result::CurandError) -> Error + '_ {
    move |e| Error::Library {
        call: call.to_string(),
        error: format!("{:?}", e.0),
    }
}

macro_rules! curand_float {
    ($t:ty, $uniform:ident, $normal:ident, $uniform_call:literal, $normal_call:literal) => {
        impl CurandFloat for $t {
            unsafe fn generate_uniform(generator: sys::curandGenerator_t, out: *mut Self, n: usize) -> Result<()> {
                // SAFETY: forwarded to the caller.
                unsafe { result::generate::$uniform(generator, out, n) }.map_err(curand_error($uniform_call))
            }
            unsafe fn generate_normal(
                generator: sys::curandGenerator_t,
                out: *mut Self,
                n: usize,
                mean: Self,
                stddev: Self,
            ) -> Result<()> {
                // SAFETY: forwarded to the caller.
                unsafe { result::generate::$normal(generator, out, n, mean, stddev) }
                    .map_err(curand_error($normal_call))
            }
        }
    };
}
curand_float!(
    f32,
    uniform_f32,
    normal_f32,
    "curandGenerateUniform",
    "curandGenerateNormal"
);
curand_float!(
    f64,
    uniform_f64,
    normal_f64,
    "curandGenerateUniformDouble",
    "curandGenerateNormalDouble"
);

/// A cuRAND host generator on one device, generating into device buffers on the device's stream.
pub struct Curand<'a> {
    device: &'a CudaDevice,
    generator: sys::curandGenerator_t,
}

impl<'a> Curand<'a> {
    /// A generator of `kind` seeded with `seed` (`curandCreateGenerator`,
    /// `curandSetPseudoRandomGeneratorSeed`), on `device`'s stream. One clear error when
    /// `libcurand` cannot be found.
    pub fn new(device: &'a CudaDevice, kind: CurandGenerator, seed: u64) -> Result<Self> {
        // SAFETY: only probes for the library; cudarc would panic on first use without it.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::Io(
                "cuRAND (libcurand.so) was not found: add the CUDA toolkit's lib64 folder to LD_LIBRARY_PATH".into(),
            ));
        }
        device
            .context
            .bind_to_thread()
            .map_err(Error::cuda("binding the context for cuRAND"))?;
        let rng_type = match kind {
            CurandGenerator::PseudoDefault => sys::curandRngType_t::CURAND_RNG_PSEUDO_DEFAULT,
            CurandGenerator::Philox4x32_10 => sys::curandRngType_t::CURAND_RNG_PSEUDO_PHILOX4_32_10,
        };
        let generator = result::create_generator_kind(rng_type).map_err(curand_error("curandCreateGenerator"))?;
        let rng = Self { device, generator };
        // SAFETY: `generator` was just created; the stream outlives it (it lives in `device`).
        unsafe { result::set_stream(generator, device.stream.cu_stream() as _) }
            .map_err(curand_error("curandSetStream"))?;
        // SAFETY: as above.
        unsafe { result::set_seed(generator, seed) }.map_err(curand_error("curandSetPseudoRandomGeneratorSeed"))?;
        Ok(rng)
    }

    /// Sets the generator's `ordering` (`curandSetGeneratorOrdering`), before its first numbers.
    pub fn set_ordering(&mut self, ordering: CurandOrdering) -> Result<()> {
        let order = match ordering {
            CurandOrdering::Default => sys::curandOrdering_t::CURAND_ORDERING_PSEUDO_DEFAULT,
            CurandOrdering::Seeded => sys::curandOrdering_t::CURAND_ORDERING_PSEUDO_SEEDED,
        };
        // SAFETY: `self.generator` is live (created in `new`, destroyed in `drop`).
        let status = unsafe { sys::curandSetGeneratorOrdering(self.generator, order) };
        match status {
            sys::curandStatus_t::CURAND_STATUS_SUCCESS => Ok(()),
            error => Err(Error::Library {
                call: "curandSetGeneratorOrdering".into(),
                error: format!("{error:?}"),
            }),
        }
    }

    fn out_ptr<T: CurandFloat>(&self, out: &mut DeviceBuffer<T>) -> Result<(*mut T, usize)> {
        let len = out.len();
        let slice = out
            .as_cuda_mut()
            .ok_or_else(|| Error::NeedsCuda("cuRAND generation into a simulator buffer".into()))?;
        let (ptr, _record) = slice.device_ptr_mut(&self.device.stream);
        Ok((ptr as *mut T, len))
    }

    /// Fills `out` with uniforms in (0, 1] (`curandGenerateUniform[Double]`), queued on the stream.
    pub fn fill_uniform<T: CurandFloat>(&mut self, out: &mut DeviceBuffer<T>) -> Result<()> {
        let (ptr, len) = self.out_ptr(out)?;
        // SAFETY: `ptr` addresses `len` elements of a live allocation of this device, used on the
        // generator's stream, which orders this write before later work on the buffer.
        unsafe { T::generate_uniform(self.generator, ptr, len) }
    }

    /// Fills `out` with normals of `mean` and `stddev` (`curandGenerateNormal[Double]`, which
    /// needs an even count: cuRAND makes them in Box-Muller pairs).
    pub fn fill_normal<T: CurandFloat>(&mut self, out: &mut DeviceBuffer<T>, mean: T, stddev: T) -> Result<()> {
        if !out.len().is_multiple_of(2) {
            return Err(Error::InvalidArgument(format!(
                "cuRAND generates normals in pairs: {} is odd",
                out.len()
            )));
        }
        let (ptr, len) = self.out_ptr(out)?;
        // SAFETY: as in `fill_uniform`.
        unsafe { T::generate_normal(self.generator, ptr, len, mean, stddev) }
    }
}

impl Drop for Curand<'_> {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once here; work queued with it is ordered on the
        // stream before any later free.
        let _ = unsafe { result::destroy_generator(self.generator) };
    }
}
