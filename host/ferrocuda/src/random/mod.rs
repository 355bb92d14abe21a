//! Random numbers into device buffers (issue 5): this library's Philox4x32-10 ([`fill_uniform`],
//! [`fill_normal`]), whose every element the CPU reproduces bit for bit
//! (`random::cpu`), and cuRAND's host generators for runs that must match the book's
//! printed numbers ([`Generator`]).
//!
//! The stream of a `(seed, offset)` does not depend on the launch: element `i` comes from Philox
//! block `offset + i / P`, with `P` = 4 for `f32` and 2 for `f64` (`ferrocuda_device::random::stream`
//! has the whole layout; [`blocks_for`] gives the offset of a following, non-overlapping
//! buffer). A range of blocks past the last one, `2^64 - 1`, is refused rather than wrapped into
//! offset 0's stream. Normals come from Box-Muller with a logarithm and a sine rounded identically on the
//! GPU and the CPU (`ln` within 1 ulp, `sincospi` within 2 ulps, of glibc).
//!
//! ```
//! let gpu = ferrocuda::Gpu::from_env(0)?; // a GPU, or the simulator without one
//! let mut x_d = gpu.zeros::<f32>(1 << 12)?;
//! ferrocuda::random::fill_normal(&gpu, 1234, 0, &mut x_d)?;
//! let x = gpu.download(&x_d)?;
//! assert_eq!(x, ferrocuda::random::cpu::normal::<f32>(1234, 0, 1 << 12)?);
//! # Ok::<(), ferrocuda::Error>(())
//! ```
use crate::gpu::{
    Curand, CurandFloat, CurandGenerator, CurandOrdering, DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result,
};
use ferrocuda_device::random::PhiloxReal;
pub use ferrocuda_device::random::blocks_for;
use ferrocuda_device::real::Real;
use gpu_kernels::random::{PhiloxArgs, PhiloxNormal, PhiloxUniform};
use std::str::FromStr;

pub mod cpu;

/// Threads per block of the Philox kernels.
pub const THREADS_PER_BLOCK: u32 = 256;
/// Blocks per SM at most. The normals' registers (about 50 in `f32`, 76 in `f64` with ptxas
/// 13.0 for sm_90) let only 3 to 5 blocks of 256 threads reside on an SM at once, so a grid of
/// one full wave (8 per SM) would run as 1.6 waves with a 60%-empty second one; 64 per SM makes
/// 13 to 22 waves of equal work, whose last partial wave costs 3% at most.
pub const BLOCKS_PER_SM: u32 = 64;

