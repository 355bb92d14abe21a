//! The CUF kernel loops (book §3.7): `ferrocuda::cuf`'s shape arithmetic (the ceil of `<<<*,tPB>>>`,
//! the grid-stride counts of a fixed grid, the caps, bad chevrons refused), and the ids
//! ch3-cuf-increment, -increment-2d, -reduce, -streams and -ilp against the CPU at their defaults
//! and at sizes around the blocks.
mod common;

use common::{CpuTest, GpuTest, TestResult, ensure, fail, passes_with};
use ferrocuda::Gpu;
use ferrocuda::cuf::{AUTO_BLOCK_2D, AUTO_THREADS_PER_BLOCK, Dim, KernelLoop, MAX_GRID};
use ferrocuda::reduce::{Plan, THREADS_PER_BLOCK};
use ferrocuda_book::examples::ch3::cuf_increment::{self, Chevrons, TPB};
use ferrocuda_book::examples::ch3::{cuf_increment_2d, cuf_reduce};
use ferrocuda_book::reference::ch3::cuf as reference;

const IDS: [&str; 5] = [
    "ch3-cuf-increment",
    "ch3-cuf-increment-2d",
    "ch3-cuf-reduce",
    "ch3-cuf-streams",
    "ch3-cuf-ilp",
];

/// Sizes around the 256-thread block: 1, tPB - 1, tPB, tPB + 1, and a large non-multiple.
const SIZES: [usize; 6] = [1, 31, 255, 256, 257, 100_003];

fn loop_1d(n: usize, grid: Dim, block: Dim) -> Result<KernelLoop, String> {
    KernelLoop::new_1d(n, grid, block).map_err(fail)
}

/// `<<<*, tPB>>>` has `ceil(n / tPB)` blocks of tPB (at least one), one element per thread: the
/// book's 4096 x 256 for n = 1024^2.
fn ch3_cuf_shape_ceil() -> TestResult {
    let book = loop_1d(1 << 20, Dim::Auto, Dim::Fixed(256))?;
    ensure(
        book.shape().grid == (4096, 1, 1) && book.shape().block == (256, 1, 1),
        || format!("the book's loop: {book}"),
    )?;
    for (n, blocks, per_thread) in [
        (0, 1, 0),
        (1, 1, 1),
        (255, 1, 1),
        (256, 1, 1),
        (257, 2, 1),
        (1 << 20, 4096, 1),
    ] {
        let l = loop_1d(n, Dim::Auto, Dim::Fixed(256))?;
        ensure(
            l.shape().grid.0 == blocks && l.elements_per_thread() == per_thread,
            || format!("n = {n}: {l}, {} per thread", l.elements_per_thread()),
        )?;
    }
    let auto = loop_1d(1000, Dim::Auto, Dim::Auto)?;
    ensure(auto.shape().block.0 == AUTO_THREADS_PER_BLOCK, || {
        format!("<<<*,*>>>: {auto}")
    })
}

/// `<<<1024, tPB>>>` keeps its grid; each thread takes `ceil(n / (1024 tPB))` elements.
fn ch3_cuf_shape_grid_stride_counts() -> TestResult {
    for (n, per_thread) in [
        (1, 1),
        (1 << 18, 1),
        ((1 << 18) + 1, 2),
        (1 << 20, 4),
        ((1 << 20) + 1, 5),
    ] {
        let l = loop_1d(n, Dim::Fixed(1024), Dim::Fixed(256))?;
        ensure(
            l.shape().grid.0 == 1024 && l.elements_per_thread() == per_thread,
            || format!("n = {n}: {l}, {} per thread, not {per_thread}", l.elements_per_thread()),
        )?;
    }
    // 2-D: a 2 x 3 grid of 32 x 8 blocks over 100 x 50 strides 2 x 3 times (64 x 24 threads).
    let l =
        KernelLoop::new_2d(100, 50, (Dim::Fixed(2), Dim::Fixed(3)), (Dim::Fixed(32), Dim::Fixed(8))).map_err(fail)?;
    ensure(l.elements_per_thread() == 2 * 3, || {
        format!("{l}: {}", l.elements_per_thread())
    })
}

/// `(2) <<<(*,*), (32,8)>>>` covers nx x ny, non-multiples rounded up; `(*,*)` blocks are 32 x 8.
fn ch3_cuf_shape_2d() -> TestResult {
    for (nx, ny, grid) in [
        (4096, 4096, (128, 512)),
        (1, 1, (1, 1)),
        (33, 9, (2, 2)),
        (32, 8, (1, 1)),
        (0, 5, (1, 1)),
    ] {
        let l = cuf_increment_2d::kernel_loop(nx, ny).map_err(fail)?;
        ensure(
            (l.shape().grid.0, l.shape().grid.1) == grid && l.shape().block == (32, 8, 1),
            || format!("{nx} x {ny}: {l}"),
        )?;
    }
    let auto = KernelLoop::new_2d(100, 100, (Dim::Auto, Dim::Auto), (Dim::Auto, Dim::Auto)).map_err(fail)?;
    ensure((auto.shape().block.0, auto.shape().block.1) == AUTO_BLOCK_2D, || {
        format!("(*,*) block: {auto}")
    })
}

