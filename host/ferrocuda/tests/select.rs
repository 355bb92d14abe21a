//! GPU-vs-CPU tests of stream compaction (`ferrocuda::select`): by flags, by range, and with a
//! predicate of a kernel crate's own, at the sizes that break a tiled design.
use ferrocuda_testing as common;

use common::probe::collective::{FlaggedOdd, ProbeSelectFlaggedOdd};
use common::{GpuTest, TestResult, ensure, fail};
use ferrocuda::Gpu;
use ferrocuda::scan::SCAN_TILE;
use ferrocuda::select::{self, Keep, Plan, Select};

use common::seeded_values as values;

const SIZES: [usize; 10] = common::tiled_sizes(SCAN_TILE);

/// Selects from `input` by flags (about one in `1 / density`) and by a range, with one plan
/// reused, against the CPU; the output is longer than the input, and what lies past the count
/// must be left as it was.
fn check_all<T: Select + std::fmt::Debug>(gpu: &Gpu, input: &[T], low: T, high: T, seed: u64) -> TestResult {
    let n = input.len();
    let input_d = gpu.upload(input).map_err(fail)?;
    let mut plan = Plan::new(gpu, n).map_err(fail)?;
    for density in [0, 1, 7, 100] {
        let flags: Vec<u8> = values(n, seed + density, 100)
            .into_iter()
            .map(|x| u8::from(x < density))
            .collect();
        let flags_d = gpu.upload(&flags).map_err(fail)?;
        for keep in [Keep::Flagged, Keep::Unflagged] {
            let sentinel = vec![high; n + 3];
            let mut out_d = gpu.upload(&sentinel).map_err(fail)?;
            plan.flagged(gpu, None, keep, &input_d, &flags_d, &mut out_d)
                .map_err(fail)?;
            let want: Vec<T> = input
                .iter()
                .zip(&flags)
                .filter(|(_, f)| (**f != 0) == (keep == Keep::Flagged))
                .map(|(x, _)| *x)
                .collect();
            compare(gpu, &plan, &out_d, &want, &sentinel, || {
                format!("{keep:?} ({density}%) {} of {n}", std::any::type_name::<T>())
            })?;
        }
    }
    let sentinel = vec![high; n];
    let mut out_d = gpu.upload(&sentinel).map_err(fail)?;
    plan.within(gpu, None, low, high, &input_d, &mut out_d).map_err(fail)?;
    let want: Vec<T> = input.iter().copied().filter(|x| low <= *x && *x <= high).collect();
    compare(gpu, &plan, &out_d, &want, &sentinel, || {
        format!("within {low:?}..={high:?}, {} of {n}", std::any::type_name::<T>())
    })
}

/// The plan's count and the output's head are `want`, the rest is `sentinel`'s.
fn compare<T: Select + std::fmt::Debug>(
    gpu: &Gpu,
    plan: &Plan,
    out_d: &ferrocuda::DeviceBuffer<T>,
    want: &[T],
    sentinel: &[T],
    what: impl Fn() -> String,
) -> TestResult {
    let count = plan.count(gpu).map_err(fail)?;
    ensure(count == want.len(), || {
        format!("{}: {count} kept, expected {}", what(), want.len())
    })?;
    let got = gpu.download(out_d).map_err(fail)?;
    let first_wrong = got[..count].iter().zip(want).position(|(g, w)| g != w);
    ensure(first_wrong.is_none(), || {
        let i = first_wrong.unwrap_or(0);
        format!("{}: kept element {i} is {:?}, expected {:?}", what(), got[i], want[i])
    })?;
    ensure(got[count..] == sentinel[count..], || {
        format!("{}: the output past the {count} kept elements changed", what())
    })
}

fn select_every_type_and_size(gpu: &Gpu) -> TestResult {
    for (k, &n) in SIZES.iter().enumerate() {
        let v = values(n, k as u64, 2001);
        let seed = 100 * k as u64;
        check_all(
            gpu,
            &v.iter().map(|&x| x as i32 - 1000).collect::<Vec<_>>(),
            -300,
            500,
            seed,
        )?;
        check_all(gpu, &v.iter().map(|&x| x as u32).collect::<Vec<_>>(), 0, 999, seed)?;
        check_all(
            gpu,
            &v.iter().map(|&x| x as f32 * 0.5).collect::<Vec<_>>(),
            10.0,
            20.0,
            seed,
        )?;
        check_all(
            gpu,
            &v.iter().map(|&x| x << 40).collect::<Vec<_>>(),
            5 << 40,
            1500 << 40,
            seed,
        )?;
        check_all(
            gpu,
            &v.iter().map(|&x| x as f64 - 1000.0).collect::<Vec<_>>(),
            -1e9,
            0.0,
            seed,
        )?;
    }
    Ok(())
}

