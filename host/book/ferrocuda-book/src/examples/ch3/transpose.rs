//! ch3-transpose: the book's transpose ladder (§3.4, Appendix D.2, `program transposeTest`),
//! with the PGI article's three transposes and the tutorial's padded one as variants of the same
//! kernel code.
//!
//! As the book: f32, out of place, 32 x 32 tiles and 32 x 8 blocks, one warm-up launch, then
//! `NUM_REPS` = 100 launches between two events; outputs preset to -1 and compared exactly (the
//! copies with the input, the transposes with the rayon CPU transpose); bandwidth
//! `2 * mem_size / time` (1e9 B/GB). Added: the fraction of a device-to-device memcpy of the same
//! bytes, and any extent (the book refuses extents that are not multiples of `TILE_DIM`; the
//! kernels here bound-test only the edge tiles). The default is the book's 1024 x 1024 (256 x
//! 256 on the simulator); `--size` sets nx and `--ny` ny (default: nx); `--size 16384` is the
//! size the benchmark uses. After the tables, the tutorial's lines for its `gtranspose2`
//! (Decyk): the empty kernel's time, the CPU transpose's, the GPU's, the maximum difference.
//! Before them, the PGI article's second figure for `transpose3`: the bandwidth of its
//! load/sync/store statements alone, timed inside the kernel with `%globaltimer`.
use crate::defaults::Pick;
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::empty_kernel::print_empty_kernel_time;
use crate::nvcc::LoadOr;
use crate::reference;
use book_kernels::ch3::transpose::{
    BLOCK_ROWS, CARTESIAN, CopySharedMem, DIAGONAL, DIAGONAL_SHARED, Gtranspose2, PGI_TILE, SectionTimedArgs,
    SimpleCopy, TILE_DIM, TUTORIAL_MX, Transpose1, Transpose2, Transpose3, Transpose3SectionTimed, TransposeArgs,
    TransposeCoalesced, TransposeDiagonal, TransposeNaive, TransposeNoBankConflicts, transpose_shared_bytes,
};
use ferrocuda::footprint::{self, Footprint, try_from_fn, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result};
use ferrocuda::measure::Stats;
use ferrocuda::verify::{Check, Tolerance};
use std::time::Instant;

/// The book's `nx = ny`.
pub const N_BOOK: usize = 1024;
/// The book's `NUM_REPS`: launches timed together.
pub const NUM_REPS: usize = 100;
/// The most blocks a grid holds along y (every CUDA device since compute capability 2.0).
pub const MAX_GRID_Y: u32 = 65535;
/// The largest matrix: [`input`] keeps every element distinct up to 2^30 elements.
pub const MAX_ELEMENTS: usize = 1 << 30;
/// The simulator's side.
pub const SIMULATOR_N: usize = 256;

/// ch3-transpose.
pub struct Ch3Transpose;

/// ch3-transpose's own option.
#[derive(clap::Args, Clone, Debug)]
pub struct Ch3TransposeOptions {
    /// ny, the number of rows (nx * ny at most 2^30) [default: nx, a square matrix]
    #[arg(long, value_name = "NY")]
    pub ny: Option<usize>,
}

impl Example for Ch3Transpose {
    const ID: &'static str = "ch3-transpose";
    const DESCRIPTION: &'static str = "copy, naive, coalesced, conflict-free and diagonal transposes of a 1024^2 f32 matrix, GB/s and /memcpy (book 3.4; PGI article; Decyk tutorial); --size sets nx, --ny ny";
    const SIZE: Option<Size> =
        Some(Size::new("nx, the matrix's row length (ny = nx unless --ny)", N_BOOK, SIMULATOR_N).at_most(MAX_ELEMENTS));
    const REPS: bool = true;
    type Args = Ch3TransposeOptions;

