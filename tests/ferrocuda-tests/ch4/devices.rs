//! Tests of logical devices, memory information and the copies between devices (book §4.1), and
//! of the `ch4-*` examples with 1 to 4 logical devices. Included by `tests/ferrocuda-tests/ch4.rs`.
use crate::common::{TestResult, awkward_sizes, ensure, fail};
use ferrocuda::gpu::{BackendChoice, Copy2d};
use ferrocuda::{Error, Gpu};

/// The logical devices of the backend `gpu` runs on.
fn logical(gpu: &Gpu, n: usize) -> Result<Vec<Gpu>, String> {
    let choice = if gpu.is_simulator() {
        BackendChoice::Sim
    } else {
        BackendChoice::Cuda
    };
    Gpu::open_logical(choice, n).map_err(fail)
}

/// The command line of `id` with `--devices n`, `--size` when given, two repetitions where it
/// repeats, and `extra`.
fn with_devices(id: &str, n: usize, size: Option<usize>, extra: &[&str]) -> Vec<String> {
    let mut args = vec!["--devices".to_string(), n.to_string()];
    if let Some(size) = size {
        args.extend(["--size".to_string(), size.to_string()]);
    }
    if ferrocuda_book::registry::find(id).is_some_and(|e| e.reps()) {
        args.extend(["--reps".to_string(), "2".to_string()]);
    }
    args.extend(extra.iter().map(|a| a.to_string()));
    args
}

/// `id` passes with `--devices n`, `size` and `extra`.
fn passes(gpu: &Gpu, id: &str, n: usize, size: Option<usize>, extra: &[&str]) -> TestResult {
    let args = with_devices(id, n, size, extra);
    crate::common::passes_with(gpu, id, &args.iter().map(String::as_str).collect::<Vec<_>>())
}

/// `id` refuses `--devices n`, `size` and `extra` with an `InvalidArgument` containing `phrase`
/// (the command line's refusals are clap's, the run's its own).
fn refuses(gpu: &Gpu, id: &str, n: usize, size: Option<usize>, extra: &[&str], phrase: &str) -> TestResult {
    let args = with_devices(id, n, size, extra);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match crate::common::run_args(gpu, id, &args) {
        Err(Error::InvalidArgument(message)) if message.contains(phrase) => Ok(()),
        Err(e) => Err(format!("{id} {args:?}: refused, but not with `{phrase}`: {e}")),
        Ok(_) => Err(format!("{id} {args:?}: not refused")),
    }
}

/// Distinct values, exactly representable.
fn ramp(n: usize, offset: f32) -> Vec<f32> {
    (0..n).map(|i| offset + (i % (1 << 20)) as f32).collect()
}

pub fn ch4_open_logical_round_robin(gpu: &Gpu) -> TestResult {
    for n in 1..=4 {
        let gpus = logical(gpu, n)?;
        ensure(gpus.len() == n, || format!("{n} asked, {} opened", gpus.len()))?;
        for (i, g) in gpus.iter().enumerate() {
            ensure(g.logical_index() == i, || {
                format!("logical index {}", g.logical_index())
            })?;
            ensure(g.placement().starts_with(&format!("logical device {i} on ")), || {
                g.placement()
            })?;
            if !gpu.is_simulator() {
                let count = ferrocuda::gpu::device_count().map_err(fail)?;
                ensure(g.physical_ordinal() == Some(i % count), || {
                    format!(
                        "logical device {i} on GPU {:?}, not {}",
                        g.physical_ordinal(),
                        i % count
                    )
                })?;
            } else {
                ensure(g.physical_ordinal().is_none(), || "a simulator has no ordinal".into())?;
            }
        }
    }
    ensure(
        matches!(Gpu::open_logical(BackendChoice::Sim, 0), Err(Error::InvalidArgument(_))),
        || "0 logical devices were not refused".into(),
    )
}

/// The simulator's free memory drops by exactly each live buffer's bytes, and comes back when
/// it is dropped; two simulators count apart.
pub fn ch4_memory_info_simulator_deltas() -> TestResult {
    let gpus = Gpu::open_logical(BackendChoice::Sim, 2).map_err(fail)?;
    let (free0, total) = gpus[0].memory_info().map_err(fail)?;
    ensure(free0 == total && total > 0, || {
        format!("fresh simulator: {free0} of {total} free")
    })?;
    let a = gpus[0].zeros::<f32>(1000).map_err(fail)?;
    let b = gpus[0].zeros::<f64>(33).map_err(fail)?;
    let free_after = gpus[0].memory_info().map_err(fail)?.0;
    ensure(free0 - free_after == 4000 + 33 * 8, || {
        format!("free memory dropped by {}, not 4264", free0 - free_after)
    })?;
    ensure(gpus[1].memory_info().map_err(fail)?.0 == total, || {
        "the other simulator's free memory moved".into()
    })?;
    drop(a);
    ensure(gpus[0].memory_info().map_err(fail)?.0 == free0 - 264, || {
        "dropping a buffer did not give its 4000 bytes back".into()
    })?;
    drop(b);
    ensure(gpus[0].memory_info().map_err(fail)?.0 == free0, || {
        "dropping every buffer did not restore the free memory".into()
    })
}

