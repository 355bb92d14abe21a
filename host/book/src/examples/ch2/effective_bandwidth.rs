//! ch2-effective-bandwidth: theoretical peak versus effective bandwidth (book §2.3).
use crate::examples::ch2::limiting_factor::{self, Variant};
use crate::examples::stream::{self, Layout, Op};
use crate::examples::{Example, Options, Outcome, SIMULATOR_SIZE};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::{gb_per_s, time_reps};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: Example = Example {
    id: "ch2-effective-bandwidth",
    description: "peak bandwidth from clock and bus width, against the effective bandwidth of copy kernels (book 2.3)",
    flags: &[],
    run,
};

/// The book's worked example size (8*1024*1024 floats) and the copy of Table 2.1 at a size well
/// beyond the 50 MB L2 (2^28 floats, 1 GiB each way), so the copy measures memory, not cache.
pub const N_WORKED: usize = 8 * 1024 * 1024;
pub const N_COPY: usize = 1 << 28;

/// Prints the peak, the worked example (`base` with fast math) and the copy kernel's bandwidth.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let p = gpu.properties();
    let peak = p.peak_bandwidth_gb_per_s();
    println!(" Device Number: {}", p.ordinal);
    println!("   Device name: {}", p.name);
    println!("   Memory Clock Rate (KHz): {}", p.memory_clock_rate_khz);
    println!("   Memory Bus Width (bits): {}", p.memory_bus_width_bits);
    println!("   Peak Memory Bandwidth (GB/s): {peak:6.2}");
    println!("   ECC: {}", if p.ecc_enabled { "on" } else { "off" });

    let n_copy = options.size_or(gpu.pick(N_COPY, SIMULATOR_SIZE))?;
    let rows = [
        (
            "base, fast math (book's worked example)",
            gpu.pick(N_WORKED, SIMULATOR_SIZE),
            Kernel::BaseFast,
        ),
        ("copy kernel, 4-byte accesses (Table 2.1)", n_copy, Kernel::Copy),
        (
            "copy kernel, 16-byte accesses (Table 2.1, best shape)",
            n_copy,
            Kernel::CopyVec4,
        ),
    ];
    let mut checks = Vec::new();
    for (label, n, kernel) in rows {
        let b: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 1e-3).collect();
        let b_d = gpu.upload(&b)?;
        let mut a_d = gpu.zeros::<f32>(n)?;
        let stats = time_reps(gpu, options.reps, || match kernel {
            Kernel::BaseFast => limiting_factor::launch(gpu, Variant::Base, true, &mut a_d, &b_d, 1.0),
            Kernel::Copy => limiting_factor::launch(gpu, Variant::Memory, false, &mut a_d, &b_d, 1.0),
            Kernel::CopyVec4 => stream::unary(
                gpu,
                Op::Copy,
                Layout::Vec4,
                &b_d,
                &mut a_d,
                1.0,
                stream::THREADS_PER_BLOCK,
            ),
        })?;
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
        if kernel != Kernel::BaseFast {
            checks.push(Check::compare(label, &gpu.download(&a_d)?, &b, Tolerance::EXACT));
        }
    }
    Ok(Outcome { checks })
}

/// The kernels this example times.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    BaseFast,
    Copy,
    CopyVec4,
}