    /// The run's peak at `nx` (and `--ny`, else `nx`): input and output on the device, with the
    /// memcpy's two buffers of the same bytes while it is timed; on the host the input, the
    /// CPU's transpose and a download (or the -1 preset); `None` on overflow.
    fn memory(run: &Run<Self::Args>, _gpu: &Gpu) -> Option<Footprint> {
        let elements = footprint::elements(&[run.size, run.args.ny.unwrap_or(run.size)])?;
        Footprint::NONE.device::<f32>(4, elements)?.host::<f32>(3, elements)
    }

    /// The book's program, with the PGI and tutorial variants in a second table, then the
    /// tutorial's lines.
    fn run(gpu: &Gpu, run: &Run<Self::Args>) -> Result<Outcome> {
        let nx = run.size;
        let ny = match run.args.ny {
            Some(0) => return Err(Error::InvalidArgument("--ny must be at least 1".into())),
            ny => ny.unwrap_or(nx),
        };
        if nx.checked_mul(ny).is_none_or(|e| e > MAX_ELEMENTS) {
            return Err(Error::InvalidArgument(format!(
                "{nx} x {ny} makes more than {MAX_ELEMENTS} elements"
            )));
        }
        let reps = run.reps.max(gpu.pick(NUM_REPS, 1));
        let p = gpu.properties();
        let shape = Variant::NoBankConflicts.shape(nx, ny)?;
        println!();
        println!("Device Name: {}", p.name);
        println!(
            "Compute Capability: {}.{}",
            p.compute_capability.0, p.compute_capability.1
        );
        println!();
        println!("Matrix size: {nx} {ny}, Block size: {TILE_DIM} {BLOCK_ROWS}, Tile size: {TILE_DIM} {TILE_DIM}");
        let ((gx, gy, gz), (bx, by, bz)) = (shape.grid, shape.block);
        println!("grid: {gx} {gy} {gz}, tBlock: {bx} {by} {bz}");
        let mem_size = nx * ny * size_of::<f32>();
        let in_h = input(nx * ny)?;
        let mut gold = try_vec(nx * ny, 0.0f32)?;
        let cpu_start = Instant::now();
        reference::ch3::transpose::transpose(&mut gold, &in_h, nx, ny)?;
        let cpu_s = cpu_start.elapsed().as_secs_f64();
        let idata_d = gpu.upload(&in_h)?;
        let mut odata_d = gpu.zeros::<f32>(nx * ny)?;
        let memcpy = ferrocuda::measure::memcpy_gb_per_s(gpu, mem_size, reps.min(20))?;
        println!(
            "memcpy device-to-device of {:.1} MiB: {memcpy:.2} GB/s ({}, {reps} launches per timing)",
            mem_size as f64 / (1 << 20) as f64,
            gpu.timing_label()
        );
        let mut checks = Vec::new();
        let (mut tutorial, mut transpose3_gb_per_s) = (None, None);
        for (title, variants) in [
            ("book 3.4", &Variant::ALL[..6]),
            ("PGI article and Decyk tutorial", &Variant::ALL[6..]),
        ] {
            println!();
            println!(
                "{:<36}{:>20}{:>10}   ({title})",
                "Routine", "Bandwidth (GB/s)", "/memcpy"
            );
            for &variant in variants {
                let expected = if variant.is_copy() { &in_h } else { &gold };
                // The book presets the output to -1, so an element the kernel skips shows.
                gpu.upload_into(&try_vec(nx * ny, -1.0f32)?, &mut odata_d)?;
                let args = args(&mut odata_d, &idata_d, nx, ny)?;
                launch_from(gpu, None, variant, args)?;
                let ms = gpu.time_ms(|| (0..reps).try_for_each(|_| launch_from(gpu, None, variant, args)))?;
                let check = Check::compare(variant.kernel(), &gpu.download(&odata_d)?, expected, Tolerance::EXACT);
                let gb_per_s = 2.0 * mem_size as f64 * 1e-6 / (ms / reps as f64);
                if variant == Variant::Tutorial {
                    tutorial = Some((ms / reps as f64, check.max_abs_err));
                }
                if variant == Variant::PgiPaddedDiagonal && check.passed() {
                    transpose3_gb_per_s = Some(gb_per_s);
                }
                match check.passed() {
                    true => println!("{:<36}{gb_per_s:>20.2}{:>10.3}", variant.label(), gb_per_s / memcpy),
                    false => println!("{:<36}{:>20}", variant.label(), "*** Failed ***"),
                }
                checks.push(check);
            }
        }
        // Preset once, as the book does: an element no launch writes shows in the final check.
        gpu.upload_into(&try_vec(nx * ny, -1.0f32)?, &mut odata_d)?;
        let args = args(&mut odata_d, &idata_d, nx, ny)?;
        let (section_gb_per_s, every_block_stamped) = transpose3_section(gpu, args, reps)?;
        println!();
        println!(
            "PGI transpose3, the load/sync/store section alone (%globaltimer: first block's start to last block's end, median of {reps}): {:.2} GB/s, {:.3} of memcpy; whole kernel {} (article, GTX 280: about 100 GB/s, on par with STREAM)",
            section_gb_per_s,
            section_gb_per_s / memcpy,
            transpose3_gb_per_s.map_or("failed".into(), |g| format!("{g:.2} GB/s")),
        );
        let got = gpu.download(&odata_d)?;
        checks.push(Check::compare(
            "transpose3_section_timed",
            &got,
            &gold,
            Tolerance::EXACT,
        ));
        checks.push(Check::condition(
            "transpose3_section_timed: every block stamped a section that ends after it starts",
            every_block_stamped,
        ));
        if let Some((ms, max_difference)) = tutorial {
            // The tutorial's lines (its "Fortran" is the CPU: here the rayon transpose that made
            // `gold`; its GPU time is one launch, here the mean of the timed ones).
            println!();
            print_empty_kernel_time(gpu, reps.min(20))?;
            println!("CPU 2d transpose time= {cpu_s:.7E}");
            println!("GPU 2d transpose time= {:.7E}", ms * 1e-3);
            println!("2d transpose maximum difference = {max_difference:.6}");
        }
        Ok(Outcome { checks })
    }
}

