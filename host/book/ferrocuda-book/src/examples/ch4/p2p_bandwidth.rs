//! ch4-p2p-bandwidth: `cudaMemcpyPeer` bandwidth between every pair of devices, as a matrix (book
//! §4.1.2, `program p2pBandwidth`).
use super::{DevicesOption, PEER_COPY_SIZE, any_shared, enable_peer_access, none_failed};
use crate::example::{Example, Outcome, Run, Size};
use ferrocuda::footprint::{Footprint, try_vec};
use ferrocuda::gpu::{Gpu, Result};

/// ch4-p2p-bandwidth.
pub struct Ch4P2pBandwidth;

impl Example for Ch4P2pBandwidth {
    const ID: &'static str = "ch4-p2p-bandwidth";
    const DESCRIPTION: &'static str = "16 MB cudaMemcpyPeer between every pair of devices, validated, as a sender x receiver GB/s matrix (book 4.1.2)";
    const SIZE: Option<Size> = Some(Size {
        unit: "floats in the array on each logical device, the size of every copy (logical devices sharing a GPU each need theirs on it)",
        ..PEER_COPY_SIZE
    });
    type Args = DevicesOption;

    /// The run's peak at `n` floats per array: one array per logical device, those on the
    /// busiest GPU together (all of them on the simulator, whose device memory is host memory),
    /// and on the host one array's worth at a time (the value uploaded, or the copy downloaded
    /// to validate).
    fn memory(run: &Run<DevicesOption>, gpu: &Gpu) -> Option<Footprint> {
        let devices = run.args.plan(gpu, 4);
        Footprint::NONE
            .device::<f32>(devices.busiest(devices.logical), run.size)?
            .host::<f32>(1, run.size)
    }

    /// The book's program on the logical devices.
    fn run(gpu: &Gpu, run: &Run<DevicesOption>) -> Result<Outcome> {
        let gpus = run.args.open(gpu, 4)?;
        let n = run.size;
        let (bandwidth, failed) = measure(&gpus, n)?;
        println!(
            "\nBandwidth (GB/s) for transfer size (MB): {:.3}",
            (n * size_of::<f32>()) as f64 / (1024.0 * 1024.0)
        );
        println!(
            " S\\R{}",
            (0..gpus.len()).map(|j| format!("{j:>8}")).collect::<String>()
        );
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
        if gpus.len() < 2 {
            println!("One device: no pair to measure");
        } else if gpus[0].is_simulator() {
            println!("Every pair is two CPU simulators: each copy is a host memory copy, not a peer-to-peer transfer");
        } else if any_shared(&gpus) {
            println!(
                "Pairs marked * are logical devices sharing one GPU: a copy within one GPU, not a peer-to-peer transfer"
            );
        }
        let check = none_failed("every copy delivered the sender's values", "not", &failed);
        Ok(Outcome { checks: vec![check] })
    }
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
    enable_peer_access(gpus)?;
    let mut bandwidth = vec![vec![0.0; p]; p];
    let mut failed = Vec::new();
    let bytes = (n * size_of::<f32>()) as f64;
    for receiver in 0..p {
        for sender in (0..p).filter(|&i| i != receiver) {
            let [dst, src] = arrays.get_disjoint_mut([receiver, sender]).expect("two devices");
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
