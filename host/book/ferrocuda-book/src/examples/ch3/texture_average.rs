//! ch3-texture-average: four- and eight-point neighbour averages of a 2048 x 2048 array through
//! global loads and through the read-only path (book §3.2.3 and Appendix D.1, program `average`),
//! each checked against the CPU's `res4`/`res8`. The book reads a texture; `ld.global.nc` reads
//! through the same cache on every GPU since Maxwell (see `book_kernels::ch3::
//! texture_average`).
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::reference::ch3::texture_average as reference;
use book_kernels::ch3::texture_average::{Average4, Average4Tex, Average8, Average8Tex, AverageArgs};
use ferrocuda::footprint::{self, Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

/// The book's interior side, `n = 2048`.
pub const N: usize = 2048;
/// The book's `nTile = 32`: blocks of 32 x 32 threads.
pub const N_TILE: u32 = 32;
/// The simulator's side: 64 blocks of 1024 threads.
pub const SIMULATOR_N: usize = 256;
/// Seed of the input (the book's `random_number`).
pub const SEED: u64 = 2013;
/// The largest side: a grid has at most 65535 blocks in y, of [`N_TILE`] rows each.
pub const MAX_N: usize = 65535 * N_TILE as usize;

/// `(n + 2)^2` and `n^2`, the input's and the output's elements; `None` on overflow.
fn extents(n: usize) -> Option<(usize, usize)> {
    let w = n.checked_add(2)?;
    Some((footprint::elements(&[w, w])?, footprint::elements(&[n, n])?))
}

/// [`extents`], or a sentence saying they overflow.
fn checked_extents(n: usize) -> Result<(usize, usize)> {
    extents(n).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "an {n} x {n} interior has more points than this machine can count"
        ))
    })
}

/// Which stencil.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Points {
    Four,
    Eight,
}

/// How the kernel reads the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Load {
    /// `ld.global`: `average4`, `average8`.
    Global,
    /// `ld.global.nc`: `average4Tex`, `average8Tex`.
    ReadOnly,
}

/// `b = ` the `points` average of `a`'s interior, `a` holding `(n + 2)^2` elements and `b` `n^2`.
pub fn average(
    gpu: &Gpu,
    points: Points,
    load: Load,
    a: &DeviceBuffer<f32>,
    b: &mut DeviceBuffer<f32>,
    n: usize,
    tile: u32,
) -> Result<()> {
    let (input, output) = checked_extents(n)?;
    if a.len() != input || b.len() != output {
        return Err(Error::InvalidArgument(format!(
            "a {n} x {n} average needs {input} input and {output} output elements, not {} and {}",
            a.len(),
            b.len()
        )));
    }
    let shape = LaunchShape::cover_2d(n, n, (tile, tile))?;
    let args = AverageArgs {
        a: a.view(),
        b: b.view_mut(),
        n,
    };
    match (points, load) {
        (Points::Four, Load::Global) => crate::kernels(gpu)?.launch(Average4, shape, args),
        (Points::Eight, Load::Global) => crate::kernels(gpu)?.launch(Average8, shape, args),
        (Points::Four, Load::ReadOnly) => crate::kernels(gpu)?.launch(Average4Tex, shape, args),
        (Points::Eight, Load::ReadOnly) => crate::kernels(gpu)?.launch(Average8Tex, shape, args),
    }
}

/// `(n + 2)^2` uniform values in [0, 1) from `seed` (splitmix64, 24 bits each: exact in f32).
pub fn input(n: usize, seed: u64) -> Result<Vec<f32>> {
    let mut state = seed;
    try_from_fn(checked_extents(n)?.0, |_| {
        state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^= z >> 31;
        (z >> 40) as f32 / (1u64 << 24) as f32
    })
}

/// ch3-texture-average.
pub struct Ch3TextureAverage;

impl Example for Ch3TextureAverage {
    const ID: &'static str = "ch3-texture-average";
    const DESCRIPTION: &'static str =
        "4- and 8-point averages of a 2048^2 array, global vs read-only (texture) loads (book 3.2.3, D.1)";
    const SIZE: Option<Size> = Some(
        Size::new(
            "interior points per side (the input adds a one-point halo)",
            N,
            SIMULATOR_N,
        )
        .at_most(MAX_N),
    );
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak: the input and the output on the device; on the host the input, the CPU's
    /// result and a download (or the NaN poison, never both); `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let (input, output) = extents(run.size)?;
        Footprint::NONE
            .device::<f32>(1, input)?
            .device::<f32>(1, output)?
            .host::<f32>(1, input)?
            .host::<f32>(2, output)
    }

    /// The book's table: per stencil, the global and read-only bandwidths (`4 (n^2 + (n+2)^2) /
    /// time`, the bytes written plus the bytes of `a`, each read once) and the max error. `--size`
    /// sets the side `n` (the book's 2048 by default).
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let (input_len, output_len) = checked_extents(n)?;
        let a = input(n, SEED)?;
        let a_d = gpu.upload(&a)?;
        let mut b_d = gpu.zeros::<f32>(output_len)?;
        let bytes = 4 * (output_len + input_len);
        println!(
            " Device: {}; n = {n}, blocks of {N_TILE} x {N_TILE}, median of {} launches ({})",
            gpu.properties().name,
            run.reps,
            gpu.timing_label()
        );
        println!(
            " {:<18} {:>24} {:>28} {:>12}",
            "", "Global Bandwidth (GB/s)", "Read-only Bandwidth (GB/s)", "Max Error"
        );
        let mut checks = Vec::new();
        for (points, label) in [(Points::Four, "4-point versions"), (Points::Eight, "8-point versions")] {
            let expected = match points {
                Points::Four => reference::average4(&a, n)?,
                Points::Eight => reference::average8(&a, n)?,
            };
            let mut gb = [0.0; 2];
            let mut max_error = 0.0f64;
            for (k, load) in [Load::Global, Load::ReadOnly].into_iter().enumerate() {
                // NaN first, so an element the kernel skips fails the check.
                gpu.upload_into(&try_vec(output_len, f32::NAN)?, &mut b_d)?;
                let stats = time_reps(gpu, run.reps, || average(gpu, points, load, &a_d, &mut b_d, n, N_TILE))?;
                gb[k] = gb_per_s(bytes, stats.median_ms);
                let check = Check::compare(
                    &format!("{label}, {load:?} loads"),
                    &gpu.download(&b_d)?,
                    &expected,
                    Tolerance::EXACT,
                );
                max_error = max_error.max(check.max_abs_err);
                checks.push(check);
            }
            println!(" {label:<18} {:>24.2} {:>28.2} {max_error:>12.6}", gb[0], gb[1]);
        }
        Ok(Outcome { checks })
    }
}
