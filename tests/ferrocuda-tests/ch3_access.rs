//! GPU-vs-CPU tests of the chapter 3 memory-access examples (book §3.2.2, §3.2.3, §3.5):
//! offsets and strides, strided and stencil reads through the read-only path, and the TLP and
//! ILP copies. Every copy and increment is compared exactly with the CPU.
mod common;

use book_kernels::ch3::ilp_copy::ILP;
use common::{GpuTest, TestResult, awkward_sizes, ensure, fail};
use ferrocuda::Gpu;
use ferrocuda::gpu::{DeviceProperties, Error};
use ferrocuda::verify::{Check, Tolerance};
use ferrocuda_book::example::Precision;
use ferrocuda_book::examples::ch3::copy::{self, CopyReal, Variant};
use ferrocuda_book::examples::ch3::offset_stride::{self, Cache, Pattern, Placement};
use ferrocuda_book::examples::ch3::stride_texture::{self, Load as StrideLoad};
use ferrocuda_book::examples::ch3::sweep;
use ferrocuda_book::examples::ch3::texture_average::{self, Load as AverageLoad, Points};
use ferrocuda_book::reference::ch3::{offset_stride as os_ref, stride_texture as st_ref, texture_average as avg_ref};

/// The CUB-style block sizes every kernel is launched with.
const BLOCK_SHAPES: [u32; 6] = [1, 7, 32, 65, 128, 1024];

/// `id` at `--size n` in `precision`, one repetition, with `extra` options, passes.
fn passes_at(gpu: &Gpu, id: &str, n: usize, precision: Precision, extra: &[&str]) -> TestResult {
    let (n, precision) = (n.to_string(), precision.to_string());
    let mut args = vec!["--size", &n, "--precision", &precision, "--reps", "1"];
    args.extend(extra);
    common::passes_with(gpu, id, &args)
}

fn ch3_offset_stride_program_f32_and_f64(gpu: &Gpu) -> TestResult {
    for precision in [Precision::F32, Precision::F64] {
        for n in [1, 31, 33, 255, 257, 1000] {
            passes_at(gpu, "ch3-offset-stride", n, precision, &[]).map_err(|e| format!("{precision}, n = {n}: {e}"))?;
        }
    }
    Ok(())
}

fn ch3_offset_stride_each_kernel_block_shapes(gpu: &Gpu) -> TestResult {
    let n = 1001;
    let len = sweep::SPAN_FACTOR * n;
    let a: Vec<f32> = (0..len).map(|i| (i % 977) as f32 * 0.25).collect();
    let a_d = gpu.upload(&a).map_err(fail)?;
    for threads in BLOCK_SHAPES {
        for pattern in Pattern::ALL {
            for s in [0, 1, 3, 8, 31, 32] {
                if pattern == Pattern::Stride && s == 0 {
                    continue;
                }
                for placement in Placement::ALL {
                    let mut x_d = gpu.upload(&a).map_err(fail)?;
                    let expected = match placement {
                        Placement::InPlace => {
                            offset_stride::in_place(gpu, pattern, Cache::L1, &mut x_d, n, s, threads).map_err(fail)?;
                            os_ref::in_place(&a, pattern, n, s, 1).map_err(fail)?
                        }
                        Placement::OutOfPlace => {
                            offset_stride::out_of_place(gpu, pattern, Cache::L1, &a_d, &mut x_d, n, s, threads)
                                .map_err(fail)?;
                            os_ref::out_of_place(&a, &a, pattern, n, s).map_err(fail)?
                        }
                    };
                    let check = Check::compare("a", &gpu.download(&x_d).map_err(fail)?, &expected, Tolerance::EXACT);
                    ensure(check.passed(), || {
                        format!("{pattern:?} {s}, {placement:?}, {threads} threads: {check}")
                    })?;
                }
            }
        }
    }
    Ok(())
}

