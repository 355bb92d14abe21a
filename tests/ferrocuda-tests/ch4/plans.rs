//! The chapter's memory plans (issue 21): counted on the busiest memory, monotone in the size,
//! rounded to sizes the layouts take, refusing overflow; and the bench's `--size-mib` check.
use crate::common::{TestResult, ensure};
use ferrocuda::footprint::{Capacity, Footprint};
use ferrocuda::gpu::Gpu;
use ferrocuda_book::example::Options;
use ferrocuda_book::examples::ch4::{DevicePlan, direct_transfer, p2p_bandwidth, transpose_mpi, transpose_p2p};

fn with_devices(n: &str) -> Options {
    Options::default().with_flag("--devices", Some(n))
}

type Plan = fn(&Options, &Gpu, usize) -> Option<Footprint>;

/// Every plan grows with the size, refuses overflow, and leaves a refused `--devices` to the run.
pub fn ch4_memory_plans_monotone() -> TestResult {
    let gpu = Gpu::simulator();
    let plans: [(&str, Plan); 4] = [
        ("ch4-direct-transfer", direct_transfer::memory),
        ("ch4-p2p-bandwidth", p2p_bandwidth::memory),
        ("ch4-transpose-p2p", transpose_p2p::memory),
        ("ch4-transpose-mpi", transpose_mpi::memory),
    ];
    for (id, plan) in plans {
        for devices in ["1", "2", "3", "4"] {
            let options = with_devices(devices);
            let mut last = Footprint::NONE;
            for n in (1..5000).step_by(37) {
                let now = plan(&options, &gpu, n).ok_or_else(|| format!("{id}: no plan at {n}"))?;
                ensure(
                    now.device_bytes >= last.device_bytes && now.host_bytes >= last.host_bytes,
                    || format!("{id} --devices {devices}: the plan shrinks at {n}: {last:?} then {now:?}"),
                )?;
                last = now;
            }
            ensure(plan(&options, &gpu, usize::MAX).is_none(), || {
                format!("{id}: usize::MAX floats did not overflow the plan")
            })?;
        }
        for refused in ["0", "65", "two"] {
            if id != "ch4-transpose-mpi" {
                ensure(
                    plan(&with_devices(refused), &gpu, 1 << 40) == Some(Footprint::NONE),
                    || format!("{id}: --devices {refused} is the run's to refuse, not the plan's"),
                )?;
            }
        }
    }
    Ok(())
}

/// The figures: per device times the logical devices on the busiest memory (all of them on
/// simulators), and the transposes rounded up to the layout's multiple.
pub fn ch4_memory_plans_count_the_busiest_memory() -> TestResult {
    let gpu = Gpu::simulator();
    let options = with_devices("4");
    let devices = DevicePlan::of(&options, &gpu, 2).ok_or("no device plan for --devices 4")?;
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
    let p2p = p2p_bandwidth::memory(&options, &gpu, n).ok_or("no plan")?;
    ensure(
        p2p == Footprint {
            device_bytes: busiest * bytes,
            host_bytes: bytes,
        },
        || format!("ch4-p2p-bandwidth: {p2p:?}"),
    )?;
    let direct = direct_transfer::memory(&options, &gpu, n).ok_or("no plan")?;
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
    let transpose = transpose_p2p::memory(&options, &gpu, 1000).ok_or("no plan")?;
    ensure(transpose_p2p::memory(&options, &gpu, 1024) == Some(transpose), || {
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
    let rectangle =
        transpose_p2p::memory(&options.clone().with_flag("--ny", Some("512")), &gpu, 1024).ok_or("no plan")?;
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
