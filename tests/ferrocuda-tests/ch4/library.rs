//! Tests of `ferrocuda::transpose` (book §4.1.3, Appendix D.4): the kernel `cuda_transpose` on
//! sections with leading dimensions, the slab layout's checks, offsets and schedules. Included
//! by `tests/ferrocuda-tests/ch4.rs`.
use crate::common::{TestResult, ensure, fail};
use ferrocuda::Gpu;
use ferrocuda::gpu::{DeviceBuffer, Stream};
use ferrocuda::transpose::{self, SlabLayout, TransposeTile};

/// Marks every element the transpose must not write.
const UNTOUCHED: f32 = -1.0;

/// Distinct, exactly representable values (below 2^24), so any misplaced element shows.
fn ramp(n: usize) -> Vec<f32> {
    (0..n).map(|i| (i % (1 << 24)) as f32).collect()
}

/// `transpose::cuda_transpose` or `transpose::transpose`.
type Transpose =
    fn(&Gpu, Option<&Stream>, &mut DeviceBuffer<f32>, &DeviceBuffer<f32>, TransposeTile) -> ferrocuda::Result<()>;

/// `launch` of an `nx x ny` section at an offset inside a larger input with a leading dimension
/// past `nx`, into a section at an offset inside a larger output with one past `ny`: the section
/// exactly transposed, every element around it untouched. With `even`, every offset and leading
/// dimension is even (`transpose_wide`'s 8-byte path); without, they are odd.
fn transpose_section(gpu: &Gpu, launch: Transpose, nx: usize, ny: usize, even: bool) -> TestResult {
    let (ldi, ldo) = if even {
        (nx + 4 - nx % 2, ny + 6 - ny % 2)
    } else {
        (nx + 3 + nx % 2, ny + 5 + ny % 2)
    };
    let (idata_offset, odata_offset) = if even {
        (8 + 2 * ldi, 12 + 2 * ldo)
    } else {
        (7 + 2 * ldi, 11 + 2 * ldo)
    };
    let input = ramp(idata_offset + ny * ldi);
    let idata = gpu.upload(&input).map_err(fail)?;
    let output_len = odata_offset + nx * ldo + 13;
    let mut odata = gpu.upload(&vec![UNTOUCHED; output_len]).map_err(fail)?;
    let tile = TransposeTile {
        odata_offset,
        ldo,
        idata_offset,
        ldi,
        nx,
        ny,
    };
    launch(gpu, None, &mut odata, &idata, tile).map_err(fail)?;
    let output = gpu.download(&odata).map_err(fail)?;
    let mut expected = vec![UNTOUCHED; output_len];
    for x in 0..nx {
        for y in 0..ny {
            expected[odata_offset + x * ldo + y] = input[idata_offset + y * ldi + x];
        }
    }
    let wrong = output.iter().zip(&expected).position(|(a, b)| a != b);
    ensure(wrong.is_none(), || {
        let at = wrong.unwrap_or_default();
        format!("{nx} x {ny}: element {at} is {}, not {}", output[at], expected[at])
    })
}

/// Every extent around the tile (1, 31, 32, 33, 63, 65) and a multi-tile one, both ways.
pub fn ch4_cuda_transpose_sections_exact(gpu: &Gpu) -> TestResult {
    let sizes = [1usize, 31, 32, 33, 63, 65, 100];
    for &nx in &sizes {
        for &ny in &sizes {
            transpose_section(gpu, transpose::cuda_transpose, nx, ny, false)?;
        }
    }
    Ok(())
}

