//! Tests of thesis-comm-model (thesis §5.3, §6.3.1, Table 6.4): the fits recover known
//! parameters from synthetic data, the exchange plans have the thesis's shapes, the analytic
//! comparisons agree with their formulas, and the example passes on the available backend.
mod common;

use common::{CpuTest, GpuTest, TestResult, ensure, fail};
use ferrocuda::measure::{LinearFit, PowerFit, mean_relative_error};
use ferrocuda::{Error, Gpu};
use ferrocuda_book::examples::thesis::comm_model::{
    RowModel, block_thresholds, busiest_exchange, held_out_rows, thesis_exchange_ms,
};

/// Relative error allowed on parameters fitted to exact synthetic data: only rounding remains.
const FIT_TOLERANCE: f64 = 1e-9;

fn close(got: f64, want: f64) -> TestResult {
    ensure((got - want).abs() <= FIT_TOLERANCE * want.abs(), || {
        format!("fitted {got:e}, expected {want:e}")
    })
}

fn thesis_comm_model_fits_recover_known_parameters() -> TestResult {
    let sizes: Vec<f64> = (0..8).map(|i| 1e3 * 10f64.powf(i as f64 * 0.7)).collect();
    let linear = LinearFit {
        t_startup_ms: 0.012,
        t_word_ms: 8e-8,
    };
    let points: Vec<(f64, f64)> = sizes.iter().map(|&n| (n, linear.predict(n))).collect();
    let fit = LinearFit::fit(&points);
    close(fit.t_startup_ms, 0.012)?;
    close(fit.t_word_ms, 8e-8)?;
    ensure(mean_relative_error(|n| fit.predict(n), &points) < FIT_TOLERANCE, || {
        "linear error".into()
    })?;

    let power = PowerFit { a: 3e-4, b: 0.99 };
    let points: Vec<(f64, f64)> = sizes.iter().map(|&n| (n, power.predict(n))).collect();
    let fit = PowerFit::fit(&points);
    close(fit.a, 3e-4)?;
    close(fit.b, 0.99)?;

    let strided: Vec<(usize, usize, f64)> = [1, 4, 16, 64, 256]
        .map(|k| (k, 5, 0.012 + k as f64 * (2e-3 + 5.0 * 8e-8)))
        .to_vec();
    let rows = RowModel::fit(linear, &strided);
    close(rows.t_row_ms, 2e-3)?;
    close(rows.predict(5792, 5), 0.012 + 5792.0 * (2e-3 + 5.0 * 8e-8))
}

fn thesis_comm_model_fits_of_noisy_data_stay_close() -> TestResult {
    // +-5% alternating noise around t = 0.01 + 1e-7 n: the relative weights keep t_startup.
    let points: Vec<(f64, f64)> = (0..10)
        .map(|i| {
            let n = 10f64.powi(i);
            (n, (0.01 + 1e-7 * n) * if i % 2 == 0 { 1.05 } else { 0.95 })
        })
        .collect();
    let fit = LinearFit::fit(&points);
    ensure((fit.t_startup_ms / 0.01 - 1.0).abs() < 0.1, || format!("{fit:?}"))?;
    ensure((fit.t_word_ms / 1e-7 - 1.0).abs() < 0.1, || format!("{fit:?}"))
}

fn thesis_comm_model_exchange_shapes() -> TestResult {
    let (n, d) = (4096, 2);
    let end = busiest_exchange(n, 2, false, d);
    ensure(
        end.borders == vec![(((n / 2 - d, 0), d, n), ((n / 2, 0), d, n))],
        || format!("{end:?}"),
    )?;
    let middle = busiest_exchange(n, 4, false, d);
    ensure(middle.rows == n / 4 + 2 * d && middle.borders.len() == 2, || {
        format!("{middle:?}")
    })?;
    let block = busiest_exchange(n, 4, true, d);
    let [(vertical, _), (horizontal, ghost)] = [block.borders[0], block.borders[1]];
    ensure(vertical.1 == d && vertical.2 == n / 2, || {
        format!("vertical {vertical:?}")
    })?;
    ensure(horizontal.1 == n / 2 + d && horizontal.2 == d, || {
        format!("horizontal {horizontal:?}")
    })?;
    for e in [&end, &middle, &block] {
        for &(sent, ghost) in &e.borders {
            for ((row, col), rows, width) in [sent, ghost] {
                ensure(row + rows <= e.rows && col + width <= e.cols, || {
                    format!("{e:?} overflows")
                })?;
            }
        }
    }
    ensure(ghost.0 == (0, n / 2), || format!("ghost {ghost:?}"))
}

fn thesis_comm_model_analytic_comparisons() -> TestResult {
    // The thesis's parameters, 3.3 us and 15.6 us: blocks beat middle strips (its §5.3).
    let (ts, tw) = (3.3e-3, 15.6e-3);
    for (n, k) in [(11585.0, 1.0), (4096.0, 5.0), (100.0, 20.0)] {
        let [end, mid, block] = thesis_exchange_ms(n, k, ts, tw);
        let [t_end, t_mid] = block_thresholds(n, k, tw);
        ensure((block > end) == (ts > t_end), || format!("(5.5) at n {n}, k {k}"))?;
        ensure((block > mid) == (ts > t_mid), || format!("(5.6) at n {n}, k {k}"))?;
        ensure(block < mid && block > end, || {
            format!("n {n}: end {end}, mid {mid}, block {block}")
        })?;
    }
    let rows = held_out_rows(11585).map_err(fail)?;
    ensure(rows.iter().all(|&k| (1..=11585).contains(&k)), || format!("{rows:?}"))?;
    ensure(rows == held_out_rows(11585).map_err(fail)?, || {
        "held-out sizes are not seeded".into()
    })
}

fn thesis_comm_model_program(gpu: &Gpu) -> TestResult {
    // 2048 rows of 2048: large enough that the widest copies are bandwidth-bound on a GPU.
    common::passes_with(gpu, "thesis-comm-model", &["--size", "2048", "--reps", "3"])
}

fn thesis_comm_model_rejects_ghost_zero(gpu: &Gpu) -> TestResult {
    match common::run_args(gpu, "thesis-comm-model", &["--ghost", "0"]) {
        Err(Error::InvalidArgument(message)) => ensure(message.contains("--ghost"), || message),
        other => Err(format!(
            "expected a refusal of --ghost 0, got {:?}",
            other.map(|o| o.passed())
        )),
    }
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        (
            "thesis_comm_model_fits_recover_known_parameters",
            thesis_comm_model_fits_recover_known_parameters,
        ),
        (
            "thesis_comm_model_fits_of_noisy_data_stay_close",
            thesis_comm_model_fits_of_noisy_data_stay_close,
        ),
        ("thesis_comm_model_exchange_shapes", thesis_comm_model_exchange_shapes),
        (
            "thesis_comm_model_analytic_comparisons",
            thesis_comm_model_analytic_comparisons,
        ),
    ];
    let gpu_tests: Vec<GpuTest> = vec![
        ("thesis_comm_model_program", thesis_comm_model_program),
        (
            "thesis_comm_model_rejects_ghost_zero",
            thesis_comm_model_rejects_ghost_zero,
        ),
    ];
    common::main(cpu_tests, gpu_tests)
}
