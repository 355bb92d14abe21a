//! racecheck-gallery: the simulator's race detectors flag each racy kernel of the gallery with
//! the report its race calls for, pass each correct twin, can be switched off, and leave the
//! book's lock (ch5-pi-reduction-atomiclock) and the library's look-backs alone. Runs on the simulator everywhere; on a GPU the
//! reference is `compute-sanitizer --tool racecheck` over `cargo xtask run racecheck-gallery`.
mod common;

use common::{CpuTest, TestResult, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda::sim::{Checks, with_checks};
use ferrocuda_book::examples::racecheck::gallery::{CASES, Case, simulator_report};

/// The gallery's case whose racy kernel is `racy`.
fn case(racy: &str) -> Result<&'static Case, String> {
    CASES.iter().find(|c| c.racy == racy).ok_or(format!("no case {racy}"))
}

/// The racy kernel is reported with both threads, the bytes and both source lines; the twin
/// runs clean and right.
fn flagged_and_twin_clean(racy: &str) -> TestResult {
    let case = case(racy)?;
    let sim = Gpu::simulator();
    let fault = simulator_report(&sim, case)?;
    let text = fault.to_string();
    let threads_named = text.matches("thread (").count() >= 2;
    let shared = !text.contains("global-memory");
    ensure(
        fault.kernel == case.racy
            && text.contains(case.report)
            && threads_named
            && text.contains("race on bytes")
            && (!shared || text.matches("gallery.rs:").count() >= 2),
        || format!("unexpected report: {text}"),
    )?;
    let (out, expected) = with_checks(Checks::ALL, || (case.launch)(&sim, false)).map_err(fail)?;
    ensure(out == expected, || {
        format!("{}: {out:?}, expected {expected:?}", case.twin)
    })
}

fn racecheck_gallery_tile_shift() -> TestResult {
    flagged_and_twin_clean("tile_shift_racy")
}

fn racecheck_gallery_tree_sum() -> TestResult {
    flagged_and_twin_clean("tree_sum_racy")
}

fn racecheck_gallery_warp_tail_sum() -> TestResult {
    flagged_and_twin_clean("warp_tail_sum_racy")
}

fn racecheck_gallery_transpose_tiles() -> TestResult {
    flagged_and_twin_clean("transpose_tiles_racy")
}

fn racecheck_gallery_global_cell() -> TestResult {
    flagged_and_twin_clean("global_cell_racy")
}

/// The runner's id passes on the simulator: every report seen, every twin right.
fn racecheck_gallery_program() -> TestResult {
    passes_with(&Gpu::simulator(), "racecheck-gallery", &[])
}

/// With the checks off, the racy kernels run to the end: the switch switches.
fn racecheck_gallery_checks_off() -> TestResult {
    let sim = Gpu::simulator();
    for racy in ["tile_shift_racy", "global_cell_racy"] {
        with_checks(Checks::NONE, || (case(racy)?.launch)(&sim, true).map_err(fail))?;
    }
    Ok(())
}

/// Without `FERROCUDA_SIM_CHECKS` and without `with_checks`, the shared-memory detector is on
/// and the global one off.
fn racecheck_gallery_default_checks() -> TestResult {
    if std::env::var_os("FERROCUDA_SIM_CHECKS").is_some() {
        return Ok(());
    }
    let sim = Gpu::simulator();
    let shared = (case("tree_sum_racy")?.launch)(&sim, true);
    let global = (case("global_cell_racy")?.launch)(&sim, true);
    ensure(
        ferrocuda::sim::default_checks() == Checks::DEFAULT && shared.is_err() && global.is_ok(),
        || format!("default checks: shared {shared:?}, global {global:?}"),
    )
}

fn racecheck_checks_parse() -> TestResult {
    let unknown = Checks::parse("race,globl-race");
    ensure(
        Checks::parse("race, global-race") == Ok(Checks::ALL)
            && Checks::parse("none") == Ok(Checks::NONE)
            && Checks::parse("race") == Ok(Checks::DEFAULT)
            && unknown.as_ref().is_err_and(|e| e.contains("`globl-race`")),
        || format!("parse: {unknown:?}"),
    )
}

/// The book's lock (an atomicCAS, a __threadfence, volatile accesses, a __threadfence and an
/// atomicExch) orders the blocks' updates of `partial[0]`: no global race is reported.
fn racecheck_atomic_lock_is_not_a_race() -> TestResult {
    let args = ["--size", "100003", "--reps", "1"];
    with_checks(Checks::ALL, || {
        passes_with(&Gpu::simulator(), "ch5-pi-reduction-atomiclock", &args)
    })
}

/// The library's look-backs (scan, select, sort), whose blocks publish and poll tile descriptors
/// with volatile accesses (relaxed atomics in PTX), are not races under every check, and their
/// results stay right.
fn racecheck_look_backs_are_not_races() -> TestResult {
    let sim = Gpu::simulator();
    let n = 40 * ferrocuda::scan::SCAN_TILE + 3;
    let values: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) >> 20).collect();
    with_checks(Checks::ALL, || {
        let input = sim.upload(&values).map_err(fail)?;
        let mut output = sim.zeros::<u32>(n).map_err(fail)?;
        ferrocuda::scan::inclusive_sum(&sim, &input, &mut output).map_err(fail)?;
        let sums = sim.download(&output).map_err(fail)?;
        ensure(sums[n - 1] == values.iter().sum::<u32>(), || "the scan's total".into())?;
        let kept = ferrocuda::select::within(&sim, &input, 0, 99, &mut output).map_err(fail)?;
        ensure(kept == values.iter().filter(|&&v| v <= 99).count(), || {
            "the selection's count".into()
        })?;
        ferrocuda::sort::sort_keys(&sim, &input, &mut output).map_err(fail)?;
        let mut sorted = values.clone();
        sorted.sort_unstable();
        ensure(sim.download(&output).map_err(fail)? == sorted, || "the sort".into())
    })
}

fn main() {
    let tests: Vec<CpuTest> = vec![
        ("racecheck_gallery_tile_shift", racecheck_gallery_tile_shift),
        ("racecheck_gallery_tree_sum", racecheck_gallery_tree_sum),
        ("racecheck_gallery_warp_tail_sum", racecheck_gallery_warp_tail_sum),
        ("racecheck_gallery_transpose_tiles", racecheck_gallery_transpose_tiles),
        ("racecheck_gallery_global_cell", racecheck_gallery_global_cell),
        ("racecheck_gallery_program", racecheck_gallery_program),
        ("racecheck_gallery_checks_off", racecheck_gallery_checks_off),
        ("racecheck_gallery_default_checks", racecheck_gallery_default_checks),
        ("racecheck_checks_parse", racecheck_checks_parse),
        (
            "racecheck_atomic_lock_is_not_a_race",
            racecheck_atomic_lock_is_not_a_race,
        ),
        ("racecheck_look_backs_are_not_races", racecheck_look_backs_are_not_races),
    ];
    common::main(tests, vec![])
}