/// The L2-only stride kernels: the same results as the L1 ones at every block shape, and the
/// offset pattern, which has no such kernel, refused in a sentence.
fn ch3_offset_stride_cg_kernels_block_shapes(gpu: &Gpu) -> TestResult {
    let n = 1001;
    let a: Vec<f64> = (0..sweep::SPAN_FACTOR * n).map(|i| (i % 977) as f64 * 0.25).collect();
    let a_d = gpu.upload(&a).map_err(fail)?;
    let cg = offset_stride::Cache::Cg;
    for threads in BLOCK_SHAPES {
        for s in [1, 3, 8, 32] {
            let mut x_d = gpu.upload(&a).map_err(fail)?;
            offset_stride::in_place(gpu, Pattern::Stride, cg, &mut x_d, n, s, threads).map_err(fail)?;
            let expected = os_ref::in_place(&a, Pattern::Stride, n, s, 1).map_err(fail)?;
            let check = Check::compare("a", &gpu.download(&x_d).map_err(fail)?, &expected, Tolerance::EXACT);
            ensure(check.passed(), || {
                format!("in place, stride {s}, {threads} threads: {check}")
            })?;
            let mut b_d = gpu.upload(&a).map_err(fail)?;
            offset_stride::out_of_place(gpu, Pattern::Stride, cg, &a_d, &mut b_d, n, s, threads).map_err(fail)?;
            let expected = os_ref::out_of_place(&a, &a, Pattern::Stride, n, s).map_err(fail)?;
            let check = Check::compare("b", &gpu.download(&b_d).map_err(fail)?, &expected, Tolerance::EXACT);
            ensure(check.passed(), || {
                format!("out of place, stride {s}, {threads} threads: {check}")
            })?;
        }
    }
    let mut x_d = gpu.upload(&a).map_err(fail)?;
    match offset_stride::in_place(gpu, Pattern::Offset, cg, &mut x_d, n, 1, 32) {
        Err(Error::InvalidArgument(message)) => ensure(message.contains("stride"), || message.clone()),
        other => Err(format!("offset with ld.global.cg gave {other:?}")),
    }
}

/// `--cache both` runs and checks both stride sweeps; a wrong value is refused.
fn ch3_offset_stride_cache_option(gpu: &Gpu) -> TestResult {
    passes_at(gpu, "ch3-offset-stride", 300, Precision::F32, &["--cache", "both"])?;
    let wrong = ["--size", "300", "--reps", "1", "--cache", "noL1"];
    ensure(common::run_args(gpu, "ch3-offset-stride", &wrong).is_err(), || {
        "--cache noL1 was accepted".into()
    })
}

/// An array too short for the offset or stride is refused before any launch, in one sentence.
fn ch3_offset_stride_refuses_short_arrays(gpu: &Gpu) -> TestResult {
    let mut a_d = gpu.zeros::<f64>(100).map_err(fail)?;
    for (pattern, s) in [(Pattern::Offset, 1), (Pattern::Stride, 2)] {
        match offset_stride::in_place(gpu, pattern, Cache::L1, &mut a_d, 100, s, 32) {
            Err(Error::InvalidArgument(message)) => ensure(message.contains("holds 100"), || message.clone())?,
            other => return Err(format!("{pattern:?} {s} over 100 elements gave {other:?}")),
        }
    }
    Ok(())
}

fn ch3_stride_texture_program_f32_and_f64(gpu: &Gpu) -> TestResult {
    for precision in [Precision::F32, Precision::F64] {
        for n in awkward_sizes(sweep::BLOCK_SIZE as usize)
            .into_iter()
            .filter(|&n| n < 10_000)
        {
            passes_at(gpu, "ch3-stride-texture", n, precision, &[])
                .map_err(|e| format!("{precision}, n = {n}: {e}"))?;
        }
    }
    Ok(())
}

fn ch3_stride_texture_block_shapes(gpu: &Gpu) -> TestResult {
    let n = 333;
    let a: Vec<f64> = (0..33 * n).map(|i| i as f64 * 0.5).collect();
    let a_d = gpu.upload(&a).map_err(fail)?;
    for threads in BLOCK_SHAPES {
        for load in StrideLoad::ALL {
            for s in [1, 2, 7, 32] {
                let mut b_d = gpu.upload(&vec![f64::NAN; n]).map_err(fail)?;
                stride_texture::stride_read(gpu, load, &a_d, &mut b_d, s, threads).map_err(fail)?;
                let check = Check::compare(
                    "b",
                    &gpu.download(&b_d).map_err(fail)?,
                    &st_ref::stride_read(&a, n, s).map_err(fail)?,
                    Tolerance::EXACT,
                );
                ensure(check.passed(), || {
                    format!("{load:?}, stride {s}, {threads} threads: {check}")
                })?;
            }
        }
    }
    let mut b_d = gpu.zeros::<f64>(n).map_err(fail)?;
    ensure(
        stride_texture::stride_read(gpu, StrideLoad::Global, &a_d, &mut b_d, 34, 32).is_err(),
        || "a stride past the end of the input was launched".into(),
    )
}