/// An automatic grid past CUDA's limits is capped there, and the threads stride over the rest:
/// no range is too large, and the counts do not overflow.
fn ch3_cuf_shape_capped() -> TestResult {
    let l = loop_1d(usize::MAX, Dim::Auto, Dim::Fixed(1))?;
    let threads = u64::from(MAX_GRID.0);
    ensure(
        l.shape().grid.0 == MAX_GRID.0 && l.elements_per_thread() as u64 == (usize::MAX as u64).div_ceil(threads),
        || format!("usize::MAX elements: {l}, {} per thread", l.elements_per_thread()),
    )?;
    let l = KernelLoop::new_2d(
        64,
        65535 * 8 + 1,
        (Dim::Auto, Dim::Auto),
        (Dim::Fixed(32), Dim::Fixed(8)),
    )
    .map_err(fail)?;
    ensure(l.shape().grid.1 == MAX_GRID.1 && l.elements_per_thread() == 2, || {
        format!("65535 x 8 + 1 rows: {l}, {} per thread", l.elements_per_thread())
    })
}

/// Bad chevrons are refused in a sentence: empty or oversized blocks (the 2-D product counted
/// without overflow), grids of 0 or past CUDA's limit.
fn ch3_cuf_shape_refused() -> TestResult {
    let f = Dim::Fixed;
    let cases: Vec<(&str, ferrocuda::Result<KernelLoop>)> = vec![
        ("block 0", KernelLoop::new_1d(10, Dim::Auto, f(0))),
        ("block 1025", KernelLoop::new_1d(10, Dim::Auto, f(1025))),
        ("grid 0", KernelLoop::new_1d(10, f(0), f(256))),
        ("grid 2^31", KernelLoop::new_1d(10, f(1 << 31), f(256))),
        (
            "block 64 x 32",
            KernelLoop::new_2d(10, 10, (Dim::Auto, Dim::Auto), (f(64), f(32))),
        ),
        (
            "block u32::MAX x u32::MAX",
            KernelLoop::new_2d(10, 10, (Dim::Auto, Dim::Auto), (f(u32::MAX), f(u32::MAX))),
        ),
        (
            "block y 0",
            KernelLoop::new_2d(10, 10, (Dim::Auto, Dim::Auto), (f(32), f(0))),
        ),
        (
            "grid y 65536",
            KernelLoop::new_2d(10, 10, (Dim::Auto, f(65536)), (f(32), f(8))),
        ),
    ];
    for (what, result) in cases {
        match result {
            Ok(l) => return Err(format!("{what}: accepted as {l}")),
            Err(e) => {
                let sentence = e.to_string();
                ensure(sentence.contains("CUDA") || sentence.contains("at least one"), || {
                    format!("{what}: `{sentence}` does not say why")
                })?;
            }
        }
    }
    Ok(())
}

fn ch3_cuf_memory_plans() -> TestResult {
    common::memory_plans_grow(&IDS)
}

/// Every id at its default size (the simulator's, without a GPU).
fn ch3_cuf_programs_at_default(gpu: &Gpu) -> TestResult {
    for id in IDS {
        passes_with(gpu, id, &["--reps", "1"]).map_err(|e| format!("{id}: {e}"))?;
    }
    Ok(())
}

/// Every id at sizes around the block (ch3-cuf-increment-2d: sides that are not multiples of
/// 32 or 8).
fn ch3_cuf_programs_at_awkward_sizes(gpu: &Gpu) -> TestResult {
    for id in IDS {
        let sizes: &[usize] = if id == "ch3-cuf-increment-2d" {
            &[1, 7, 31, 33, 257]
        } else {
            &SIZES
        };
        for &n in sizes {
            passes_with(gpu, id, &["--size", &n.to_string(), "--reps", "1"])
                .map_err(|e| format!("{id} --size {n}: {e}"))?;
        }
    }
    Ok(())
}

/// Each chevron form, and fixed grids smaller than the range (each thread strides over several
/// elements), against the CPU.
fn ch3_cuf_increment_every_shape_matches_cpu(gpu: &Gpu) -> TestResult {
    let f = Dim::Fixed;
    for n in SIZES {
        let a = cuf_increment::input(n).map_err(fail)?;
        let expected = reference::increment(&a, -7);
        let mut loops: Vec<KernelLoop> = Chevrons::ALL
            .iter()
            .map(|c| c.kernel_loop(n).map_err(fail))
            .collect::<Result<_, _>>()?;
        for (grid, block) in [(1, 1), (3, 64), (2, TPB - 1), (5, TPB + 1), (1, 1024)] {
            loops.push(loop_1d(n, f(grid), f(block))?);
        }
        let stream = gpu.new_stream().map_err(fail)?;
        for (k, l) in loops.iter().enumerate() {
            let mut a_d = gpu.upload(&a).map_err(fail)?;
            // Every other loop on the stream: `<<<..., 0, stream>>>` runs the same shapes.
            let on = (k % 2 == 1).then_some(&stream);
            cuf_increment::increment(gpu, l, on, &mut a_d, -7).map_err(fail)?;
            gpu.synchronize_stream(&stream).map_err(fail)?;
            ensure(gpu.download(&a_d).map_err(fail)? == expected, || {
                format!("n = {n}, {l}, on a stream: {}", on.is_some())
            })?;
        }
    }
    Ok(())
}

