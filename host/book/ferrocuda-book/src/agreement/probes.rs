//! The probe kernels (`ferrocuda_testing::probe`, a test-only kernel crate) on both backends: indices, grid
//! strides, shared memory, warp primitives, warp and block scans, atomics and roundings, exact.
use super::{Comparison, ramp_i32, ramp_real};
use crate::examples::stream::StreamReal;
use ferrocuda::device::elementary::{Elementary, Exp};
use ferrocuda::device::shared::Tile1d;
use ferrocuda::gpu::{KernelView, LaunchShape, Result};
use ferrocuda::verify::Tolerance;
use ferrocuda::{Gpu, LoadedKernels};
use ferrocuda_testing::probe::*;

/// The probe kernels on `gpu`.
fn probes(gpu: &Gpu) -> Result<LoadedKernels<'_>> {
    gpu.load(&ferrocuda_testing::PROBES)
}

pub(super) fn all(c: &mut Comparison) -> Result<()> {
    c.compare("probe_triad", Tolerance::EXACT, |gpu| {
        let n = 10_007;
        let (a, b) = (
            gpu.upload(&ramp_real::<f32>(n, 3.0))?,
            gpu.upload(&ramp_real::<f32>(n, 5.0))?,
        );
        let mut out = gpu.zeros::<f32>(n)?;
        let args = TriadArgs {
            a: a.view(),
            b: b.view(),
            c: out.view_mut(),
            scalar: 0.75,
        };
        probes(gpu)?.launch(ProbeTriad, LaunchShape::cover_1d(n, 256)?, args)?;
        gpu.download(&out)
    })?;
    c.compare("probe_index", Tolerance::EXACT, |gpu| {
        let mut out = gpu.zeros::<u32>(INDEX_FIELDS * 12 * 6 * 4)?;
        probes(gpu)?.launch(
            ProbeIndex,
            LaunchShape::new((3, 2, 2), (4, 3, 2)),
            OutArgs { out: out.view_mut() },
        )?;
        gpu.download(&out)
    })?;
    c.compare("probe_grid_stride", Tolerance::EXACT, |gpu| {
        let mut out = gpu.zeros::<u32>(100_003)?;
        probes(gpu)?.launch(
            ProbeGridStride,
            LaunchShape::new((7, 1, 1), (128, 1, 1)),
            OutArgs { out: out.view_mut() },
        )?;
        gpu.download(&out)
    })?;
    c.compare("probe_shared_reverse", Tolerance::EXACT, |gpu| {
        let mut data = gpu.upload(&ramp_i32(65 * 40))?;
        let shape = LaunchShape::new((40, 1, 1), (65, 1, 1)).with_shared_bytes(Tile1d::<i32>::bytes(65) as u32);
        probes(gpu)?.launch(ProbeSharedReverse, shape, OutArgs { out: data.view_mut() })?;
        gpu.download(&data)
    })?;
    c.compare("probe_tile_transpose", Tolerance::EXACT, |gpu| {
        let (nx, ny) = (100, 70);
        let input = gpu.upload(&ramp_real::<f32>(nx * ny, 8.0))?;
        let mut out = gpu.upload(&vec![f32::NAN; nx * ny])?;
        let shape = LaunchShape::new((4, 3, 1), (TILE_DIM as u32, BLOCK_ROWS as u32, 1))
            .with_shared_bytes(TransposeTile::BYTES as u32);
        let args = TransposeArgs {
            input: input.view(),
            output: out.view_mut(),
            nx: nx as u32,
            ny: ny as u32,
        };
        probes(gpu)?.launch(ProbeTileTranspose, shape, args)?;
        gpu.download(&out)
    })?;
    // Method syntax (`x.exp()`, prelude only), as a user writes it: the device library's
    // functions on both backends, bit for bit.
    float_methods::<f32>(c, "probe_float_methods_f32")?;
    float_methods::<f64>(c, "probe_float_methods_f64")?;
    // Two writable views of disjoint halves of one buffer (overlapping ones are refused).
    c.compare("probe_two_outputs", Tolerance::EXACT, |gpu| {
        let n = 1000;
        let mut out = gpu.zeros::<f32>(2 * n)?;
        let whole = out.view_mut();
        let half = |range| {
            whole
                .subview(range)
                .ok_or_else(|| ferrocuda::Error::InvalidArgument("a half outside".into()))
        };
        let (first, second) = (half(0..n)?, half(n..2 * n)?);
        probes(gpu)?.launch(
            ProbeTwoOutputs,
            LaunchShape::cover_1d(n, 128)?,
            TwoOutputsArgs { first, second },
        )?;
        gpu.download(&out)
    })?;
    c.compare("probe_warp", Tolerance::EXACT, |gpu| {
        let input = gpu.upload(&ramp_i32(256))?;
        let mut out = gpu.zeros::<i32>(WARP_FIELDS * 256)?;
        probes(gpu)?.launch(
            ProbeWarp,
            LaunchShape::new((2, 1, 1), (128, 1, 1)),
            WarpArgs {
                input: input.view(),
                out: out.view_mut(),
            },
        )?;
        gpu.download(&out)
    })?;
    c.compare("probe_warp_sum_f64", Tolerance::EXACT, |gpu| {
        let input = gpu.upload(&(0..512).map(|i| (i as f64 - 200.0) * 0.25).collect::<Vec<_>>())?;
        let mut out = gpu.zeros::<f64>(16)?;
        probes(gpu)?.launch(
            ProbeWarpSumF64,
            LaunchShape::cover_1d(512, 128)?,
            WarpSumF64Args {
                input: input.view(),
                out: out.view_mut(),
            },
        )?;
        gpu.download(&out)
    })?;
    for (kernel, blocks, threads) in [("probe_warp_scan", 3, 64), ("probe_block_scan", 3, 65)] {
        c.compare(kernel, Tolerance::EXACT, |gpu| {
            use collective::*;
            let n = blocks * threads as usize;
            let input = gpu.upload(&ramp_i32(n).iter().map(|&x| (x % 5) as u32).collect::<Vec<_>>())?;
            let mut out = gpu.zeros::<u32>(BLOCK_SCAN_FIELDS.max(WARP_SCAN_FIELDS) * n)?;
            let args = ScanProbeArgs {
                input: input.view(),
                out: out.view_mut(),
            };
            let shape = LaunchShape::new((blocks as u32, 1, 1), (threads, 1, 1));
            match kernel {
                "probe_warp_scan" => probes(gpu)?.launch(ProbeWarpScan, shape, args)?,
                _ => probes(gpu)?.launch(
                    ProbeBlockScan,
                    shape.with_shared_bytes(BlockScanShared::bytes() as u32),
                    args,
                )?,
            }
            gpu.download(&out)
        })?;
    }
    c.compare("probe_atomics", Tolerance::EXACT, |gpu| {
        let mut i32s = gpu.upload(&[0, i32::MAX, i32::MIN])?;
        let mut u32s = gpu.upload(&[0, u32::MAX, 0, u32::MAX, 0, 0])?;
        let mut u64s = gpu.upload(&[0, u64::MAX, 0, u64::MAX, 0])?;
        let (mut f32s, mut f64s) = (gpu.upload(&[0.0f32])?, gpu.upload(&[0.0f64])?);
        let args = AtomicArgs {
            i32s: i32s.view_mut(),
            u32s: u32s.view_mut(),
            u64s: u64s.view_mut(),
            f32s: f32s.view_mut(),
            f64s: f64s.view_mut(),
        };
        let shape = LaunchShape::new((40, 1, 1), (256, 1, 1)).with_shared_bytes(Tile1d::<u32>::bytes(1) as u32);
        probes(gpu)?.launch(ProbeAtomics, shape, args)?;
        let (i, u, l) = (gpu.download(&i32s)?, gpu.download(&u32s)?, gpu.download(&u64s)?);
        // The exchanges keep whichever thread came last, which differs by design: left out.
        let mut values: Vec<f64> = i.iter().map(|&v| v as f64).collect();
        values.extend([u[0], u[1], u[2], u[4], u[5]].map(f64::from));
        values.extend([l[0], l[1], l[2], l[4]].map(|v| v as f64));
        values.extend(gpu.download(&f32s)?.iter().map(|&v| v as f64));
        values.extend(gpu.download(&f64s)?);
        Ok(values)
    })?;
    rounding::<f32>(c)?;
    rounding::<f64>(c)
}

