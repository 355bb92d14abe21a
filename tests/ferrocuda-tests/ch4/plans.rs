//! The chapter's memory plans (issue 21): counted on the busiest memory, monotone in the size,
//! rounded to sizes the layouts take, refusing overflow; and the bench's `--size-mib` check.
use crate::common::{TestResult, ensure, fail};
use ferrocuda::footprint::{Capacity, Footprint};
use ferrocuda::gpu::Gpu;
use ferrocuda_book::entry::Shared;
use ferrocuda_book::example::Precision;
use ferrocuda_book::examples::ch4::DevicesOption;

/// The memory plan of `id` at size `n` with the command line `args`, as the runner makes it; an
/// error when the command line is refused.
fn plan(gpu: &Gpu, id: &str, args: &[&str], n: usize) -> Result<Option<Footprint>, String> {
    let example = ferrocuda_book::registry::find(id).ok_or(format!("no example {id}"))?;
    let matches = ferrocuda_book::cli::command(example)
        .try_get_matches_from(args)
        .map_err(|e| e.to_string())?;
    let shared = Shared {
        size: Some(n),
        precision: Precision::F32,
        reps: 1,
    };
    example.memory(gpu, &shared, n, &matches).map_err(fail)
}

/// Every plan grows with the size and refuses overflow; a bad `--devices` is refused by the
/// command line before any plan.
pub fn ch4_memory_plans_monotone() -> TestResult {
    let gpu = Gpu::simulator();
    for id in [
        "ch4-direct-transfer",
        "ch4-p2p-bandwidth",
        "ch4-transpose-p2p",
        "ch4-transpose-mpi",
    ] {
        for devices in ["1", "2", "3", "4"] {
            // The MPI transpose runs one device per rank: it has no `--devices`.
            let args: &[&str] = match id {
                "ch4-transpose-mpi" => &[],
                _ => &["--devices", devices],
            };
            let mut last = Footprint::NONE;
            for n in (1..5000).step_by(37) {
                let now = plan(&gpu, id, args, n)?.ok_or_else(|| format!("{id}: no plan at {n}"))?;
                ensure(
                    now.device_bytes >= last.device_bytes && now.host_bytes >= last.host_bytes,
                    || format!("{id} --devices {devices}: the plan shrinks at {n}: {last:?} then {now:?}"),
                )?;
                last = now;
            }
            ensure(plan(&gpu, id, args, usize::MAX)?.is_none(), || {
                format!("{id}: usize::MAX floats did not overflow the plan")
            })?;
        }
        for refused in ["0", "65", "two"] {
            if id != "ch4-transpose-mpi" {
                ensure(plan(&gpu, id, &["--devices", refused], 1 << 40).is_err(), || {
                    format!("{id}: --devices {refused} was not refused by the command line")
                })?;
            }
        }
    }
    Ok(())
}

/// The figures: per device times the logical devices on the busiest memory (all of them on
/// simulators), and the transposes rounded up to the layout's multiple.
pub fn ch4_memory_plans_count_the_busiest_memory() -> TestResult {
    let gpu = Gpu::simulator();
    let four = ["--devices", "4"];
    let devices = DevicesOption { devices: Some(4) }.plan(&gpu, 2);
    let busiest = devices.busiest(4) as u64;
    let expected = match devices.physical {
        0 => 4,
        gpus => 4u64.div_ceil(gpus as u64),
    };
    ensure(busiest == expected, || {
        format!("busiest {busiest}, expected {expected}")
    })?;
    let n = 1000usize;
    let bytes = 4 * n as u64;
    let p2p = plan(&gpu, "ch4-p2p-bandwidth", &four, n)?.ok_or("no plan")?;
    ensure(
        p2p == Footprint {
            device_bytes: busiest * bytes,
            host_bytes: bytes,
        },
        || format!("ch4-p2p-bandwidth: {p2p:?}"),
    )?;
    let direct = plan(&gpu, "ch4-direct-transfer", &four, n)?.ok_or("no plan")?;
    let pair = devices.busiest(2) as u64;
    ensure(
        direct
            == Footprint {
                device_bytes: pair * bytes,
                host_bytes: 2 * bytes,
            },
        || format!("ch4-direct-transfer: {direct:?}"),
    )?;
    // 4 devices: nx = ny rounded up to a multiple of 128, so 1000 plans as 1024.
    let transpose = plan(&gpu, "ch4-transpose-p2p", &four, 1000)?.ok_or("no plan")?;
    ensure(plan(&gpu, "ch4-transpose-p2p", &four, 1024)? == Some(transpose), || {
        "--size 1000 is not planned as the 1024 the layout needs".to_string()
    })?;
    let (whole, slab) = (4 * 1024 * 1024u64, 1024 * 1024u64);
    let expected = Footprint {
        device_bytes: 3 * busiest * slab + 2 * whole,
        host_bytes: 3 * whole + slab,
    };
    ensure(transpose == expected, || {
        format!("ch4-transpose-p2p: {transpose:?}, expected {expected:?}")
    })?;
    let rectangle = plan(&gpu, "ch4-transpose-p2p", &["--devices", "4", "--ny", "512"], 1024)?.ok_or("no plan")?;
    ensure(rectangle.host_bytes == (3 * whole + slab) / 2, || {
        format!("--ny 512 is not half the square's host bytes: {rectangle:?}")
    })
}

/// `--size-mib` against a machine's capacity: three arrays of it at once, refused in one
/// sentence naming the largest value that fits.
pub fn bench_size_mib_checked() -> TestResult {
    use ferrocuda_book::bench::Settings;
    let capacity = Capacity {
        device_bytes: 1 << 30,
        host_bytes: 2 << 30,
        unified: false,
    };
    let settings = |mib| Settings {
        working_set_mib: mib,
        ..Settings::default()
    };
    settings(341)
        .check_memory(&capacity)
        .map_err(|e| format!("341 MiB refused: {e}"))?;
    let refused = settings(512)
        .check_memory(&capacity)
        .err()
        .ok_or("512 MiB x 3 > 1 GiB was accepted")?;
    let text = refused.to_string();
    ensure(
        text.contains("--size-mib 512")
            && text.contains("1.5 GiB")
            && text.contains("the largest --size-mib that fits is 341"),
        || format!("not the sentence expected: {text}"),
    )?;
    let huge = settings(usize::MAX)
        .check_memory(&capacity)
        .err()
        .ok_or("usize::MAX MiB was accepted")?;
    ensure(huge.to_string().contains("64-bit"), || {
        format!("overflow not said: {huge}")
    })?;
    ensure(settings(usize::MAX).elements::<f32>().is_err(), || {
        "elements() overflowed silently".to_string()
    })
}