/// The kernels: the book's five rows and its simple copy, the PGI article's three, the
/// tutorial's one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    SimpleCopy,
    CopySharedMem,
    Naive,
    Coalesced,
    NoBankConflicts,
    Diagonal,
    PgiNaive,
    PgiTile,
    PgiPaddedDiagonal,
    Tutorial,
}

/// Each variant's PTX symbol and row label, in the order of [`Variant`].
const NAMES: [(&str, &str); 10] = [
    ("simple_copy", "simple copy"),
    ("copy_shared_mem", "shared memory copy"),
    ("transpose_naive", "naive transpose"),
    ("transpose_coalesced", "coalesced transpose"),
    ("transpose_no_bank_conflicts", "conflict-free transpose"),
    ("transpose_diagonal", "diagonal transpose"),
    ("transpose1", "PGI transpose1 (naive)"),
    ("transpose2", "PGI transpose2 (16x16 tile)"),
    ("transpose3", "PGI transpose3 (17x16, diagonal)"),
    ("gtranspose2", "tutorial gtranspose2 (33x32)"),
];

impl Variant {
    pub const ALL: [Variant; 10] = [
        Variant::SimpleCopy,
        Variant::CopySharedMem,
        Variant::Naive,
        Variant::Coalesced,
        Variant::NoBankConflicts,
        Variant::Diagonal,
        Variant::PgiNaive,
        Variant::PgiTile,
        Variant::PgiPaddedDiagonal,
        Variant::Tutorial,
    ];

