//! ch4-direct-transfer: where allocations land (`cudaMemGetInfo`), and copies between two devices
//! with peer access on and off (book §4.1.2, `program directTransfer`).
use super::{DevicesOption, PEER_COPY_SIZE, pair_note, require_two};
use crate::example::{Example, Outcome, Run, Size};
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::verify::{Check, Tolerance};

/// ch4-direct-transfer.
pub struct Ch4DirectTransfer;

impl Example for Ch4DirectTransfer {
    const ID: &'static str = "ch4-direct-transfer";
    const DESCRIPTION: &'static str = "free memory before/after allocating on devices 0 and 1, then b_d = a_d and cudaMemcpyPeer timed with peer access on and off (book 4.1.2)";
    const SIZE: Option<Size> = Some(Size {
        unit: "floats in each of the two arrays, a_d on logical device 0 and b_d on 1 (logical devices sharing a GPU each need theirs on it)",
        ..PEER_COPY_SIZE
    });
    type Args = DevicesOption;

    /// The run's peak at `n` floats per array: `a_d` and `b_d` on the memory of logical devices
    /// 0 and 1 (one GPU's, when they share it; the host's on the simulator), and on the host `a`
    /// with either the `-1` preset or the downloaded `b` (one at a time).
    fn memory(run: &Run<DevicesOption>, gpu: &Gpu) -> Option<Footprint> {
        let devices = run.args.plan(gpu, 2);
        Footprint::NONE
            .device::<f32>(devices.busiest(devices.logical.min(2)), run.size)?
            .host::<f32>(2, run.size)
    }

    /// The book's program on logical devices 0 and 1 (the others only show their free memory).
    fn run(gpu: &Gpu, run: &Run<DevicesOption>) -> Result<Outcome> {
        let gpus = run.args.open(gpu, 2)?;
        require_two(&gpus)?;
        program(&gpus, run.size)
    }
}

/// The step in which `gpu`'s free memory moves when a buffer is allocated, measured with a
/// one-element buffer: CUDA's stream-ordered pool, which the library allocates from, maps device
/// memory in chunks (33554432 bytes on the H100 with driver 580, whatever the buffer's size);
/// the simulator counts bytes.
pub fn allocation_step(gpu: &Gpu) -> Result<usize> {
    let before = gpu.memory_info()?.0;
    let probe = gpu.zeros::<f32>(1)?;
    gpu.synchronize()?;
    let after = gpu.memory_info()?.0;
    drop(probe);
    Ok(before.saturating_sub(after).max(1))
}

/// Each device's free memory.
fn free_memory(gpus: &[Gpu]) -> Result<Vec<usize>> {
    gpus.iter().map(|g| g.memory_info().map(|(free, _)| free)).collect()
}

/// Bytes each logical device's free memory should drop by when `allocations` (device, bytes)
/// are made: on a GPU shared by several logical devices, all of theirs.
pub fn expected_drop(gpus: &[Gpu], allocations: &[(usize, usize)]) -> Vec<usize> {
    gpus.iter()
        .map(|g| {
            allocations
                .iter()
                .filter(|(d, _)| *d == g.logical_index() || gpus[*d].shares_device_with(g))
                .map(|(_, bytes)| bytes)
                .sum()
        })
        .collect()
}