/// The library's fast transpose (`transpose_wide`) on every extent around its 64 x 64 tile and
/// a multi-tile one, both ways, with even offsets and leading dimensions (its 8-byte path for
/// full tiles) and odd ones (4-byte accesses throughout), and on whole matrices.
pub fn ch4_transpose_wide_exact(gpu: &Gpu) -> TestResult {
    let sizes = [1usize, 2, 63, 64, 65, 130];
    for &nx in &sizes {
        for &ny in &sizes {
            for even in [true, false] {
                transpose_section(gpu, transpose::transpose, nx, ny, even)?;
            }
        }
    }
    for (nx, ny) in [(64, 64), (256, 128), (33, 1000), (1000, 2)] {
        let input = ramp(nx * ny);
        let idata = gpu.upload(&input).map_err(fail)?;
        let mut odata = gpu.zeros::<f32>(nx * ny).map_err(fail)?;
        transpose::transpose(gpu, None, &mut odata, &idata, TransposeTile::whole(nx, ny)).map_err(fail)?;
        let expected = transpose::cpu(&input, nx, ny).map_err(fail)?;
        ensure(gpu.download(&odata).map_err(fail)? == expected, || {
            format!("{nx} x {ny}: transpose_wide differs from the CPU's transpose")
        })?;
    }
    Ok(())
}

/// The whole matrix at the book's `cudaTileDim` multiples, against the CPU transpose.
pub fn ch4_cuda_transpose_whole_exact(gpu: &Gpu) -> TestResult {
    for (nx, ny) in [(64, 96), (256, 32), (33, 1000)] {
        let input = ramp(nx * ny);
        let idata = gpu.upload(&input).map_err(fail)?;
        let mut odata = gpu.zeros::<f32>(nx * ny).map_err(fail)?;
        transpose::cuda_transpose(gpu, None, &mut odata, &idata, TransposeTile::whole(nx, ny)).map_err(fail)?;
        let expected = transpose::cpu(&input, nx, ny).map_err(fail)?;
        ensure(gpu.download(&odata).map_err(fail)? == expected, || {
            format!("{nx} x {ny}: the transpose differs from the CPU's")
        })?;
    }
    Ok(())
}

/// Sections that leave their buffers, a width beyond its leading dimension and an empty tile are
/// refused before any launch.
pub fn ch4_cuda_transpose_rejects_bad_sections(gpu: &Gpu) -> TestResult {
    let idata = gpu.zeros::<f32>(64 * 64).map_err(fail)?;
    let mut odata = gpu.zeros::<f32>(64 * 64).map_err(fail)?;
    let whole = TransposeTile::whole(64, 64);
    let bad = [
        TransposeTile {
            idata_offset: 1,
            ..whole
        },
        TransposeTile {
            odata_offset: 1,
            ..whole
        },
        TransposeTile { ldi: 63, ..whole },
        TransposeTile { ldo: 63, ..whole },
        TransposeTile { nx: 0, ..whole },
        TransposeTile {
            idata_offset: usize::MAX,
            ..whole
        },
    ];
    for tile in bad {
        let result = transpose::cuda_transpose(gpu, None, &mut odata, &idata, tile);
        ensure(matches!(result, Err(ferrocuda::Error::InvalidArgument(_))), || {
            format!("{tile:?} was not refused: {result:?}")
        })?;
    }
    Ok(())
}

/// The book's conditions, with its messages.
pub fn ch4_slab_layout_errors() -> TestResult {
    let message = |r: ferrocuda::Result<SlabLayout>| match r {
        Err(ferrocuda::Error::InvalidArgument(m)) => m,
        other => format!("not refused: {other:?}"),
    };
    ensure(message(SlabLayout::new(1024, 768, 0)).contains("nDevices"), || {
        "0 devices".into()
    })?;
    for (nx, ny, parts) in [(1024, 768, 5), (1024, 770, 4), (1000, 768, 3)] {
        let m = message(SlabLayout::new(nx, ny, parts));
        ensure(m.contains("nx, ny must be multiples of nDevices"), || {
            format!("{nx} x {ny} on {parts}: {m}")
        })?;
    }
    for (nx, ny, parts) in [(1024, 768, 64), (96, 64, 2), (64, 48, 1)] {
        let m = message(SlabLayout::new(nx, ny, parts));
        ensure(m.contains("p2pTileDim* must be multiples of cudaTileDim"), || {
            format!("{nx} x {ny} on {parts}: {m}")
        })?;
    }
    // Figure 4.2: 1024 x 768 on four devices, tiles of 256 x 192.
    let layout = SlabLayout::new(1024, 768, 4).map_err(fail)?;
    ensure(layout.tile_extents() == (256, 192), || {
        format!("{:?}", layout.tile_extents())
    })?;
    ensure(
        layout.input_slab_len() == 1024 * 192 && layout.output_slab_len() == 768 * 256,
        || "slab lengths".into(),
    )?;
    ensure(
        layout.tile_transpose(2).shape().map_err(fail)?.grid == (8, 6, 1),
        || "the figure's 48 blocks a tile".into(),
    )
}

