//! ch4-p2p-bandwidth: `cudaMemcpyPeer` bandwidth between every pair of devices, as a matrix (book
//! §4.1.2, `program p2pBandwidth`).
use super::{DEVICES, DevicePlan, one_mut_one_shared, open_devices};
use crate::defaults::Pick;
use crate::example::{LegacyExample, LegacySize, Options, Outcome};
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::verify::Check;

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch4-p2p-bandwidth",
    description: "16 MB cudaMemcpyPeer between every pair of devices, validated, as a sender x receiver GB/s matrix (book 4.1.2)",
    size: Some(LegacySize {
        unit: "floats in the array on each logical device, the size of every copy (logical devices sharing a GPU each need theirs on it)",
        gpu: super::PEER_COPY_BOOK_N,
        simulator: super::PEER_COPY_SIM_N,
        min: 1,
        max: usize::MAX,
        memory,
    }),
    f64: false,
    reps: false,
    flags: &[DEVICES],
    run,
};

/// The run's peak at `n` floats per array: one array per logical device, those on the busiest
/// GPU together (all of them on the simulator, whose device memory is host memory), and on the
/// host one array's worth at a time (the value uploaded, or the copy downloaded to validate).
pub fn memory(options: &Options, gpu: &Gpu, n: usize) -> Option<Footprint> {
    let Some(devices) = DevicePlan::of(options, gpu, 4) else {
        return Some(Footprint::NONE); // `--devices` is refused by the run, in its own words
    };
    Footprint::NONE
        .device::<f32>(devices.busiest(devices.logical), n)?
        .host::<f32>(1, n)
}

/// The bandwidth matrix, GB/s, `[sender][receiver]` (0 where the copy failed validation), and
/// the pairs that failed.
pub fn measure(gpus: &[Gpu], n: usize) -> Result<(Vec<Vec<f64>>, Vec<String>)> {
    let p = gpus.len();
    // The book's `distArray(j)%a_d = j` on device j.
    let mut arrays = gpus
        .iter()
        .enumerate()
        .map(|(j, g)| g.upload(&try_vec(n, j as f32)?))
        .collect::<Result<Vec<_>>>()?;
    // Peer access wherever possible (both directions).
    for (i, a) in gpus.iter().enumerate() {
        for (j, b) in gpus.iter().enumerate() {
            if i != j {
                a.enable_peer_access(b)?;
            }
        }
    }
    let mut bandwidth = vec![vec![0.0; p]; p];
    let mut failed = Vec::new();
    let bytes = n
        .checked_mul(size_of::<f32>())
        .ok_or_else(|| Error::InvalidArgument(format!("--size {n} floats overflow")))? as f64;
    for receiver in 0..p {
        for sender in (0..p).filter(|&i| i != receiver) {
            let (dst, src) = one_mut_one_shared(&mut arrays, receiver, sender);
            let (to, from) = (&gpus[receiver], &gpus[sender]);
            to.copy_peer(dst, from, src)?; // warm-up
            let ms = to.time_ms(|| to.copy_peer(dst, from, src))?;
            if to.download(dst)?.iter().all(|&v| v == sender as f32) {
                bandwidth[sender][receiver] = bytes / ms / 1e6;
            } else {
                failed.push(format!("{sender}->{receiver}"));
            }
            to.upload_into(&try_vec(n, receiver as f32)?, dst)?;
        }
    }
    Ok((bandwidth, failed))
}

/// The book's program on the logical devices.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let gpus = open_devices(gpu, options, 4)?;
    let n = options.size_or(gpu.pick(super::PEER_COPY_BOOK_N, super::PEER_COPY_SIM_N))?;
    let megabytes = n
        .checked_mul(size_of::<f32>())
        .ok_or_else(|| Error::InvalidArgument(format!("--size {n} floats overflow")))? as f64
        / (1024.0 * 1024.0);
    let (bandwidth, failed) = measure(&gpus, n)?;
    println!("\nBandwidth (GB/s) for transfer size (MB): {megabytes:.3}");
    let mut header = String::from(" S\\R");
    for j in 0..gpus.len() {
        header += &format!("{j:>8}");
    }
    println!("{header}");
    for (i, row) in bandwidth.iter().enumerate() {
        let mut line = format!("{i:>4}");
        for (j, gb_per_s) in row.iter().enumerate() {
            let mark = if gpus[i].shares_device_with(&gpus[j]) { "*" } else { " " };
            line += &if i == j {
                format!("{:>8}", "-")
            } else {
                format!("{gb_per_s:>7.2}{mark}")
            };
        }
        println!("{line}");
    }
    println!("(rows: sending device, columns: receiving device, events on the receiver)");
    let shared = (0..gpus.len()).any(|i| (0..i).any(|j| gpus[i].shares_device_with(&gpus[j])));
    if gpus.len() < 2 {
        println!("One device: no pair to measure");
    } else if gpus[0].is_simulator() {
        println!("Every pair is two CPU simulators: each copy is a host memory copy, not a peer-to-peer transfer");
    } else if shared {
        println!(
            "Pairs marked * are logical devices sharing one GPU: a copy within one GPU, not a peer-to-peer transfer"
        );
    }
    let check = Check::condition(
        &format!(
            "every copy delivered the sender's values{}",
            if failed.is_empty() {
                String::new()
            } else {
                format!(" (not {})", failed.join(", "))
            }
        ),
        failed.is_empty(),
    );
    Ok(Outcome { checks: vec![check] })
}
