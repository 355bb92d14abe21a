//! GPU-vs-CPU tests of the radix sort (`ferrocuda::sort`): every key type, both orders, keys
//! alone and with values (whose order shows whether the sort is stable), at the sizes that break
//! a tiled design.
use ferrocuda_testing as common;

use common::{GpuTest, TestResult, ensure, fail, seeded_values as values};
use ferrocuda::Gpu;
use ferrocuda::device::collective::grid::SORT_TILE;
use ferrocuda::sort::{self, Order, Plan, Sort};
use std::cmp::Ordering;

const SIZES: [usize; 10] = common::tiled_sizes(SORT_TILE);

/// A key the CPU orders as the sort does.
trait CpuKey: Sort + std::fmt::Debug {
    fn cpu_cmp(&self, other: &Self) -> Ordering;
    /// Bitwise equality (so that NaNs and -0 compare as the sort leaves them).
    fn same(&self, other: &Self) -> bool;
}
macro_rules! cpu_key {
    ($($t:ty: |$a:ident, $b:ident| $cmp:expr, |$x:ident| $bits:expr;)*) => {$(
        impl CpuKey for $t {
            fn cpu_cmp(&self, other: &Self) -> Ordering {
                let ($a, $b) = (self, other);
                $cmp
            }
            fn same(&self, other: &Self) -> bool {
                let bits = |$x: &Self| $bits;
                bits(self) == bits(other)
            }
        }
    )*};
}
cpu_key! {
    u32: |a, b| a.cmp(b), |x| *x as u64;
    i32: |a, b| a.cmp(b), |x| *x as u64;
    u64: |a, b| a.cmp(b), |x| *x;
    i64: |a, b| a.cmp(b), |x| *x as u64;
    f32: |a, b| a.total_cmp(b), |x| x.to_bits() as u64;
    f64: |a, b| a.total_cmp(b), |x| x.to_bits();
}

/// Sorts `keys` (with their indices as values) both ways, with one plan reused, against a stable
/// CPU sort.
fn check_all<K: CpuKey>(gpu: &Gpu, keys: &[K]) -> TestResult {
    let n = keys.len();
    let keys_d = gpu.upload(keys).map_err(fail)?;
    let indices: Vec<u32> = (0..n as u32).collect();
    let indices_d = gpu.upload(&indices).map_err(fail)?;
    let mut sorted_d = gpu.zeros::<K>(n).map_err(fail)?;
    let mut order_d = gpu.zeros::<u32>(n).map_err(fail)?;
    let mut plan = Plan::<K>::new(gpu, n).map_err(fail)?;
    for order in [Order::Ascending, Order::Descending] {
        let mut want = indices.clone();
        want.sort_by(|&i, &j| {
            let by_key = keys[i as usize].cpu_cmp(&keys[j as usize]);
            if order == Order::Ascending {
                by_key
            } else {
                by_key.reverse()
            }
        });
        let want_keys: Vec<K> = want.iter().map(|&i| keys[i as usize]).collect();
        let what = |pairs: bool| format!("{order:?} {} of {n} (pairs: {pairs})", std::any::type_name::<K>());
        plan.sort_keys(gpu, None, order, &keys_d, &mut sorted_d).map_err(fail)?;
        same_keys(&gpu.download(&sorted_d).map_err(fail)?, &want_keys, || what(false))?;
        plan.sort_pairs(gpu, None, order, &keys_d, &indices_d, &mut sorted_d, &mut order_d)
            .map_err(fail)?;
        same_keys(&gpu.download(&sorted_d).map_err(fail)?, &want_keys, || what(true))?;
        let got = gpu.download(&order_d).map_err(fail)?;
        let first_wrong = got.iter().zip(&want).position(|(g, w)| g != w);
        ensure(first_wrong.is_none(), || {
            let i = first_wrong.unwrap_or(0);
            format!(
                "{}: value {i} is {}, expected {} (stability)",
                what(true),
                got[i],
                want[i]
            )
        })?;
    }
    Ok(())
}

fn same_keys<K: CpuKey>(got: &[K], want: &[K], what: impl Fn() -> String) -> TestResult {
    let first_wrong = got.iter().zip(want).position(|(g, w)| !g.same(w));
    ensure(first_wrong.is_none(), || {
        let i = first_wrong.unwrap_or(0);
        format!("{}: key {i} is {:?}, expected {:?}", what(), got[i], want[i])
    })
}

/// Every size for `u32` keys; the simulator's time keeps the other types below a million keys.
fn sort_every_type_order_and_size(gpu: &Gpu) -> TestResult {
    for (k, &n) in SIZES.iter().enumerate() {
        if n > 200_000 {
            let v = values(n, k as u64, u64::MAX);
            check_all(gpu, &v.iter().map(|&x| x as u32).collect::<Vec<_>>())?;
            continue;
        }
        // Few distinct keys (so stability shows) for half the sizes, all bits for the others.
        let modulus = if k % 2 == 0 { 1000 } else { u64::MAX };
        let v = values(n, k as u64, modulus);
        let bits = |x: u64| x.wrapping_mul(0x9e37_79b9_7f4a_7c15);
        check_all(gpu, &v.iter().map(|&x| bits(x) as u32).collect::<Vec<_>>())?;
        check_all(gpu, &v.iter().map(|&x| bits(x) as i32).collect::<Vec<_>>())?;
        check_all(gpu, &v.iter().map(|&x| bits(x)).collect::<Vec<_>>())?;
        check_all(gpu, &v.iter().map(|&x| bits(x) as i64).collect::<Vec<_>>())?;
        check_all(gpu, &v.iter().map(|&x| (x % 2001) as f32 - 1000.5).collect::<Vec<_>>())?;
        check_all(gpu, &v.iter().map(|&x| (x % 2001) as f64 * -0.25).collect::<Vec<_>>())?;
    }
    Ok(())
}