/// The 2-D loop at extents that are not multiples of the block, with covering grids, fixed
/// grids smaller than the array (2-D grid-stride), and a 1-D grid walking every row.
fn ch3_cuf_increment_2d_matches_cpu(gpu: &Gpu) -> TestResult {
    let f = Dim::Fixed;
    for (nx, ny) in [(1, 1), (31, 9), (33, 7), (257, 3), (100, 17), (1, 300)] {
        let a = cuf_increment_2d::input(nx * ny).map_err(fail)?;
        let expected = reference::increment(&a, 5);
        let loops = [
            cuf_increment_2d::kernel_loop(nx, ny).map_err(fail)?,
            KernelLoop::new_2d(nx, ny, (f(2), f(3)), (f(32), f(8))).map_err(fail)?,
            KernelLoop::new_2d(nx, ny, (f(1), f(1)), (f(7), f(5))).map_err(fail)?,
            KernelLoop::new_2d(nx, ny, (f(3), f(1)), (f(64), f(1))).map_err(fail)?,
        ];
        for l in loops {
            let mut a_d = gpu.upload(&a).map_err(fail)?;
            cuf_increment_2d::increment(gpu, &l, &mut a_d, 5).map_err(fail)?;
            ensure(gpu.download(&a_d).map_err(fail)? == expected, || {
                format!("{nx} x {ny}, {l}")
            })?;
        }
    }
    Ok(())
}

/// A loop over a range other than the array's is refused, not launched.
fn ch3_cuf_increment_refuses_a_loop_of_another_extent(gpu: &Gpu) -> TestResult {
    let mut a_d = gpu.upload(&[0i32; 10]).map_err(fail)?;
    let l = loop_1d(11, Dim::Auto, Dim::Fixed(TPB))?;
    ensure(cuf_increment::increment(gpu, &l, None, &mut a_d, 1).is_err(), || {
        "an 11-element loop over 10 elements was launched".into()
    })?;
    let l = cuf_increment_2d::kernel_loop(3, 4).map_err(fail)?;
    ensure(cuf_increment_2d::increment(gpu, &l, &mut a_d, 1).is_err(), || {
        "a 3 x 4 loop over 10 elements was launched".into()
    })
}

/// `aSum` through the library's reduction equals the CPU's sum, at sizes around its blocks, for
/// ones (the book) and for a signed ramp.
fn ch3_cuf_reduce_matches_cpu(gpu: &Gpu) -> TestResult {
    for n in [1, 255, 256, 257, 1023, 1025, 100_003] {
        let ramp: Vec<i32> = (0..n).map(|i| (i % 201) as i32 - 100).collect();
        for a in [vec![1i32; n], ramp] {
            let a_d = gpu.upload(&a).map_err(fail)?;
            let mut plan = Plan::<i32>::new(gpu, n, THREADS_PER_BLOCK).map_err(fail)?;
            let got = cuf_reduce::a_sum(gpu, &mut plan, &a_d).map_err(fail)?;
            let expected = reference::sum(&a);
            ensure(i64::from(got) == expected, || format!("n = {n}: {got}, not {expected}"))?;
        }
    }
    Ok(())
}

fn main() {
    let cpu_tests: Vec<CpuTest> = vec![
        ("ch3_cuf_shape_ceil", ch3_cuf_shape_ceil),
        ("ch3_cuf_shape_grid_stride_counts", ch3_cuf_shape_grid_stride_counts),
        ("ch3_cuf_shape_2d", ch3_cuf_shape_2d),
        ("ch3_cuf_shape_capped", ch3_cuf_shape_capped),
        ("ch3_cuf_shape_refused", ch3_cuf_shape_refused),
        ("ch3_cuf_memory_plans", ch3_cuf_memory_plans),
    ];
    let gpu_tests: Vec<GpuTest> = vec![
        ("ch3_cuf_programs_at_default", ch3_cuf_programs_at_default),
        ("ch3_cuf_programs_at_awkward_sizes", ch3_cuf_programs_at_awkward_sizes),
        (
            "ch3_cuf_increment_every_shape_matches_cpu",
            ch3_cuf_increment_every_shape_matches_cpu,
        ),
        ("ch3_cuf_increment_2d_matches_cpu", ch3_cuf_increment_2d_matches_cpu),
        (
            "ch3_cuf_increment_refuses_a_loop_of_another_extent",
            ch3_cuf_increment_refuses_a_loop_of_another_extent,
        ),
        ("ch3_cuf_reduce_matches_cpu", ch3_cuf_reduce_matches_cpu),
    ];
    common::main(cpu_tests, gpu_tests)
}