    /// The PTX symbol.
    pub fn kernel(self) -> &'static str {
        NAMES[self as usize].0
    }

    /// The row label: the book's, or the source and what the variant does.
    pub fn label(self) -> &'static str {
        NAMES[self as usize].1
    }

    /// True for the copies, which `odata = idata` rather than transpose.
    pub fn is_copy(self) -> bool {
        matches!(self, Variant::SimpleCopy | Variant::CopySharedMem)
    }

    /// (tile side, block rows, dynamic shared memory bytes).
    fn tile(self) -> (usize, usize, usize) {
        let bytes = |tile, pad, order| transpose_shared_bytes(tile, pad, order);
        match self {
            Variant::SimpleCopy | Variant::Naive => (TILE_DIM, BLOCK_ROWS, 0),
            Variant::CopySharedMem | Variant::Coalesced => (TILE_DIM, BLOCK_ROWS, bytes(TILE_DIM, 0, CARTESIAN)),
            Variant::NoBankConflicts => (TILE_DIM, BLOCK_ROWS, bytes(TILE_DIM, 1, CARTESIAN)),
            Variant::Diagonal => (TILE_DIM, BLOCK_ROWS, bytes(TILE_DIM, 1, DIAGONAL)),
            Variant::PgiNaive => (PGI_TILE, PGI_TILE, 0),
            Variant::PgiTile => (PGI_TILE, PGI_TILE, bytes(PGI_TILE, 0, CARTESIAN)),
            Variant::PgiPaddedDiagonal => (PGI_TILE, PGI_TILE, bytes(PGI_TILE, 1, DIAGONAL_SHARED)),
            Variant::Tutorial => (TUTORIAL_MX, TUTORIAL_MX, bytes(TUTORIAL_MX, 1, CARTESIAN)),
        }
    }

    /// One block of `tile x rows` threads per `tile x tile` tile of an `nx x ny` input, with the
    /// tile's shared memory.
    pub fn shape(self, nx: usize, ny: usize) -> Result<LaunchShape> {
        let (tile, rows, shared) = self.tile();
        let grid = LaunchShape::cover_2d(nx, ny, (tile as u32, tile as u32))?.grid;
        if grid.1 > MAX_GRID_Y {
            return Err(Error::InvalidArgument(format!(
                "{ny} rows need {} rows of {tile}-row tiles, more than a grid's {MAX_GRID_Y}",
                grid.1
            )));
        }
        Ok(LaunchShape::new(grid, (tile as u32, rows as u32, 1)).with_shared_bytes(shared as u32))
    }
}

/// The arguments for an `nx x ny` input `idata_d` (`ny` rows of `nx`) and an output of the same
/// element count; an error when the lengths or extents do not fit.
pub fn args<'a>(
    odata_d: &'a mut DeviceBuffer<f32>,
    idata_d: &'a DeviceBuffer<f32>,
    nx: usize,
    ny: usize,
) -> Result<TransposeArgs<'a>> {
    if nx.checked_mul(ny) != Some(idata_d.len()) || odata_d.len() != idata_d.len() {
        return Err(Error::InvalidArgument(format!(
            "a {nx} x {ny} transpose needs two buffers of {} elements, not {} and {}",
            nx.saturating_mul(ny),
            idata_d.len(),
            odata_d.len()
        )));
    }
    let extent = |v: usize| u32::try_from(v).map_err(|_| Error::InvalidArgument(format!("extent {v} exceeds u32")));
    Ok(TransposeArgs {
        odata: odata_d.view_mut(),
        idata: idata_d.view(),
        nx: extent(nx)?,
        ny: extent(ny)?,
    })
}

