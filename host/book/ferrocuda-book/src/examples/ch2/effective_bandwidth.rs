//! ch2-effective-bandwidth: theoretical peak versus effective bandwidth (book §2.3).
use crate::defaults::Pick;
use crate::example::{Example, NoOptions, Outcome, Run, SIMULATOR_SIZE, Size};
use book_kernels::ch2::limiting_factor::{BaseFast, LimitingFactorArgs, Memory};
use book_kernels::stream::{StreamCopyVec4, UnaryArgs};
use ferrocuda::footprint::{Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result, same_len};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

/// The book's worked example size (8*1024*1024 floats) and the copy of Table 2.1 at a size well
/// beyond the 50 MB L2 (2^28 floats, 1 GiB each way), so the copy measures memory, not cache.
pub const N_WORKED: usize = 8 * 1024 * 1024;
pub const N_COPY: usize = 1 << 28;
/// Threads per block of `base` and the 4-byte copy (`ch2-limiting-factor`'s `memory` kernel),
/// the book's `blockSize`.
pub const THREADS_PER_BLOCK: u32 = 256;
/// Threads per block of the 16-byte copy (`stream`'s `copy_vec4`), the article's.
pub const VEC4_THREADS_PER_BLOCK: u32 = 512;

/// The kernels this example times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `base_fast`: `a = __sinf(b)`, the book's worked example.
    BaseFast,
    /// `memory`: `a = b`, one 4-byte element per thread.
    Copy,
    /// `copy_vec4`: `a = b`, four elements per thread in 16-byte accesses.
    CopyVec4,
}

/// Launches `variant` over `a_d`, reading `b_d`.
pub fn launch(gpu: &Gpu, variant: Variant, a_d: &mut DeviceBuffer<f32>, b_d: &DeviceBuffer<f32>) -> Result<()> {
    let n = same_len("effective bandwidth", &[a_d.len(), b_d.len()])?;
    let args = LimitingFactorArgs {
        a: a_d.view_mut(),
        b: b_d.view(),
    };
    let kernels = crate::kernels(gpu)?;
    match variant {
        Variant::BaseFast => kernels.launch(BaseFast, LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?, args),
        Variant::Copy => kernels.launch(Memory, LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?, args),
        Variant::CopyVec4 => {
            let args = UnaryArgs {
                input: b_d.view(),
                output: a_d.view_mut(),
                scalar: 1.0,
            };
            kernels.launch(
                StreamCopyVec4,
                LaunchShape::cover_1d(n.div_ceil(4), VEC4_THREADS_PER_BLOCK)?,
                args,
            )
        }
    }
}

/// ch2-effective-bandwidth.
pub struct Ch2EffectiveBandwidth;

impl Example for Ch2EffectiveBandwidth {
    const ID: &'static str = "ch2-effective-bandwidth";
    const DESCRIPTION: &'static str =
        "peak bandwidth from clock and bus width, against the effective bandwidth of copy kernels (book 2.3)";
    const SIZE: Option<Size> = Some(Size::new(
        "floats per array of the copy rows (the worked example keeps the book's size)",
        N_COPY,
        SIMULATOR_SIZE,
    ));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak, one row at a time: the input and the output on the device, the input and
    /// the download on the host, for the larger of the copy rows' `n` and the worked example's
    /// fixed size; `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.mirrored::<f32>(2, run.size.max(N_WORKED))
    }

    /// Prints the peak, the worked example (`base` with fast math) and the copy kernel's bandwidth.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let p = gpu.properties();
        let peak = p.peak_bandwidth_gb_per_s();
        println!(" Device Number: {}", p.ordinal);
        println!("   Device name: {}", p.name);
        println!("   Memory Clock Rate (KHz): {}", p.memory_clock_rate_khz);
        println!("   Memory Bus Width (bits): {}", p.memory_bus_width_bits);
        println!("   Peak Memory Bandwidth (GB/s): {peak:6.2}");
        println!("   ECC: {}", if p.ecc_enabled { "on" } else { "off" });

        let n_copy = run.size;
        let rows = [
            (
                "base, fast math (book's worked example)",
                gpu.pick(N_WORKED, SIMULATOR_SIZE),
                Variant::BaseFast,
            ),
            ("copy kernel, 4-byte accesses (Table 2.1)", n_copy, Variant::Copy),
            (
                "copy kernel, 16-byte accesses (Table 2.1, best shape)",
                n_copy,
                Variant::CopyVec4,
            ),
        ];
        let mut checks = Vec::new();
        for (label, n, variant) in rows {
            let b = try_from_fn(n, |i| (i % 1000) as f32 * 1e-3)?;
            let b_d = gpu.upload(&b)?;
            let mut a_d = gpu.zeros::<f32>(n)?;
            let stats = time_reps(gpu, run.reps, || launch(gpu, variant, &mut a_d, &b_d))?;
            let bytes = 2 * n * size_of::<f32>();
            let bw = gb_per_s(bytes, stats.median_ms);
            let of_peak = if peak > 0.0 {
                format!(", {:.0}% of peak", 100.0 * bw / peak)
            } else {
                String::new()
            };
            println!(
                "   {label}: {n} floats, ({n}*4*2)/1e9 / {:.3e} s = {bw:.0} GB/s effective{of_peak} ({})",
                stats.median_ms * 1e-3,
                gpu.timing_label()
            );
            if variant != Variant::BaseFast {
                checks.push(Check::compare(label, &gpu.download(&a_d)?, &b, Tolerance::EXACT));
            }
        }
        Ok(Outcome { checks })
    }
}