/// The program on `gpus` with arrays of `n` floats.
fn program(gpus: &[Gpu], n: usize) -> Result<Outcome> {
    let bytes = n * size_of::<f32>();
    let mut checks = Vec::new();

    let steps = gpus.iter().map(allocation_step).collect::<Result<Vec<_>>>()?;
    let free_before = free_memory(gpus)?;
    let mut a_d = gpus[0].zeros::<f32>(n)?;
    let mut b_d = gpus[1].zeros::<f32>(n)?;
    // Stream-ordered allocations (cuMemAllocAsync) have surely happened after a synchronisation.
    for g in gpus {
        g.synchronize()?;
    }
    let free_after = free_memory(gpus)?;
    let expected = expected_drop(gpus, &[(0, bytes), (1, bytes)]);
    println!("\nAllocation summary");
    for (d, g) in gpus.iter().enumerate() {
        let difference = free_before[d] as i128 - free_after[d] as i128;
        println!("Device {d}: {}", g.properties().name);
        println!(
            "  Free memory before: {}, after: {}, difference: {difference}",
            free_before[d], free_after[d]
        );
        // A GPU's free memory counts every allocation on it, rounded up to its allocator's step
        // (one step more where the pool opened a second chunk): still a placement the
        // difference tells apart, as a device with no allocation must show none. The
        // simulator counts its own buffers exactly.
        let most = match expected[d] {
            0 => 0,
            e if g.is_simulator() => e,
            e => e.next_multiple_of(steps[d]) + steps[d],
        };
        let holds = difference >= expected[d] as i128 && difference <= most as i128;
        checks.push(Check::condition(
            &format!(
                "device {d}'s free memory dropped by {difference}, expected {}",
                expected[d]
            ),
            holds,
        ));
    }
    if let Some(step) = steps.iter().copied().filter(|&s| s > size_of::<f32>()).max() {
        println!(
            "(free memory moves in steps of {step} bytes here: CUDA's stream-ordered pool maps device memory in chunks)"
        );
    }
    if gpus[0].shares_device_with(&gpus[1]) {
        println!(
            "Logical devices 0 and 1 share GPU {}: both allocations show on it ({} bytes)",
            gpus[0].physical_ordinal().unwrap_or_default(),
            2 * bytes
        );
    }

    let access = gpus[0].can_access_peer(&gpus[1])? && gpus[1].can_access_peer(&gpus[0])?;
    println!(
        "\nPeer access {} between 0 and 1",
        if access { "available" } else { "not available" }
    );
    if let Some(note) = pair_note(&gpus[0], &gpus[1]) {
        println!("{note}");
    }
    let a = try_vec(n, 1.0f32)?;
    gpus[0].upload_into(&a, &mut a_d)?;
    for timing in 0..2 {
        println!("\nTiming on device {timing}");
        // `b_d = a_d` (CUDA Fortran's assignment, a unified-address copy) or cudaMemcpyPeer.
        // Sets `b_d` to -1, copies `a_d` into it timed with events on `gpus[timing]`, prints GB/s
        // (`N*4/time/1e6`, ms) and checks `b == a`.
        let mut timed = |what: &str, line: &str, unified: bool| -> Result<()> {
            gpus[1].upload_into(&try_vec(n, -1.0)?, &mut b_d)?;
            let ms = gpus[timing].time_ms(|| match unified {
                true => gpus[1].copy_unified(&mut b_d, &gpus[0], &a_d),
                false => gpus[1].copy_peer(&mut b_d, &gpus[0], &a_d),
            })?;
            let b = gpus[1].download(&b_d)?;
            let check = Check::compare(&format!("{what}, timing on device {timing}"), &b, &a, Tolerance::EXACT);
            if !check.passed() {
                println!("Transfer failed");
            }
            println!("  {line} (GB/s): {:.7}", bytes as f64 / ms / 1e6);
            checks.push(check);
            Ok(())
        };
        if access {
            gpus[0].enable_peer_access(&gpus[1])?;
            gpus[1].enable_peer_access(&gpus[0])?;
            timed("b_d=a_d", "b_d=a_d transfer", true)?;
        }
        timed("cudaMemcpyPeer", "cudaMemcpyPeer transfer", false)?;
        if access {
            gpus[0].disable_peer_access(&gpus[1])?;
            gpus[1].disable_peer_access(&gpus[0])?;
            timed(
                "cudaMemcpyPeer, P2P disabled",
                "cudaMemcpyPeer transfer w/ P2P disabled",
                false,
            )?;
        }
    }
    Ok(Outcome { checks })
}