/// The functions without a plan; a NaN is never in a range; a plan reused across sizes.
fn select_functions_and_nan(gpu: &Gpu) -> TestResult {
    let x = [1.0f32, f32::NAN, -2.0, 3.0, f32::NAN, f32::INFINITY];
    let x_d = gpu.upload(&x).map_err(fail)?;
    let mut out_d = gpu.zeros::<f32>(x.len()).map_err(fail)?;
    let n = select::within(gpu, &x_d, f32::NEG_INFINITY, f32::INFINITY, &mut out_d).map_err(fail)?;
    let got = gpu.download(&out_d).map_err(fail)?;
    ensure(got[..n] == [1.0, -2.0, 3.0, f32::INFINITY], || {
        format!("within the whole line, NaNs dropped: {:?}", &got[..n])
    })?;
    let flags_d = gpu.upload(&[0u8, 1, 0, 0, 1, 0]).map_err(fail)?;
    let n = select::flagged(gpu, &x_d, &flags_d, &mut out_d).map_err(fail)?;
    let got = gpu.download(&out_d).map_err(fail)?;
    ensure(n == 2 && got[..2].iter().all(|x| x.is_nan()), || {
        format!("flagged NaNs are kept: {:?}", &got[..n])
    })?;
    // A plan for 10^5 elements, then used on fewer, then on none: the count follows.
    let mut plan = Plan::new(gpu, 100_000).map_err(fail)?;
    for n in [100_000usize, 5, 0, 12_345] {
        let v: Vec<u32> = (0..n as u32).collect();
        let v_d = gpu.upload(&v).map_err(fail)?;
        let mut out_d = gpu.zeros::<u32>(n).map_err(fail)?;
        plan.within(gpu, None, 3, u32::MAX, &v_d, &mut out_d).map_err(fail)?;
        ensure(plan.count(gpu).map_err(fail)? == n.saturating_sub(3), || {
            format!("{n} values from 3 on: {} kept", plan.count(gpu).unwrap_or(usize::MAX))
        })?;
    }
    Ok(())
}

/// Buffers that do not fit are refused in a sentence, and nothing is written.
fn select_refuses_what_does_not_fit(gpu: &Gpu) -> TestResult {
    let x_d = gpu.upload(&[1u32, 2, 3, 4]).map_err(fail)?;
    let mut short_d = gpu.zeros::<u32>(3).map_err(fail)?;
    let mut out_d = gpu.zeros::<u32>(4).map_err(fail)?;
    let short_flags_d = gpu.upload(&[1u8, 1, 1]).map_err(fail)?;
    let mut small_plan = Plan::new(gpu, 3).map_err(fail)?;
    let cases = [
        (
            "a short output",
            select::within(gpu, &x_d, 0, 9, &mut short_d).map(|_| ()),
            "needs an output of at least 4, not 3",
        ),
        (
            "short flags",
            select::flagged(gpu, &x_d, &short_flags_d, &mut out_d).map(|_| ()),
            "needs 4 flags, not 3",
        ),
        (
            "a small plan",
            small_plan.within(gpu, None, 0, 9, &x_d, &mut out_d),
            "a selection plan for 3 elements cannot select from 4",
        ),
    ];
    for (what, result, says) in cases {
        ensure(result.as_ref().is_err_and(|e| e.to_string().contains(says)), || {
            format!("{what}: {result:?}, expected an error saying `{says}`")
        })?;
    }
    ensure(gpu.download(&out_d).map_err(fail)? == [0; 4], || {
        "a refused selection wrote".into()
    })
}

/// A selection with a predicate of a kernel crate's own (`probe_select_flagged_odd`), planned
/// with `Plan::select_with`, on a stream; and refused without flags.
fn select_with_a_users_predicate(gpu: &Gpu) -> TestResult {
    let probes = common::probes(gpu)?;
    let stream = gpu.new_stream().map_err(fail)?;
    for (k, &n) in SIZES.iter().enumerate() {
        let v: Vec<u32> = values(n, k as u64 + 7, 1 << 20).into_iter().map(|x| x as u32).collect();
        let flags: Vec<u8> = values(n, k as u64 + 70, 2).into_iter().map(|x| x as u8).collect();
        let (v_d, flags_d) = (gpu.upload(&v).map_err(fail)?, gpu.upload(&flags).map_err(fail)?);
        let mut out_d = gpu.zeros::<u32>(n).map_err(fail)?;
        let mut plan = Plan::new(gpu, n).map_err(fail)?;
        plan.select_with(
            &probes,
            Some(&stream),
            ProbeSelectFlaggedOdd,
            FlaggedOdd { modulus: 2 },
            &v_d,
            Some(&flags_d),
            &mut out_d,
        )
        .map_err(fail)?;
        gpu.synchronize_stream(&stream).map_err(fail)?;
        let want: Vec<u32> = v
            .iter()
            .zip(&flags)
            .filter(|(x, f)| **f != 0 && **x % 2 == 1)
            .map(|(x, _)| *x)
            .collect();
        let count = plan.count(gpu).map_err(fail)?;
        let got = gpu.download(&out_d).map_err(fail)?;
        ensure(count == want.len() && got[..count] == want[..], || {
            format!("odd and flagged of {n}: {count} kept, expected {}", want.len())
        })?;
        if n == 1 {
            let refused = plan.select_with(
                &probes,
                None,
                ProbeSelectFlaggedOdd,
                FlaggedOdd { modulus: 2 },
                &v_d,
                None,
                &mut out_d,
            );
            ensure(
                refused.as_ref().is_err_and(|e| e.to_string().contains("reads flags")),
                || format!("a flag-reading predicate without flags: {refused:?}"),
            )?;
        }
    }
    Ok(())
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("select_every_type_and_size", select_every_type_and_size),
        ("select_functions_and_nan", select_functions_and_nan),
        ("select_refuses_what_does_not_fit", select_refuses_what_does_not_fit),
        ("select_with_a_users_predicate", select_with_a_users_predicate),
    ];
    common::main(vec![], gpu_tests)
}