/// The free memory of the device an allocation lands on drops by its size: exactly on a fresh
/// simulator, by at least half of it on a GPU (other tests of this binary allocate and free
/// there concurrently, by far less than the 256 MiB here).
pub fn ch4_memory_info_sees_allocations(gpu: &Gpu) -> TestResult {
    let fresh = logical(gpu, 1)?;
    let device = &fresh[0];
    let bytes = 256 << 20;
    let free_before = device.memory_info().map_err(fail)?.0;
    let buffer = device.zeros::<u8>(bytes).map_err(fail)?;
    device.synchronize().map_err(fail)?;
    let free_after = device.memory_info().map_err(fail)?.0;
    drop(buffer);
    let dropped = free_before.saturating_sub(free_after);
    let holds = if device.is_simulator() {
        dropped == bytes
    } else {
        dropped >= bytes / 2
    };
    ensure(holds, || {
        format!("free memory {free_before} before and {free_after} after a {bytes}-byte allocation")
    })
}

/// 1-D copies between every ordered pair of 2 to 4 logical devices, sync, async and unified,
/// at awkward lengths: exact.
pub fn ch4_peer_copies_1d_exact(gpu: &Gpu) -> TestResult {
    for n_devices in 2..=4 {
        let gpus = logical(gpu, n_devices)?;
        for (i, from) in gpus.iter().enumerate() {
            for (j, to) in gpus.iter().enumerate().filter(|&(j, _)| j != i) {
                for n in awkward_sizes(256) {
                    let values = ramp(n, (10 * i + j) as f32);
                    let src = from.upload(&values).map_err(fail)?;
                    for how in 0..3 {
                        let mut dst = to.upload(&vec![-1.0f32; n]).map_err(fail)?;
                        match how {
                            0 => to.copy_peer(&mut dst, from, &src).map_err(fail)?,
                            1 => to.copy_unified(&mut dst, from, &src).map_err(fail)?,
                            _ => {
                                let stream = to.new_stream().map_err(fail)?;
                                to.copy_peer_async(&stream, &mut dst, from, &src).map_err(fail)?;
                                to.synchronize_stream(&stream).map_err(fail)?;
                            }
                        }
                        ensure(to.download(&dst).map_err(fail)? == values, || {
                            format!("{n_devices} devices, {i} -> {j}, n = {n}, copy kind {how}: not exact")
                        })?;
                    }
                }
            }
        }
    }
    Ok(())
}

/// 2-D copies (sync and async) of sections with pitches between logical devices: exact, and
/// nothing outside the section written.
pub fn ch4_peer_copies_2d_exact(gpu: &Gpu) -> TestResult {
    let gpus = logical(gpu, 3)?;
    for (width, height) in [(1, 1), (31, 33), (33, 31), (100, 7)] {
        let copy = Copy2d {
            src_offset: 3,
            src_pitch: width + 5,
            dst_offset: 1,
            dst_pitch: width + 2,
            width,
            height,
        };
        let src_len = 3 + height * (width + 5);
        let dst_len = 1 + height * (width + 2);
        let values = ramp(src_len, 0.5);
        let mut expected = vec![-1.0f32; dst_len];
        for r in 0..height {
            for c in 0..width {
                expected[1 + r * (width + 2) + c] = values[3 + r * (width + 5) + c];
            }
        }
        for (from, to) in [(0, 1), (2, 0), (1, 2)] {
            let src = gpus[from].upload(&values).map_err(fail)?;
            for asynchronous in [false, true] {
                let mut dst = gpus[to].upload(&vec![-1.0f32; dst_len]).map_err(fail)?;
                if asynchronous {
                    let stream = gpus[to].new_stream().map_err(fail)?;
                    gpus[to].copy_2d_async(&stream, &src, &mut dst, copy).map_err(fail)?;
                    gpus[to].synchronize_stream(&stream).map_err(fail)?;
                } else {
                    gpus[to].copy_2d(&src, &mut dst, copy).map_err(fail)?;
                }
                ensure(gpus[to].download(&dst).map_err(fail)? == expected, || {
                    format!("{width} x {height}, {from} -> {to}, async {asynchronous}: not exact")
                })?;
            }
        }
    }
    Ok(())
}

