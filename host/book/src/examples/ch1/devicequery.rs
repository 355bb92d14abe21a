//! ch1-devicequery: the book's device query (§1.4), every field it prints, plus the modern GPU's
//! resources and the theoretical peak bandwidth (§2.3.1).
use crate::examples::{Example, Options, Outcome};
use ferrocuda::gpu::{DeviceProperties, Gpu, Result, device_count, driver_version};
use ferrocuda::verify::Check;

pub const EXAMPLE: Example = Example {
    id: "ch1-devicequery",
    description: "lists every GPU with the book's deviceQuery fields and the peak memory bandwidth (book 1.4, 2.3.1)",
    size: None,
    f64: false,
    reps: false,
    flags: &[],
    run,
};

/// Prints every device, as `deviceQuery` does; checks that the one in use has sane limits.
pub fn run(gpu: &Gpu, _options: &Options) -> Result<Outcome> {
    if gpu.is_simulator() {
        println!("No CUDA device in use: the CPU simulator, which follows compute capability 9.0");
        print_device(gpu.properties());
        let p = gpu.properties();
        let sane = p.max_threads_per_block == 1024 && p.warp_size == 32 && p.multiprocessor_count > 0;
        return Ok(Outcome {
            checks: vec![Check::condition("simulator properties are complete", sane)],
        });
    }
    let count = device_count()?;
    match count {
        0 => println!("No CUDA devices found"),
        1 => println!("One CUDA device found"),
        n => println!("{n} CUDA devices found"),
    }
    let (major, minor) = driver_version()?;
    println!("  CUDA driver version: {major}.{minor}");
    for ordinal in 0..count {
        print_device(&DeviceProperties::query(ordinal)?);
    }
    let p = gpu.properties();
    let sane = p.multiprocessor_count > 0
        && p.max_threads_per_block >= 1024
        && p.warp_size == 32
        && p.peak_bandwidth_gb_per_s() > 0.0;
    Ok(Outcome {
        checks: vec![Check::condition("device properties are complete", sane)],
    })
}

fn print_device(p: &DeviceProperties) {
    let [gx, gy, gz] = p.max_grid_dim;
    let [bx, by, bz] = p.max_block_dim;
    println!();
    println!("  Device Number: {}", p.ordinal);
    println!("    Device Name: {}", p.name);
    println!(
        "    Compute Capability: {}.{}",
        p.compute_capability.0, p.compute_capability.1
    );
    println!("    Number of Multiprocessors: {}", p.multiprocessor_count);
    println!(
        "    Max Threads per Multiprocessor: {}",
        p.max_threads_per_multiprocessor
    );
    println!(
        "    Max Thread Blocks per Multiprocessor: {}",
        p.max_blocks_per_multiprocessor
    );
    println!(
        "    Global Memory (GB): {:9.3}",
        p.total_global_mem_bytes as f64 / 1024f64.powi(3)
    );
    println!("    ECC Enabled: {}", if p.ecc_enabled { "Yes" } else { "No" });
    println!();
    println!("    Execution Configuration Limits");
    println!("      Max Grid Dims: {gx} x {gy} x {gz}");
    println!("      Max Block Dims: {bx} x {by} x {bz}");
    println!("      Max Threads per Block: {}", p.max_threads_per_block);
    println!();
    println!("    Resources");
    println!("      Warp Size: {}", p.warp_size);
    println!(
        "      Registers per Block / per Multiprocessor: {} / {}",
        p.registers_per_block, p.registers_per_multiprocessor
    );
    println!(
        "      Shared Memory per Block (default / opt-in) / per Multiprocessor (KiB): {} / {} / {}",
        p.shared_mem_per_block_bytes / 1024,
        p.shared_mem_per_block_optin_bytes / 1024,
        p.shared_mem_per_multiprocessor_bytes / 1024
    );
    println!("      Total Constant Memory (bytes): {}", p.total_constant_mem_bytes);
    println!(
        "      L2 Cache Size (MiB): {:.1}",
        p.l2_cache_bytes as f64 / 1024f64.powi(2)
    );
    println!("      Clock Rate (MHz): {}", p.clock_rate_khz / 1000);
    println!("      Async Engines: {}", p.async_engine_count);
    println!(
        "      Concurrent Kernels: {}",
        if p.concurrent_kernels { "Yes" } else { "No" }
    );
    println!(
        "      Unified Addressing: {}",
        if p.unified_addressing { "Yes" } else { "No" }
    );
    println!(
        "      Can Map Host Memory: {}",
        if p.can_map_host_memory { "Yes" } else { "No" }
    );
    println!("      Integrated: {}", if p.integrated { "Yes" } else { "No" });
    println!("      PCI Bus Id: {}", p.pci_bus_id);
    println!();
    println!("    Memory Clock Rate (KHz): {}", p.memory_clock_rate_khz);
    println!("    Memory Bus Width (bits): {}", p.memory_bus_width_bits);
    println!("    Peak Memory Bandwidth (GB/s): {:6.2}", p.peak_bandwidth_gb_per_s());
}
