//! ch1-devicequery: the book's device query (§1.4), every field it prints, plus the modern GPU's
//! resources and the theoretical peak bandwidth (§2.3.1), and the peer-access lines of the IT4I
//! course's deviceQuery (hands-on 0: "Peer access from A40 (GPU0) -> A40 (GPU1) : Yes").
use crate::example::{Example, NoOptions, Outcome, Run};
use ferrocuda::gpu::{DeviceProperties, Gpu, Result, device_count, driver_version};
use ferrocuda::verify::Check;

/// ch1-devicequery.
pub struct Ch1Devicequery;

impl Example for Ch1Devicequery {
    const ID: &'static str = "ch1-devicequery";
    const DESCRIPTION: &'static str =
        "lists every GPU with the book's deviceQuery fields and the peak memory bandwidth (book 1.4, 2.3.1)";
    type Args = NoOptions;

    /// Prints every device, as `deviceQuery` does; checks that the one in use has sane limits.
    fn run(gpu: &Gpu, _run: &Run<NoOptions>) -> Result<Outcome> {
        let p = gpu.properties();
        if gpu.is_simulator() {
            println!("No CUDA device in use: the CPU simulator, which follows compute capability 9.0");
            print_device(p);
            print_peer_lines(&[gpu])?;
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
        // Every GPU but the one in use is opened for the peer queries (a context each).
        let others = (0..count)
            .filter(|&ordinal| ordinal != p.ordinal)
            .map(Gpu::new)
            .collect::<Result<Vec<_>>>()?;
        let mut all: Vec<&Gpu> = std::iter::once(gpu).chain(&others).collect();
        all.sort_by_key(|g| g.properties().ordinal);
        print_peer_lines(&all)?;
        let sane = p.multiprocessor_count > 0
            && p.max_threads_per_block >= 1024
            && p.warp_size == 32
            && p.peak_bandwidth_gb_per_s() > 0.0;
        Ok(Outcome {
            checks: vec![Check::condition("device properties are complete", sane)],
        })
    }
}

/// deviceQuery's peer lines, one per ordered pair of `gpus` (by ordinal): `Peer access from
/// NAME (GPUi) -> NAME (GPUj) : Yes|No` (`cudaDeviceCanAccessPeer`); one line saying there is
/// no pair when there is one device.
pub fn peer_lines(gpus: &[&Gpu]) -> Result<Vec<String>> {
    if gpus.len() < 2 {
        let what = match gpus.first() {
            Some(g) if g.is_simulator() => "the simulator is one device",
            _ => "one CUDA device",
        };
        return Ok(vec![format!("Peer access: no pair of GPUs to query ({what})")]);
    }
    let mut lines = Vec::new();
    for from in gpus {
        for to in gpus {
            let (pf, pt) = (from.properties(), to.properties());
            if pf.ordinal == pt.ordinal {
                continue;
            }
            let can = if from.can_access_peer(to)? { "Yes" } else { "No" };
            lines.push(format!(
                "Peer access from {} (GPU{}) -> {} (GPU{}) : {can}",
                pf.name, pf.ordinal, pt.name, pt.ordinal
            ));
        }
    }
    Ok(lines)
}

fn print_peer_lines(gpus: &[&Gpu]) -> Result<()> {
    println!();
    for line in peer_lines(gpus)? {
        println!("  {line}");
    }
    Ok(())
}

fn print_device(p: &DeviceProperties) {
    let yes = |b: bool| if b { "Yes" } else { "No" };
    let [gx, gy, gz] = p.max_grid_dim;
    let [bx, by, bz] = p.max_block_dim;
    let (major, minor) = p.compute_capability;
    let kib = |bytes: u32| bytes / 1024;
    println!();
    println!("  Device Number: {}", p.ordinal);
    println!("    Device Name: {}", p.name);
    println!("    Compute Capability: {major}.{minor}");
    println!("    Number of Multiprocessors: {}", p.multiprocessor_count);
    let (sm_threads, sm_blocks) = (p.max_threads_per_multiprocessor, p.max_blocks_per_multiprocessor);
    println!("    Max Threads per Multiprocessor: {sm_threads}");
    println!("    Max Thread Blocks per Multiprocessor: {sm_blocks}");
    let gib = p.total_global_mem_bytes as f64 / 1024f64.powi(3);
    println!("    Global Memory (GB): {gib:9.3}");
    println!("    ECC Enabled: {}", yes(p.ecc_enabled));
    println!();
    println!("    Execution Configuration Limits");
    println!("      Max Grid Dims: {gx} x {gy} x {gz}");
    println!("      Max Block Dims: {bx} x {by} x {bz}");
    println!("      Max Threads per Block: {}", p.max_threads_per_block);
    println!();
    println!("    Resources");
    println!("      Warp Size: {}", p.warp_size);
    let (block, sm) = (p.registers_per_block, p.registers_per_multiprocessor);
    println!("      Registers per Block / per Multiprocessor: {block} / {sm}");
    let (block, optin) = (
        kib(p.shared_mem_per_block_bytes),
        kib(p.shared_mem_per_block_optin_bytes),
    );
    let sm = kib(p.shared_mem_per_multiprocessor_bytes);
    println!("      Shared Memory per Block (default / opt-in) / per Multiprocessor (KiB): {block} / {optin} / {sm}");
    println!("      Total Constant Memory (bytes): {}", p.total_constant_mem_bytes);
    let mib = p.l2_cache_bytes as f64 / 1024f64.powi(2);
    println!("      L2 Cache Size (MiB): {mib:.1}");
    println!("      Clock Rate (MHz): {}", p.clock_rate_khz / 1000);
    println!("      Async Engines: {}", p.async_engine_count);
    println!("      Concurrent Kernels: {}", yes(p.concurrent_kernels));
    println!("      Unified Addressing: {}", yes(p.unified_addressing));
    println!("      Can Map Host Memory: {}", yes(p.can_map_host_memory));
    println!("      Integrated: {}", yes(p.integrated));
    println!("      PCI Bus Id: {}", p.pci_bus_id);
    println!();
    println!("    Memory Clock Rate (KHz): {}", p.memory_clock_rate_khz);
    println!("    Memory Bus Width (bits): {}", p.memory_bus_width_bits);
    println!("    Peak Memory Bandwidth (GB/s): {:6.2}", p.peak_bandwidth_gb_per_s());
}