/// Floats' special values sort as `total_cmp` orders them; the functions without a plan.
fn sort_floats_special_values_and_functions(gpu: &Gpu) -> TestResult {
    let keys = [
        1.0f32,
        f32::NAN,
        -0.0,
        f32::NEG_INFINITY,
        0.0,
        -f32::NAN,
        f32::INFINITY,
        -1.0,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE / 2.0,
    ];
    check_all(gpu, &keys)?;
    let keys_d = gpu.upload(&keys).map_err(fail)?;
    let mut out_d = gpu.zeros::<f32>(keys.len()).map_err(fail)?;
    sort::sort_keys_descending(gpu, &keys_d, &mut out_d).map_err(fail)?;
    let got = gpu.download(&out_d).map_err(fail)?;
    let mut want = keys.to_vec();
    want.sort_by(|a, b| b.total_cmp(a));
    same_keys(&got, &want, || "sort_keys_descending of the special values".into())?;
    let values_d = gpu.upload(&[9u32, 8, 7, 6, 5, 4, 3, 2, 1, 0]).map_err(fail)?;
    let mut moved_d = gpu.zeros::<u32>(keys.len()).map_err(fail)?;
    sort::sort_pairs(gpu, &keys_d, &values_d, &mut out_d, &mut moved_d).map_err(fail)?;
    let moved = gpu.download(&moved_d).map_err(fail)?;
    let mut by_key: Vec<usize> = (0..keys.len()).collect();
    by_key.sort_by(|&i, &j| keys[i].total_cmp(&keys[j]));
    let want: Vec<u32> = by_key.iter().map(|&i| 9 - i as u32).collect();
    ensure(moved == want, || {
        format!("sort_pairs moved the values to {moved:?}, not {want:?}")
    })
}

/// A plan reused on a stream for sizes below its capacity, then refusals in a sentence.
fn sort_plan_reuse_and_refusals(gpu: &Gpu) -> TestResult {
    let stream = gpu.new_stream().map_err(fail)?;
    let mut plan = Plan::<u32>::new(gpu, 50_000).map_err(fail)?;
    for n in [50_000usize, 7, 0, 12_345] {
        let keys: Vec<u32> = values(n, n as u64, 1 << 32).into_iter().map(|x| x as u32).collect();
        let keys_d = gpu.upload(&keys).map_err(fail)?;
        let mut out_d = gpu.zeros::<u32>(n).map_err(fail)?;
        plan.sort_keys(gpu, Some(&stream), Order::Ascending, &keys_d, &mut out_d)
            .map_err(fail)?;
        gpu.synchronize_stream(&stream).map_err(fail)?;
        let mut want = keys;
        want.sort();
        ensure(gpu.download(&out_d).map_err(fail)? == want, || {
            format!("{n} keys on a stream")
        })?;
    }
    let keys_d = gpu.upload(&[3u32, 1, 2]).map_err(fail)?;
    let mut short_d = gpu.zeros::<u32>(2).map_err(fail)?;
    let mut out_d = gpu.zeros::<u32>(3).map_err(fail)?;
    let values_d = gpu.upload(&[0u32, 1, 2]).map_err(fail)?;
    let mut short_values_d = gpu.zeros::<u32>(2).map_err(fail)?;
    let mut small = Plan::<u32>::new(gpu, 2).map_err(fail)?;
    let cases = [
        (
            "a short output",
            sort::sort_keys(gpu, &keys_d, &mut short_d),
            "needs an output of 3, not 2",
        ),
        (
            "short values",
            sort::sort_pairs(gpu, &keys_d, &values_d, &mut out_d, &mut short_values_d),
            "moves 3 values, not 3 into 2",
        ),
        (
            "a small plan",
            small.sort_keys(gpu, None, Order::Ascending, &keys_d, &mut out_d),
            "a sort plan for 2 keys cannot sort 3",
        ),
        (
            "too many keys",
            Plan::<u32>::new(gpu, 1 << 30).map(|_| ()),
            "at most 1073741823 keys",
        ),
    ];
    for (what, result, says) in cases {
        ensure(result.as_ref().is_err_and(|e| e.to_string().contains(says)), || {
            format!("{what}: {result:?}, expected an error saying `{says}`")
        })?;
    }
    ensure(gpu.download(&out_d).map_err(fail)? == [0; 3], || {
        "a refused sort wrote".into()
    })
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        ("sort_every_type_order_and_size", sort_every_type_order_and_size),
        (
            "sort_floats_special_values_and_functions",
            sort_floats_special_values_and_functions,
        ),
        ("sort_plan_reuse_and_refusals", sort_plan_reuse_and_refusals),
    ];
    common::main(vec![], gpu_tests)
}