/// Launches `variant` with `args` from this library's kernels (`None`) or a CUDA C twin's
/// module, which has the same symbols.
pub fn launch_from(gpu: &Gpu, module: Option<&LoadedKernels>, variant: Variant, args: TransposeArgs<'_>) -> Result<()> {
    let shape = variant.shape(args.nx as usize, args.ny as usize)?;
    let kernels = gpu.load_or(module, &crate::KERNELS)?;
    match variant {
        Variant::SimpleCopy => kernels.launch(SimpleCopy, shape, args),
        Variant::CopySharedMem => kernels.launch(CopySharedMem, shape, args),
        Variant::Naive => kernels.launch(TransposeNaive, shape, args),
        Variant::Coalesced => kernels.launch(TransposeCoalesced, shape, args),
        Variant::NoBankConflicts => kernels.launch(TransposeNoBankConflicts, shape, args),
        Variant::Diagonal => kernels.launch(TransposeDiagonal, shape, args),
        Variant::PgiNaive => kernels.launch(Transpose1, shape, args),
        Variant::PgiTile => kernels.launch(Transpose2, shape, args),
        Variant::PgiPaddedDiagonal => kernels.launch(Transpose3, shape, args),
        Variant::Tutorial => kernels.launch(Gtranspose2, shape, args),
    }
}

/// `odata_d = idata_d^T` (or `= idata_d` for the copies) with `variant`; `idata_d` is `ny` rows
/// of `nx`.
pub fn transpose(
    gpu: &Gpu,
    variant: Variant,
    odata_d: &mut DeviceBuffer<f32>,
    idata_d: &DeviceBuffer<f32>,
    nx: usize,
    ny: usize,
) -> Result<()> {
    let args = args(odata_d, idata_d, nx, ny)?;
    launch_from(gpu, None, variant, args)
}

/// The input: element `i` is `1 + i * 2^-23` while that is exact, then larger, one f32 bit
/// pattern per element (`0x3f80_0000 + i`), so every element of up to [`MAX_ELEMENTS`] is
/// distinct and finite and a misplaced one always shows. (The book's `in_h(i,j) = i +
/// (j-1)*nx` repeats values beyond 2^24 elements, in f32.)
pub fn input(n: usize) -> Result<Vec<f32>> {
    if n > MAX_ELEMENTS {
        return Err(Error::InvalidArgument(format!(
            "at most {MAX_ELEMENTS} distinct inputs, not {n}"
        )));
    }
    try_from_fn(n, |i| f32::from_bits(0x3f80_0000 + i as u32))
}

/// Runs `transpose3_section_timed` `reps` times into `odata_d` and takes its stamps: its
/// load/sync/store section as the PGI article times it. Returns `2 * bytes / span`, the span the
/// first block's section start to the last one's end, median over the launches; and whether
/// every block wrote a start and a later end, in every launch.
fn transpose3_section(gpu: &Gpu, args: TransposeArgs<'_>, reps: usize) -> Result<(f64, bool)> {
    let (nx, ny) = (args.nx as usize, args.ny as usize);
    let shape = Variant::PgiPaddedDiagonal.shape(nx, ny)?;
    let blocks = shape.grid.0 as usize * shape.grid.1 as usize;
    let mut stamps_d = gpu.zeros::<u64>(2 * blocks)?;
    let mut spans_ms = Vec::with_capacity(reps);
    let mut every_block_stamped = true;
    let unstamped = vec![0u64; 2 * blocks];
    for _ in 0..reps.max(1) {
        gpu.upload_into(&unstamped, &mut stamps_d)?;
        let timed = SectionTimedArgs {
            odata: args.odata,
            idata: args.idata,
            nx: args.nx,
            ny: args.ny,
            stamps: stamps_d.view_mut(),
        };
        crate::kernels(gpu)?.launch(Transpose3SectionTimed, shape, timed)?;
        let stamps = gpu.download(&stamps_d)?;
        every_block_stamped &= stamps.chunks_exact(2).all(|s| s[0] > 0 && s[1] >= s[0]);
        let first = stamps.iter().step_by(2).min().copied().unwrap_or(0);
        let last = stamps.iter().skip(1).step_by(2).max().copied().unwrap_or(0);
        spans_ms.push(last.saturating_sub(first) as f64 * 1e-6);
    }
    let span_ms = Stats::of(&mut spans_ms).median_ms;
    Ok((
        ferrocuda::measure::gb_per_s(2 * nx * ny * size_of::<f32>(), span_ms),
        every_block_stamped,
    ))
}