/// Each stage of each schedule is a permutation; stage 0 is the diagonal; what one MPI rank
/// sends is what its partner receives.
pub fn ch4_slab_layout_schedules() -> TestResult {
    for parts in 1..=8 {
        let layout = SlabLayout::new(32 * parts, 64 * parts, parts).map_err(fail)?;
        for stage in 0..parts {
            let mut senders: Vec<usize> = (0..parts).map(|r| layout.p2p_sender(stage, r)).collect();
            if stage == 0 {
                ensure(senders == (0..parts).collect::<Vec<_>>(), || "stage 0".into())?;
            }
            senders.sort_unstable();
            ensure(senders == (0..parts).collect::<Vec<_>>(), || {
                format!("{parts} parts, stage {stage}: P2P senders are not a permutation")
            })?;
            for me in 0..parts {
                let to = layout.mpi_send_to(stage, me);
                ensure(layout.mpi_receive_from(stage, to) == me, || {
                    format!("{parts} ranks, stage {stage}: rank {me} sends to {to}, which does not receive from it")
                })?;
            }
        }
    }
    Ok(())
}

/// The whole staged P2P algorithm with every part's buffers on one device, both the peer copy
/// (into a receive slab) and the MPI pack (into a dense tile): the gathered output slabs are
/// the CPU transpose exactly, for 1 to 4 parts and non-square matrices.
pub fn ch4_slab_layout_staged_exact(gpu: &Gpu) -> TestResult {
    for (nx, ny, parts) in [(64, 96, 1), (128, 64, 2), (96, 192, 3), (128, 256, 4)] {
        let layout = SlabLayout::new(nx, ny, parts).map_err(fail)?;
        let input = ramp(nx * ny);
        let expected = transpose::cpu(&input, nx, ny).map_err(fail)?;
        let stream = gpu.new_stream().map_err(fail)?;
        let idata = (0..parts)
            .map(|p| gpu.upload(&input[layout.input_slab(p)]))
            .collect::<Result<Vec<_>, _>>()
            .map_err(fail)?;
        for packed in [false, true] {
            let mut gathered = Vec::with_capacity(nx * ny);
            for r in 0..parts {
                let mut tdata = gpu.upload(&vec![UNTOUCHED; layout.output_slab_len()]).map_err(fail)?;
                let mut rdata = gpu.zeros::<f32>(layout.input_slab_len()).map_err(fail)?;
                let mut tile = gpu.zeros::<f32>(layout.tile_len()).map_err(fail)?;
                for stage in 0..parts {
                    let s = layout.p2p_sender(stage, r);
                    if packed {
                        gpu.copy_2d_async(&stream, &idata[s], &mut tile, layout.pack_copy(r))
                            .map_err(fail)?;
                        let t = layout.packed_transpose(s);
                        transpose::cuda_transpose(gpu, Some(&stream), &mut tdata, &tile, t).map_err(fail)?;
                    } else {
                        gpu.copy_2d_async(&stream, &idata[s], &mut rdata, layout.peer_copy(r, s))
                            .map_err(fail)?;
                        let t = layout.tile_transpose(s);
                        transpose::cuda_transpose(gpu, Some(&stream), &mut tdata, &rdata, t).map_err(fail)?;
                    }
                }
                gpu.synchronize_stream(&stream).map_err(fail)?;
                gathered.extend(gpu.download(&tdata).map_err(fail)?);
            }
            ensure(gathered == expected, || {
                format!(
                    "{nx} x {ny} on {parts} parts (packed: {packed}): the gathered slabs differ from the CPU transpose"
                )
            })?;
        }
    }
    Ok(())
}
