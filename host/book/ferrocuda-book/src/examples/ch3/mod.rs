//! Book chapter 3 (Ruetsch & Fatica, *CUDA Fortran for Scientists and Engineers*): optimization.

use ferrocuda::gpu::Gpu;
use ferrocuda::ptx::{self, KernelResources, ResourceReport};

/// The book's PTX module `gpu` loads (the newest one on the simulator).
fn module_for(gpu: &Gpu) -> Option<ptx::PtxModule> {
    if gpu.is_simulator() {
        crate::KERNELS.modules().max_by_key(|m| m.compute_capability)
    } else {
        crate::KERNELS.for_compute_capability(gpu.properties().compute_capability_number())
    }
}

/// The lines of `kernel`'s PTX that contain one of `patterns`, trimmed, at most `limit` of them:
/// the evidence an example prints for where its reads land.
pub fn ptx_lines(gpu: &Gpu, kernel: &str, patterns: &[&str], limit: usize) -> Vec<String> {
    module_for(gpu)
        .and_then(|m| ptx::entry_ptx(m.ptx, kernel))
        .map(|body| {
            body.lines()
                .filter(|l| patterns.iter().any(|p| l.contains(p)))
                .map(|l| l.trim().replace('\t', " "))
                .take(limit)
                .collect()
        })
        .unwrap_or_default()
}

/// Prints [`ptx_lines`] under a heading naming the kernel.
pub fn print_ptx_lines(gpu: &Gpu, kernel: &str, patterns: &[&str], limit: usize) {
    let lines = ptx_lines(gpu, kernel, patterns, limit);
    println!("   PTX of {kernel} ({}):", patterns.join(", "));
    if lines.is_empty() {
        println!("     (none)");
    }
    for line in lines {
        println!("     {line}");
    }
}

/// What `ptxas -v` reports for `kernels` in the module `gpu` loads, printed as the book prints
/// ptxinfo; `None`, the reason printed, when it could not be run (ptxas missing).
pub fn print_ptxas_resources(gpu: &Gpu, kernels: &[&str]) -> Option<Vec<KernelResources>> {
    let verbose = match module_for(gpu) {
        // ptxas compiles the whole module (every kernel of the book) to report two: seconds,
        // whatever the example's size.
        Some(module) => {
            crate::progress::spinner("ptxas -v on the book's module").in_scope(|| ptx::ptxas_verbose(&module))
        }
        None => Err("this build embeds no PTX".into()),
    };
    let verbose = verbose
        .inspect_err(|e| println!("   ptxas report not available: {e}"))
        .ok()?;
    let rows: Vec<_> = ResourceReport::parse(&verbose)
        .kernels
        .into_iter()
        .filter(|k| kernels.contains(&k.name.as_str()))
        .collect();
    for k in &rows {
        println!(
            "   ptxas {}: {} bytes stack frame, {} bytes spill stores, {} bytes spill loads; Used {} registers",
            k.name, k.stack_frame_bytes, k.spill_store_bytes, k.spill_load_bytes, k.registers
        );
    }
    Some(rows)
}
pub mod async_overlap;
pub mod bandwidth_test;
pub mod bank_conflicts;
pub mod batching;
pub mod cache_config;
pub mod constant_increment;
pub mod copy;
pub mod cuf_increment;
pub mod cuf_increment_2d;
pub mod cuf_reduce;
pub mod divergence;
pub mod ilp_copy;
pub mod intrinsics;
pub mod localmem;
pub mod offset_stride;
pub mod shared_reverse;
pub mod stride_texture;
pub mod sweep;
pub mod texture_average;
pub mod tlp_copy;
pub mod transpose;