fn rounding<T: StreamReal>(c: &mut Comparison) -> Result<()>
where
    ProbeRounding: for<'k> ferrocuda::device::launch::Kernel<RoundingArgs<'k, T>>,
{
    c.compare(&format!("probe_rounding_{}", T::NAME), Tolerance::EXACT, |gpu| {
        let n = 1000;
        let a: Vec<T> = (0..n).map(|i| T::from_f64(1.0 + i as f64 * 1.1e-4)).collect();
        let b: Vec<T> = (0..n).map(|i| T::from_f64(1.0 - i as f64 * 0.9e-4)).collect();
        let c_values: Vec<T> = a
            .iter()
            .zip(&b)
            .map(|(&x, &y)| T::from_f64(-(x * y).to_f64()))
            .collect();
        let (a, b, c_d) = (gpu.upload(&a)?, gpu.upload(&b)?, gpu.upload(&c_values)?);
        let (mut fused, mut unfused) = (gpu.zeros::<T>(n)?, gpu.zeros::<T>(n)?);
        let args = RoundingArgs {
            a: a.view(),
            b: b.view(),
            c: c_d.view(),
            fused: fused.view_mut(),
            unfused: unfused.view_mut(),
        };
        probes(gpu)?.launch(ProbeRounding, LaunchShape::cover_1d(n, 128)?, args)?;
        let mut out = gpu.download(&fused)?;
        out.extend(gpu.download(&unfused)?);
        Ok(out)
    })
}

/// `probe_float_methods` over 20,000 inputs in [-20, 20] (where std's `exp` and the device
/// library's once differed on 1,885).
fn float_methods<T: StreamReal + Exp + Elementary>(c: &mut Comparison, kernel: &str) -> Result<()>
where
    ProbeFloatMethods: for<'k> ferrocuda::Kernel<FloatMethodArgs<'k, T>>,
{
    c.compare(kernel, Tolerance::EXACT, |gpu| {
        let n = 20_000;
        let inputs: Vec<T> = (0..n)
            .map(|i| T::from_f64((i as f64 + 0.5) / n as f64 * 40.0 - 20.0))
            .collect();
        let input = gpu.upload(&inputs)?;
        let mut out = gpu.zeros::<T>(FLOAT_METHOD_FIELDS * n)?;
        let args = FloatMethodArgs {
            input: input.view(),
            out: out.view_mut(),
        };
        probes(gpu)?.launch(ProbeFloatMethods, LaunchShape::cover_1d(n, 128)?, args)?;
        gpu.download(&out)
    })
}
