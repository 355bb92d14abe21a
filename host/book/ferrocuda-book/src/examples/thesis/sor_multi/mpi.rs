//! `thesis-sor-multi --exchange mpi` (cargo feature `mpi`): the same solve with one partition
//! per MPI process (thesis §5.5 with the book's MPI, §4.2, in place of host threads), started by
//! `mpirun -np P`. Each rank takes its device from `Mpi::assign_device`; rank 0 gathers the grid
//! and every rank's times, prints the thesis's lines, and checks the grid bit for bit against the
//! one-GPU solver on its own device.
use super::{
    MultiReal, MultiSetup, ThesisSorMultiOptions, print_header, print_one_gpu_row, print_row, print_thread_lines,
};
use crate::defaults::Pick;
use crate::example::Outcome;
use crate::examples::thesis::sor_setup::compare;
use ferrocuda::gpu::{BackendChoice, Error, Gpu, Result};
use ferrocuda::mpi::Mpi;
use ferrocuda::sor::exchange::Strategy;
use ferrocuda::sor::mpi::check_partitions;
use ferrocuda::sor::multi::solve_mpi;
use ferrocuda::sor::single::solve_iterations;
use ferrocuda::verify::Check;

/// Runs this rank's part; the runner's `gpu` only says whether the ranks run on the simulator
/// (each rank opens its own device). An error in any rank ends the whole job, naming the rank.
pub(super) fn run<T: MultiReal>(gpu: &Gpu, setup: &MultiSetup, args: &ThesisSorMultiOptions) -> Result<Outcome> {
    if args.study {
        return Err(Error::InvalidArgument(
            "--study runs the exchanges between threads of one process; --exchange mpi runs one configuration per mpirun".into(),
        ));
    }
    if args.devices.is_some() {
        return Err(Error::InvalidArgument(
            "--devices does not apply with --exchange mpi: each rank takes the device of its rank on its node".into(),
        ));
    }
    let mpi = Mpi::init()?;
    let result = run_rank::<T>(&mpi, gpu, setup, args.partitions);
    mpi.finish(result).map(|checks| Outcome { checks })
}

fn run_rank<T: MultiReal>(mpi: &Mpi, gpu: &Gpu, setup: &MultiSetup, partitions: Option<usize>) -> Result<Vec<Check>> {
    let (gpu, placement) = mpi.assign_device(gpu.pick(BackendChoice::Cuda, BackendChoice::Sim))?;
    // `--partitions` must name the ranks; by default it is them.
    let partitions = partitions.unwrap_or(mpi.size());
    check_partitions(partitions, mpi.size())?;
    if let Some(lines) = mpi.gather_text(&format!(" {placement}")) {
        lines.iter().for_each(|line| println!("{line}"));
    }
    let checks = run_typed::<T>(mpi, &gpu, setup, partitions)?;
    // Rank 0 holds the checks; every rank's exit code says whether they passed.
    let passed = mpi.all_true(checks.iter().all(Check::passed));
    Ok(match mpi.rank() {
        0 => checks,
        rank => vec![Check::condition(
            &format!("rank {rank}: rank 0's checks of the job passed"),
            passed,
        )],
    })
}

fn run_typed<T: MultiReal>(mpi: &Mpi, gpu: &Gpu, setup: &MultiSetup, partitions: usize) -> Result<Vec<Check>> {
    let (rows, cols, iterations) = (setup.base.rows, setup.base.cols, setup.iterations);
    let omega = setup.base.omega.value(cols);
    let initial: Vec<T> = setup.base.problem.initial(rows, cols)?;
    let root = mpi.rank() == 0;
    if root {
        println!(
            " {rows} x {cols} {}, {} problem, omega = {omega:.6}, {iterations} iterations, {} over {partitions} partition(s), one per MPI rank ({} rank(s)), border {} (ghosts {} deep)",
            T::NAME,
            setup.base.problem,
            setup.decomposition,
            mpi.size(),
            setup.border,
            2 * setup.border
        );
        print_header();
    }
    let mut checks = Vec::new();
    let mut csv = Vec::new();
    let mut cpu: Option<Option<Vec<T>>> = None;
    for &variant in &setup.base.variants {
        let config = setup.config(variant, Strategy::Mpi, partitions);
        let Some(solution) = solve_mpi(mpi, gpu, &initial, rows, cols, config)? else {
            continue;
        };
        // Rank 0 only, once the ranks are done: the one-GPU grid, and the CPU's where it takes
        // seconds.
        let one = solve_iterations(gpu, variant, &initial, rows, cols, omega, iterations)?;
        if cpu.is_none() {
            cpu = Some(setup.cpu_reference(&initial)?);
        }
        if let Some(Some(cpu)) = &cpu {
            checks.push(compare(&format!("{variant}, one GPU vs CPU"), &one.grid, cpu));
        }
        let one_ms = one.elapsed_ms / iterations.max(1) as f64;
        print_one_gpu_row(variant, one_ms);
        csv.push(print_row(&config, &solution, (rows, cols), one_ms));
        print_thread_lines(&[], &solution, iterations);
        println!(
            "   beyond the loop: {:.3} ms (ET - the slowest rank's loop: uploads, pinned buffers, barriers, the grid and the times gathered on rank 0)",
            (solution.elapsed.saturating_sub(solution.loop_time)).as_secs_f64() * 1e3
        );
        checks.push(compare(
            &format!(
                "{variant}, mpi exchange, {} over {partitions} ranks vs one GPU",
                setup.decomposition
            ),
            &solution.grid,
            &one.grid,
        ));
    }
    if root {
        println!(" M;N;Border_Size;MKT[ms];MST[ms];MTT[ms];MCT[ms];Elapsed Time[s]");
        for line in csv {
            println!(" {line}");
        }
    }
    Ok(checks)
}