fn ch3_texture_average_program(gpu: &Gpu) -> TestResult {
    for n in [1, 2, 31, 33, 65] {
        passes_at(gpu, "ch3-texture-average", n, Precision::F32, &[]).map_err(|e| format!("n = {n}: {e}"))?;
    }
    Ok(())
}

fn ch3_texture_average_tile_shapes(gpu: &Gpu) -> TestResult {
    let n = 45;
    let a = texture_average::input(n, 7).map_err(fail)?;
    let a_d = gpu.upload(&a).map_err(fail)?;
    for tile in [1, 7, 16, 32] {
        for points in [Points::Four, Points::Eight] {
            for load in [AverageLoad::Global, AverageLoad::ReadOnly] {
                let mut b_d = gpu.upload(&vec![f32::NAN; n * n]).map_err(fail)?;
                texture_average::average(gpu, points, load, &a_d, &mut b_d, n, tile).map_err(fail)?;
                let expected = match points {
                    Points::Four => avg_ref::average4(&a, n).map_err(fail)?,
                    Points::Eight => avg_ref::average8(&a, n).map_err(fail)?,
                };
                let check = Check::compare("b", &gpu.download(&b_d).map_err(fail)?, &expected, Tolerance::EXACT);
                ensure(check.passed(), || format!("{points:?}, {load:?}, tile {tile}: {check}"))?;
            }
        }
    }
    Ok(())
}

fn ch3_tlp_copy_program_f32_and_f64(gpu: &Gpu) -> TestResult {
    for precision in [Precision::F32, Precision::F64] {
        for n in [1, 31, 33, 1023, 1025, 4099] {
            passes_at(gpu, "ch3-tlp-copy", n, precision, &[]).map_err(|e| format!("{precision}, n = {n}: {e}"))?;
        }
    }
    Ok(())
}

fn ch3_ilp_copy_program_f32_and_f64(gpu: &Gpu) -> TestResult {
    for precision in [Precision::F32, Precision::F64] {
        for n in [1, 31, 33, 4095, 4097, 10_007] {
            passes_at(gpu, "ch3-ilp-copy", n, precision, &[]).map_err(|e| format!("{precision}, n = {n}: {e}"))?;
        }
    }
    Ok(())
}

/// Partial tiles of the ILP copy: sizes around one and two tiles of `threads * ILP`.
fn ch3_ilp_copy_partial_tiles(gpu: &Gpu) -> TestResult {
    for threads in [1u32, 7, 32, 65, 128] {
        let tile = threads as usize * ILP;
        for n in [1, 2, 3, 5, tile - 1, tile, tile + 1, 2 * tile - 1, 2 * tile + 3] {
            let a: Vec<f64> = copy::input(n).map_err(fail)?;
            let a_d = gpu.upload(&a).map_err(fail)?;
            for (variant, shared) in [(Variant::Ilp, 0), (Variant::Tlp, 0), (Variant::Ilp, 4096)] {
                let mut b_d = gpu.upload(&vec![f64::NAN; n]).map_err(fail)?;
                copy::copy(gpu, variant, &a_d, &mut b_d, threads, shared).map_err(fail)?;
                let check = Check::compare("b", &gpu.download(&b_d).map_err(fail)?, &a, Tolerance::EXACT);
                ensure(check.passed(), || {
                    format!("{variant:?}, {threads} threads, n = {n}: {check}")
                })?;
            }
        }
    }
    Ok(())
}