/// Peer access between logical devices of one GPU or simulators: "no", and turning it on or
/// off succeeds without effect.
pub fn ch4_peer_access_calls(gpu: &Gpu) -> TestResult {
    let gpus = logical(gpu, 2)?;
    for (a, b) in [(&gpus[0], &gpus[1]), (&gpus[1], &gpus[0])] {
        let can = a.can_access_peer(b).map_err(fail)?;
        if a.is_simulator() || a.shares_device_with(b) {
            ensure(!can, || {
                "peer access between one GPU's logical devices or simulators".into()
            })?;
            ensure(!a.enable_peer_access(b).map_err(fail)?, || "enabled on one GPU".into())?;
        } else if can {
            ensure(a.enable_peer_access(b).map_err(fail)?, || {
                "access possible but not enabled".into()
            })?;
        }
        a.disable_peer_access(b).map_err(fail)?;
        a.disable_peer_access(b).map_err(fail)?; // not enabled now: still fine
    }
    Ok(())
}

/// Every id with 1 to 4 logical devices at its default size: those that need two devices
/// refuse one with the book's sentence.
pub fn ch4_examples_with_1_to_4_devices(gpu: &Gpu) -> TestResult {
    for n in 1..=4 {
        for id in ["ch4-minimal", "ch4-direct-transfer"] {
            if n == 1 {
                refuses(gpu, id, 1, None, &[], "requires at least two GPUs")?;
            } else {
                passes(gpu, id, n, (id != "ch4-minimal").then_some(1000), &[])?;
            }
        }
        passes(gpu, "ch4-p2p-access", n, None, &[])?;
        passes(gpu, "ch4-p2p-bandwidth", n, Some(4099), &[])?;
        // 96 * 4 * 2 is a multiple of 32 * n for every n here.
        let side = 32 * n * 3;
        passes(gpu, "ch4-transpose-p2p", n, Some(side), &[])?;
    }
    passes(gpu, "ch4-transpose-p2p", 2, None, &["--mode", "async"])?;
    Ok(())
}

/// The copy examples at their default sizes and at awkward lengths (1, 31, 33, 4097 floats).
pub fn ch4_copy_examples_sizes(gpu: &Gpu) -> TestResult {
    for size in [None, Some(1), Some(31), Some(33), Some(4097)] {
        passes(gpu, "ch4-direct-transfer", 2, size, &[])?;
        passes(gpu, "ch4-p2p-bandwidth", 2, size, &[])?;
    }
    Ok(())
}

/// The transpose at non-square sizes (the book's figure: 1024 x 768 on four devices) and each
/// mode alone.
pub fn ch4_transpose_p2p_sizes(gpu: &Gpu) -> TestResult {
    for (n, nx, ny, mode) in [
        (4, 1024, 768, "both"),
        (1, 32, 64, "sync"),
        (2, 64, 192, "async"),
        (3, 96, 288, "both"),
        (3, 480, 96, "sync"),
    ] {
        passes(
            gpu,
            "ch4-transpose-p2p",
            n,
            Some(nx),
            &["--ny", &ny.to_string(), "--mode", mode],
        )?;
    }
    Ok(())
}

/// Bad input is refused in one sentence, as the book words it (or as clap does, naming the
/// option, for a value the command line refuses).
pub fn ch4_examples_reject_bad_arguments(gpu: &Gpu) -> TestResult {
    for id in [
        "ch4-minimal",
        "ch4-p2p-access",
        "ch4-direct-transfer",
        "ch4-p2p-bandwidth",
        "ch4-transpose-p2p",
    ] {
        refuses(gpu, id, 0, None, &[], "--devices must be at least 1")?;
    }
    let t = "ch4-transpose-p2p";
    refuses(gpu, t, 3, Some(256), &[], "nx, ny must be multiples of nDevices")?;
    refuses(gpu, t, 2, Some(96), &[], "p2pTileDim* must be multiples of cudaTileDim")?;
    refuses(gpu, t, 2, Some(128), &["--ny", "99"], "nx, ny must be multiples")?;
    refuses(
        gpu,
        t,
        2,
        Some(128),
        &["--mode", "fast"],
        "invalid value 'fast' for '--mode",
    )?;
    refuses(gpu, t, 2, Some(128), &["--ny", "0"], "invalid value '0' for '--ny <N>'")
}
