//! The multi-GPU solver (`thesis-sor-multi`): every decomposition, exchange strategy, border
//! width and overlap bit for bit against the one-GPU result, with several partitions per GPU;
//! the program, its refusals and its study. Included by `tests/ferrocuda-tests/thesis.rs`.
use super::*;
use ferrocuda_book::defaults::Pick;

/// The configurations the multi-GPU tests sweep.
pub fn configs(partitions: usize, decomposition: Decomposition, strategies: &[Strategy]) -> Vec<MultiConfig> {
    let mut all = Vec::new();
    for &strategy in strategies {
        for overlap in [false, true] {
            if overlap && !strategy.is_async() {
                continue;
            }
            for border in [1, 3] {
                for variant in [Variant::Split, Variant::Gm] {
                    all.push(MultiConfig {
                        decomposition,
                        partitions,
                        strategy,
                        overlap,
                        border,
                        variant,
                        iterations: 7,
                        omega: 1.9,
                    });
                }
            }
        }
    }
    all
}

fn multi_matches_one_gpu<T: SorReal>(
    gpu: &Gpu,
    rows: usize,
    cols: usize,
    partitions: usize,
    decomposition: Decomposition,
) -> TestResult {
    let configs = configs(partitions, decomposition, &Strategy::ALL);
    multi_matches_cpu::<T>(&[gpu], rows, cols, configs)
}

fn multi_matches_cpu<T: SorReal>(gpus: &[&Gpu], rows: usize, cols: usize, configs: Vec<MultiConfig>) -> TestResult {
    let initial: Vec<T> = Problem::Harmonic.initial(rows, cols).map_err(fail)?;
    let expected = cpu(&initial, rows, cols, 1.9, 7)?;
    for config in configs {
        let solution = multi::solve(gpus, &initial, rows, cols, config).map_err(fail)?;
        same(&format!("{rows}x{cols} {config:?}"), &solution.grid, &expected)?;
    }
    Ok(())
}

pub fn thesis_sor_multi_strips_match_one_gpu(gpu: &Gpu) -> TestResult {
    multi_matches_one_gpu::<f32>(gpu, 61, 37, 2, Decomposition::Strips)?;
    multi_matches_one_gpu::<f64>(gpu, 53, 40, 4, Decomposition::Strips)
}

pub fn thesis_sor_multi_blocks_match_one_gpu(gpu: &Gpu) -> TestResult {
    multi_matches_one_gpu::<f32>(gpu, 41, 47, 4, Decomposition::Blocks)?;
    multi_matches_one_gpu::<f64>(gpu, 40, 44, 4, Decomposition::Blocks)
}

pub fn thesis_sor_multi_refuses_bad_input(gpu: &Gpu) -> TestResult {
    let gpus = [gpu];
    let initial = vec![0.0f32; 20 * 20];
    let base = configs(2, Decomposition::Strips, &Strategy::ALL)[0];
    let bad = [
        MultiConfig {
            border: 8,
            iterations: 4,
            ..base
        },
        MultiConfig {
            partitions: 3,
            decomposition: Decomposition::Blocks,
            ..base
        },
        MultiConfig { partitions: 12, ..base },
        MultiConfig { partitions: 0, ..base },
    ];
    for config in bad {
        ensure(multi::solve(&gpus, &initial, 20, 20, config).is_err(), || {
            format!("{config:?} was accepted")
        })?;
    }
    Ok(())
}

pub fn thesis_sor_multi_nccl_refuses_partitions_sharing_a_gpu(gpu: &Gpu) -> TestResult {
    ensure(
        "d".parse::<Strategy>().ok() == Some(Strategy::Nccl) && Strategy::Nccl.to_string() == "nccl",
        || "`d` does not parse as the NCCL exchange, or it does not print as `nccl`".into(),
    )?;
    let initial = vec![0.0f32; 20 * 20];
    for config in configs(2, Decomposition::Strips, &[Strategy::Nccl]) {
        ensure(multi::solve(&[gpu], &initial, 20, 20, config).is_err(), || {
            format!("{config:?} was accepted with two partitions on one GPU")
        })?;
    }
    let args = ["--exchange", "nccl", "--partitions", "2"];
    ensure(common::run_args(gpu, "thesis-sor-multi", &args).is_err(), || {
        "--exchange nccl --partitions 2 was accepted on one GPU".into()
    })
}