/// The extra shared memory holds one block per multiprocessor, as the occupancy query reports.
fn ch3_tlp_copy_one_block_per_multiprocessor(gpu: &Gpu) -> TestResult {
    let bytes = copy::prepare_one_block::<f32>(gpu).map_err(fail)?;
    for threads in copy::block_sizes(gpu.properties()) {
        for variant in [Variant::Tlp, Variant::Ilp] {
            let blocks = f32::blocks_per_multiprocessor(gpu, variant, threads, bytes).map_err(fail)?;
            ensure(blocks == 1, || {
                format!("{variant:?}, {threads} threads: {blocks} blocks per SM")
            })?;
        }
    }
    Ok(())
}

/// The shared-memory size for one block per multiprocessor, on an H100's limits and on a K20's
/// (48 KiB per block and per multiprocessor, where the book's 0.9 * 48 KiB also works).
fn ch3_tlp_copy_one_block_shared_bytes() -> TestResult {
    let h100 = DeviceProperties::simulator();
    let mut k20 = DeviceProperties::simulator();
    k20.shared_mem_per_multiprocessor_bytes = 48 * 1024;
    k20.shared_mem_per_block_optin_bytes = 48 * 1024;
    for (name, p) in [("H100", h100), ("K20", k20)] {
        let s = copy::one_block_shared_bytes(&p);
        ensure(
            s <= p.shared_mem_per_block_optin_bytes && 2 * s > p.shared_mem_per_multiprocessor_bytes,
            || format!("{name}: {s} B"),
        )?;
    }
    let sizes = copy::block_sizes(&DeviceProperties::simulator());
    ensure(sizes == [32, 64, 128, 256, 512, 1024], || format!("{sizes:?}"))
}

/// The references on cases worked by hand; arrays too short for the threads are refused.
fn ch3_access_references() -> TestResult {
    let a = vec![0.0f32; 10];
    let offset = os_ref::in_place(&a, Pattern::Offset, 3, 2, 2).map_err(fail)?;
    ensure(offset == [0., 0., 2., 2., 2., 0., 0., 0., 0., 0.], || {
        format!("{offset:?}")
    })?;
    let stride = os_ref::out_of_place(&[5.0f32; 10], &a, Pattern::Stride, 3, 4).map_err(fail)?;
    ensure(stride == [6., 0., 0., 0., 6., 0., 0., 0., 6., 0.], || {
        format!("{stride:?}")
    })?;
    ensure(
        st_ref::stride_read(&[1.0f64, 2., 3., 4., 5.], 3, 2).map_err(fail)? == [2., 4., 6.],
        || "stride_read".into(),
    )?;
    // 3 x 3 with halo, interior 1 x 1: the centre's neighbours are 1..=8 around a 100.
    let grid = [1., 2., 3., 4., 100., 5., 6., 7., 8.];
    let (four, eight) = (
        avg_ref::average4(&grid, 1).map_err(fail)?,
        avg_ref::average8(&grid, 1).map_err(fail)?,
    );
    ensure(four == [0.25 * (4. + 2. + 7. + 5.)] && eight == [4.5], || {
        format!("{four:?} {eight:?}")
    })?;
    let refusals = [
        (
            "in place, offset past the end",
            os_ref::in_place(&a, Pattern::Offset, 9, 2, 1).is_err(),
        ),
        (
            "in place, stride past the end",
            os_ref::in_place(&a, Pattern::Stride, 4, 4, 1).is_err(),
        ),
        (
            "in place, stride overflowing",
            os_ref::in_place(&a, Pattern::Stride, 3, usize::MAX, 1).is_err(),
        ),
        (
            "out of place, short a",
            os_ref::out_of_place(&a[..5], &a, Pattern::Offset, 4, 2).is_err(),
        ),
        (
            "out of place, short b",
            os_ref::out_of_place(&a, &a[..5], Pattern::Stride, 4, 2).is_err(),
        ),
        ("stride_read past the end", st_ref::stride_read(&a, 4, 4).is_err()),
        (
            "stride_read overflowing",
            st_ref::stride_read(&a, 3, usize::MAX).is_err(),
        ),
        ("average4 of a short grid", avg_ref::average4(&grid[..8], 1).is_err()),
        ("average8 of a long grid", avg_ref::average8(&a, 1).is_err()),
    ];
    for (what, refused) in refusals {
        ensure(refused, || format!("{what} was accepted"))?;
    }
    ensure(
        os_ref::in_place(&a, Pattern::Stride, 4, 3, 1).is_ok()
            && os_ref::in_place(&a, Pattern::Offset, 0, 99, 1).is_ok(),
        || "an array that just fits, or no thread, was refused".into(),
    )?;
    ensure(
        offset_stride::suffixed("out/sweep.png", "offset") == "out/sweep-offset.png"
            && offset_stride::suffixed("sweep", "stride") == "sweep-stride",
        || "suffixed".into(),
    )
}