/// `f32` or `f64`: the types both generators fill.
pub trait RandomFloat: PhiloxReal + CurandFloat + Real {
    /// Launches `philox_uniform` for this type.
    fn launch_uniform(gpu: &Gpu, shape: LaunchShape, args: PhiloxArgs<'_, Self>) -> Result<()>;
    /// Launches `philox_normal` for this type.
    fn launch_normal(gpu: &Gpu, shape: LaunchShape, args: PhiloxArgs<'_, Self>) -> Result<()>;
}

macro_rules! random_float {
    ($($t:ty),*) => {$(
        impl RandomFloat for $t {
            fn launch_uniform(gpu: &Gpu, shape: LaunchShape, args: PhiloxArgs<'_, Self>) -> Result<()> {
                gpu.library()?.launch(PhiloxUniform, shape, args)
            }
            fn launch_normal(gpu: &Gpu, shape: LaunchShape, args: PhiloxArgs<'_, Self>) -> Result<()> {
                gpu.library()?.launch(PhiloxNormal, shape, args)
            }
        }
    )*};
}
random_float!(f32, f64);

/// The launch that fills `n` elements: four per thread per step of a grid-stride loop, at most
/// [`BLOCKS_PER_SM`] blocks per SM.
pub fn shape(gpu: &Gpu, n: usize) -> LaunchShape {
    let fill = gpu.properties().multiprocessor_count * BLOCKS_PER_SM;
    let blocks = n
        .div_ceil(4 * THREADS_PER_BLOCK as usize)
        .clamp(1, fill.max(1) as usize) as u32;
    LaunchShape::new((blocks, 1, 1), (THREADS_PER_BLOCK, 1, 1))
}

/// Checks that `n` elements of `T` from Philox block `offset` stay at or below the last block,
/// `2^64 - 1`: past it the counter would wrap into offset 0's stream.
pub(crate) fn check_stream<T: PhiloxReal>(offset: u64, n: usize) -> Result<()> {
    let blocks = blocks_for::<T>(n as u64);
    match offset.checked_add(blocks.saturating_sub(1)) {
        Some(_) => Ok(()),
        None => Err(Error::InvalidArgument(format!(
            "{n} random elements need {blocks} Philox blocks from block {offset}, past the last block \
             (2^64 - 1), so their offset is at most {}",
            u64::MAX - (blocks - 1)
        ))),
    }
}

/// Fills `out` with the uniforms in (0, 1] of the Philox stream `(seed, offset)`; queued on the
/// device's stream. A stream past the last Philox block is an [`Error::InvalidArgument`].
pub fn fill_uniform<T: RandomFloat>(gpu: &Gpu, seed: u64, offset: u64, out: &mut DeviceBuffer<T>) -> Result<()> {
    fill(gpu, seed, offset, out, T::launch_uniform)
}

/// Fills `out` with the normals (mean 0, standard deviation 1, Box-Muller) of the Philox stream
/// `(seed, offset)`; queued on the device's stream. Any length, odd included. A stream past the
/// last Philox block is an [`Error::InvalidArgument`].
pub fn fill_normal<T: RandomFloat>(gpu: &Gpu, seed: u64, offset: u64, out: &mut DeviceBuffer<T>) -> Result<()> {
    fill(gpu, seed, offset, out, T::launch_normal)
}

/// Checks the stream `(seed, offset)` reaches `out.len()` values, then `launch`es the fill.
fn fill<T: RandomFloat>(
    gpu: &Gpu,
    seed: u64,
    offset: u64,
    out: &mut DeviceBuffer<T>,
    launch: fn(&Gpu, LaunchShape, PhiloxArgs<'_, T>) -> Result<()>,
) -> Result<()> {
    check_stream::<T>(offset, out.len())?;
    let shape = shape(gpu, out.len());
    let args = PhiloxArgs {
        out: out.view_mut(),
        seed,
        offset,
    };
    launch(gpu, shape, args)
}

/// Which generator fills a buffer: the book's, or this library's.
///
/// ```no_run
/// use ferrocuda::random::Generator;
/// let gpu = ferrocuda::Gpu::new(0)?;
/// let mut x_d = gpu.zeros::<f64>(20)?;
/// let generator: Generator = "curand".parse()?;
/// generator.fill_uniform(&gpu, 1234, &mut x_d)?;
/// println!("{:?}", &gpu.download(&x_d)?[..4]); // the book's 0.4348988043884129 ...
/// # Ok::<(), ferrocuda::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Generator {
    /// cuRAND's `CURAND_RNG_PSEUDO_DEFAULT` (XORWOW), the book's, created and seeded for each
    /// call as the book's listings do; CUDA only.
    Curand,
    /// The same with `CURAND_ORDERING_PSEUDO_SEEDED`, the book's suggested fix for the seeding
    /// time of §5.3 (another stream of numbers); CUDA only.
    CurandSeeded,
    /// This library's Philox4x32-10 at offset 0, on either backend.
    Philox,
}

impl Generator {
    /// The book's generator on a CUDA device; Philox on the simulator, which has no cuRAND.
    pub fn default_for(gpu: &Gpu) -> Self {
        if gpu.is_simulator() {
            Generator::Philox
        } else {
            Generator::Curand
        }
    }

    /// The flag value that names this generator (`curand`, `philox`).
    pub fn name(self) -> &'static str {
        match self {
            Generator::Curand => "curand",
            Generator::CurandSeeded => "curand-seeded",
            Generator::Philox => "philox",
        }
    }

    /// cuRAND's default generator on `gpu`'s device, seeded with `seed`, in this variant's order.
    fn curand<'a>(self, gpu: &'a Gpu, seed: u64, what: &str) -> Result<Curand<'a>> {
        let mut generator = Curand::new(gpu.cuda(what)?, CurandGenerator::PseudoDefault, seed)?;
        if self == Generator::CurandSeeded {
            generator.set_ordering(CurandOrdering::Seeded)?;
        }
        Ok(generator)
    }

    /// Fills `out` with uniforms in (0, 1] from this generator seeded with `seed`.
    pub fn fill_uniform<T: RandomFloat>(self, gpu: &Gpu, seed: u64, out: &mut DeviceBuffer<T>) -> Result<()> {
        match self {
            Generator::Curand | Generator::CurandSeeded => {
                self.curand(gpu, seed, "cuRAND's uniforms")?.fill_uniform(out)
            }
            Generator::Philox => fill_uniform(gpu, seed, 0, out),
        }
    }

    /// Fills `out` with normals of mean 0 and standard deviation 1 from this generator seeded
    /// with `seed` (cuRAND makes them in pairs: its length must be even).
    pub fn fill_normal<T: RandomFloat>(self, gpu: &Gpu, seed: u64, out: &mut DeviceBuffer<T>) -> Result<()> {
        match self {
            Generator::Curand | Generator::CurandSeeded => {
                self.curand(gpu, seed, "cuRAND's normals")?
                    .fill_normal(out, T::from_f64(0.0), T::from_f64(1.0))
            }
            Generator::Philox => fill_normal(gpu, seed, 0, out),
        }
    }
}

impl FromStr for Generator {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "curand" => Ok(Generator::Curand),
            "curand-seeded" => Ok(Generator::CurandSeeded),
            "philox" => Ok(Generator::Philox),
            other => Err(Error::InvalidArgument(format!(
                "the generator is curand, curand-seeded or philox, not `{other}`"
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_stream_refuses_a_range_past_the_last_block() {
        // The last block itself: four f32 or two f64.
        assert!(check_stream::<f32>(u64::MAX, 4).is_ok());
        assert!(check_stream::<f64>(u64::MAX, 2).is_ok());
        assert!(check_stream::<f32>(u64::MAX, 0).is_ok());
        // One element more needs block 2^64, which would be block 0.
        for refused in [
            check_stream::<f32>(u64::MAX, 5),
            check_stream::<f64>(u64::MAX, 3),
            check_stream::<f32>(u64::MAX - 1, 9),
            check_stream::<f64>((1 << 63) + 1, usize::MAX),
        ] {
            match refused {
                Err(e @ Error::InvalidArgument(_)) => assert!(!e.to_string().contains('\n'), "{e}"),
                other => panic!("not refused: {other:?}"),
            }
        }
        let message = check_stream::<f32>(u64::MAX - 1, 9).unwrap_err().to_string();
        assert!(message.contains("at most 18446744073709551613"), "{message}");
    }
}