/// Every strategy, NCCL included, over two GPUs: one partition per GPU, then two per GPU.
pub fn thesis_sor_multi_strips_on_two_gpus(gpus: &[&Gpu]) -> TestResult {
    let all = [
        Strategy::HostSync,
        Strategy::PinnedAsync,
        Strategy::Peer,
        Strategy::Nccl,
    ];
    let two = &gpus[..2];
    multi_matches_cpu::<f32>(two, 61, 37, configs(2, Decomposition::Strips, &all))?;
    multi_matches_cpu::<f64>(two, 53, 40, configs(2, Decomposition::Strips, &all))?;
    multi_matches_cpu::<f32>(two, 61, 37, configs(4, Decomposition::Strips, &Strategy::ALL))
}

/// Strips and 2 x 2 blocks over four GPUs, every strategy.
pub fn thesis_sor_multi_on_four_gpus(gpus: &[&Gpu]) -> TestResult {
    let all = [
        Strategy::HostSync,
        Strategy::PinnedAsync,
        Strategy::Peer,
        Strategy::Nccl,
    ];
    let four = &gpus[..4];
    multi_matches_cpu::<f32>(four, 61, 37, configs(4, Decomposition::Strips, &all))?;
    multi_matches_cpu::<f64>(four, 41, 47, configs(4, Decomposition::Blocks, &all))
}

pub fn thesis_sor_multi_program(gpu: &Gpu) -> TestResult {
    let size = gpu.pick(1030, 70).to_string();
    let passes = |decomposition: &str, partitions: &str, extra: &[&str]| {
        let mut args = vec!["--size", &size, "--rows", "77", "--iterations", "12", "--border", "2"];
        args.extend(["--decomposition", decomposition, "--partitions", partitions]);
        args.extend(extra);
        common::passes_with(gpu, "thesis-sor-multi", &args)
    };
    passes("strips", "3", &[])?;
    passes("blocks", "4", &["--kernel", "lintex"])?;
    // Two partitions sharing the one device listed.
    passes("strips", "2", &["--devices", "0"])
}

pub fn thesis_sor_multi_refuses_bad_options(gpu: &Gpu) -> TestResult {
    for (flag, value) in [
        ("--devices", "99"),
        ("--devices", "0,0"),
        ("--devices", "0,x"),
        ("--devices", ""),
        ("--overlap", "maybe"),
        ("--exchange", "carrier-pigeon"),
        ("--iterations", "tol=1e-3"),
    ] {
        ensure(
            common::run_args(gpu, "thesis-sor-multi", &[flag, value]).is_err(),
            || format!("{flag} {value} was accepted"),
        )?;
    }
    // A device listed twice is refused in one sentence that says so: each is opened once.
    refused(
        "--devices 0,0",
        first_line(common::run_args(gpu, "thesis-sor-multi", &["--devices", "0,0"])).map(|_| ()),
        "--devices names device 0 twice",
    )
}

/// `--study` on the simulator (whose sides are small; on a GPU the study runs for minutes, so
/// this test always runs it on a simulator): every experiment runs, with two attempts so the
/// medians and MADs are taken, and every grid of each experiment equals its one-GPU grid.
pub fn thesis_sor_multi_study_on_the_simulator() -> TestResult {
    let simulator = Gpu::simulator();
    let study = |extra: &[&str]| {
        let mut args = vec!["--study", "--iterations", "6"];
        args.extend(extra);
        common::run_args(&simulator, "thesis-sor-multi", &args)
    };
    let outcome = study(&["--attempts", "2"]).map_err(fail)?;
    for experiment in [
        "strong-scaling",
        "Shape0 and Shape2",
        "gm and lintex",
        "weak-scaling",
        "border-width",
    ] {
        ensure(outcome.checks.iter().any(|c| c.what.contains(experiment)), || {
            format!("no check of the {experiment} experiment")
        })?;
    }
    let failed: Vec<String> = outcome
        .checks
        .iter()
        .filter(|c| !c.passed())
        .map(|c| c.to_string())
        .collect();
    ensure(failed.is_empty(), || failed.join("; "))?;
    for bad in [
        &["--attempts", "0"][..],
        &["--attempts", "2", "--sides", "66,4"],
        &["--attempts", "2", "--sides", "x"],
    ] {
        ensure(study(bad).is_err(), || format!("{bad:?} was accepted"))?;
    }
    // Sides of its own: the largest sets the shape and blocks experiments.
    let outcome = study(&["--sides", "34,50", "--attempts", "1"]).map_err(fail)?;
    ensure(outcome.checks.iter().all(|c| c.passed()), || {
        "--sides 34,50 failed a check".into()
    })
}