/// A `--plot` file that cannot be written is refused before the sweep, in one sentence: a
/// directory that does not exist, one that refuses new files (`/proc`, not said to be missing),
/// a name that is not `.png` (the charts are PNG) or empty. One in the working directory or an
/// existing one is accepted, and a `PREFIX.png` flag is checked through its first chart's name.
fn ch3_offset_stride_plot_path() -> TestResult {
    let example = ferrocuda_book::registry::find("ch3-offset-stride").ok_or("no ch3-offset-stride")?;
    let parse = |args: &[&str]| {
        ferrocuda_book::cli::command(example)
            .try_get_matches_from(args)
            .map(drop)
            .map_err(|e| e.to_string())
    };
    let refused = |path: &str, words: &str| {
        let result = parse(&["--plot", path]);
        ensure(matches!(&result, Err(e) if e.contains(words)), || {
            format!("--plot {path:?}: {result:?}")
        })
    };
    refused("/nonexistent-ferrocuda-dir/sweep.png", "does not exist")?;
    refused("chart.svg", "charts are PNG, so give a file name ending in .png")?;
    refused("", "give a file name ending in .png")?;
    if std::path::Path::new("/proc").is_dir() {
        refused("/proc/x.png", "cannot create a file in /proc")?;
    }
    let tmp = std::env::temp_dir().join("sweep.png");
    for ok in [
        &["--plot", "sweep.png"][..],
        &["--plot", "SWEEP.PNG"],
        &["--plot", &*tmp.to_string_lossy()],
        &[],
    ] {
        parse(ok)?;
    }
    let sor_prefix = ferrocuda_book::examples::thesis::sor_multi::plot_prefix;
    sor_prefix(&std::env::temp_dir().join("sor.png").to_string_lossy())?;
    let missing = sor_prefix("/nonexistent-ferrocuda-dir/sor.png");
    ensure(missing.is_err(), || {
        format!("a PREFIX.png in a missing directory: {missing:?}")
    })
}

fn main() {
    let gpu_tests: Vec<GpuTest> = vec![
        (
            "ch3_offset_stride_program_f32_and_f64",
            ch3_offset_stride_program_f32_and_f64,
        ),
        (
            "ch3_offset_stride_each_kernel_block_shapes",
            ch3_offset_stride_each_kernel_block_shapes,
        ),
        (
            "ch3_offset_stride_cg_kernels_block_shapes",
            ch3_offset_stride_cg_kernels_block_shapes,
        ),
        ("ch3_offset_stride_cache_option", ch3_offset_stride_cache_option),
        (
            "ch3_offset_stride_refuses_short_arrays",
            ch3_offset_stride_refuses_short_arrays,
        ),
        (
            "ch3_stride_texture_program_f32_and_f64",
            ch3_stride_texture_program_f32_and_f64,
        ),
        ("ch3_stride_texture_block_shapes", ch3_stride_texture_block_shapes),
        ("ch3_texture_average_program", ch3_texture_average_program),
        ("ch3_texture_average_tile_shapes", ch3_texture_average_tile_shapes),
        ("ch3_tlp_copy_program_f32_and_f64", ch3_tlp_copy_program_f32_and_f64),
        (
            "ch3_tlp_copy_one_block_per_multiprocessor",
            ch3_tlp_copy_one_block_per_multiprocessor,
        ),
        ("ch3_ilp_copy_program_f32_and_f64", ch3_ilp_copy_program_f32_and_f64),
        ("ch3_ilp_copy_partial_tiles", ch3_ilp_copy_partial_tiles),
    ];
    common::main(
        vec![
            (
                "ch3_tlp_copy_one_block_shared_bytes",
                ch3_tlp_copy_one_block_shared_bytes,
            ),
            ("ch3_access_references", ch3_access_references),
            ("ch3_offset_stride_plot_path", ch3_offset_stride_plot_path),
        ],
        gpu_tests,
    )
}
