//! The rest of chapter 3 (issue 4): each lesson the book draws from a pair of kernels, measured
//! in one run as the ratio of the two times, the samples of the pair interleaved. Each row calls
//! its example's own launch function (`crate::examples::ch3::*`) at the example's GPU size, except
//! the offset and stride copies, which run at [`COPY_N`] elements so that the cache cannot hide
//! the wasted sectors. The transposes, the copies and the transfers have their own tables.
use super::{Settings, interleaved};
use crate::examples::ch3::offset_stride::{self, Cache, Pattern};
use crate::examples::ch3::sweep::BLOCK_SIZE;
use crate::examples::ch3::{
    async_overlap, bank_conflicts, constant_increment, divergence, intrinsics, localmem, stride_texture,
};
use book_kernels::ch3::constant_increment::COEFF_WORD;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::measure::Stats;

/// Elements per offset or stride copy: 64 Mi f32, 256 MiB read and 256 MiB written, five times
/// the H100's L2, as the book's 4 MB was past every cache of 2012.
pub const COPY_N: usize = 64 << 20;

/// One lesson: time A against time B, and what the ratio shows.
struct Lesson {
    name: &'static str,
    a_ms: f64,
    b_ms: f64,
    meaning: &'static str,
}

impl Lesson {
    fn new(name: &'static str, [a_ms, b_ms]: [f64; 2], meaning: &'static str) -> Self {
        Self {
            name,
            a_ms,
            b_ms,
            meaning,
        }
    }
}

/// The medians of `launch(a)` and `launch(b)`, interleaved ([`interleaved`]).
fn pair<V: Copy>(gpu: &Gpu, reps: usize, [a, b]: [V; 2], mut launch: impl FnMut(V) -> Result<()>) -> Result<[f64; 2]> {
    let (a_stats, b_stats) = interleaved(gpu, reps, true, |second| launch(if second { b } else { a }))?;
    Ok([a_stats.median_ms, b_stats.map_or(f64::NAN, |s| s.median_ms)])
}

/// Shared memory (§3.3.3.2): a warp reading 32 words 32 apart hits one bank 32 times, so stride
/// 32 against stride 1 is the cost of a 32-way conflict; one word of padding per row (stride 33)
/// spreads the column over all banks again, which is why the transpose's tile is 33 wide.
fn bank_conflicts(gpu: &Gpu, reps: usize) -> Result<[Lesson; 2]> {
    let blocks = gpu.properties().multiprocessor_count * bank_conflicts::BLOCKS_PER_SM;
    let mut out_d = gpu.zeros::<u32>(blocks as usize * bank_conflicts::THREADS_PER_BLOCK as usize)?;
    let mut run = |stride| bank_conflicts::launch(gpu, &mut out_d, stride, bank_conflicts::PASSES);
    Ok([
        Lesson::new(
            "bank conflicts: stride 32 / 1",
            pair(gpu, reps, [32, 1], &mut run)?,
            "a 32-way conflict serialises each warp's read",
        ),
        Lesson::new(
            "bank conflicts: padded 33 / 1",
            pair(gpu, reps, [33, 1], &mut run)?,
            "one word of padding removes the conflict",
        ),
    ])
}

/// Local memory (§3.2.4.1): the same 32 private values summed in the same order; indices known at
/// compile time keep the array in registers, run-time indices send it to local memory, which is
/// off-chip memory cached in L1.
fn localmem(gpu: &Gpu, reps: usize) -> Result<Lesson> {
    let x_d = gpu.upload(&vec![0.5f32; localmem::N])?;
    let mut a_d = gpu.zeros::<f32>(localmem::N)?;
    let variants = [localmem::Variant::Dynamic, localmem::Variant::Registers];
    Ok(Lesson::new(
        "local memory / registers",
        pair(gpu, reps, variants, |v| localmem::launch(gpu, v, &mut a_d, &x_d))?,
        "a private array indexed at run time leaves the registers",
    ))
}

/// Constant memory (§3.2.5): 64 polynomial coefficients that every thread reads, a warp-wide
/// broadcast. From global memory each read is a load through L1; from the constant bank, or from
/// the parameter block (which is constant bank 0), it is served by the constant cache.
fn constant(gpu: &Gpu, reps: usize) -> Result<[Lesson; 2]> {
    use constant_increment::{POLY_N, Source, coefficients, poly};
    let coeffs = coefficients();
    crate::kernels(gpu)?.write_constant(COEFF_WORD, &coeffs)?;
    let x_d = gpu.upload(&vec![0.5f32; POLY_N])?;
    let c_d = gpu.upload(&coeffs)?;
    let mut y_d = gpu.zeros::<f32>(POLY_N)?;
    let mut run = |source| poly(gpu, source, &mut y_d, &x_d, &c_d);
    Ok([
        Lesson::new(
            "coefficients: global / constant",
            pair(gpu, reps, [Source::Global, Source::Constant], &mut run)?,
            "a broadcast read costs more through L1 than the constant cache",
        ),
        Lesson::new(
            "coefficients: parameter / constant",
            pair(gpu, reps, [Source::Param, Source::Constant], &mut run)?,
            "parameters live in constant bank 0 too",
        ),
    ])
}

/// Intrinsics (§3.6.1): `sinf`, `expf` and IEEE division against `__sinf`, `__expf` and
/// `__fdividef` on the same inputs; the fast ones are single SFU instructions, the accurate ones
/// instruction sequences (the example prints the error each costs).
fn intrinsics(gpu: &Gpu, reps: usize) -> Result<Lesson> {
    let x_d = gpu.upload(&intrinsics::inputs(intrinsics::N)?)?;
    let mut y_d = gpu.zeros::<f32>(intrinsics::N)?;
    let variants = [intrinsics::Variant::Accurate, intrinsics::Variant::Fast];
    Ok(Lesson::new(
        "math: accurate / fast intrinsics",
        pair(gpu, reps, variants, |v| intrinsics::launch(gpu, v, &mut y_d, &x_d))?,
        "what -Mcuda=fastmath buys, in time",
    ))
}

/// Divergence (§3.6.3): the same work with the branch splitting every warp (`mod(i, 2)`) or
/// whole warps (`mod(i / warpsize, 2)`); a split warp runs both sides one after the other.
fn divergence(gpu: &Gpu, reps: usize) -> Result<Lesson> {
    let mut x_d = gpu.zeros::<f32>(divergence::N)?;
    let variants = [divergence::Variant::Divergent, divergence::Variant::WarpUniform];
    Ok(Lesson::new(
        "branch: divergent / warp-uniform",
        pair(gpu, reps, variants, |v| {
            divergence::launch(gpu, v, &mut x_d, divergence::THREADS_PER_BLOCK)
        })?,
        "a split warp runs both sides in turn",
    ))
}

/// Coalescing (§3.2.2): `b = a + 1` out of place, f32, at [`COPY_N`] elements. Offset 1 makes
/// each warp straddle one more 32-byte sector, stride 2 makes it fetch twice the sectors it uses;
/// past L2 both costs reach DRAM.
fn coalescing(gpu: &Gpu, reps: usize) -> Result<[Lesson; 2]> {
    // Room for stride 2: `2 (n - 1) + 1` elements.
    let a_d = gpu.upload(&vec![1.0f32; 2 * COPY_N])?;
    let mut b_d = gpu.zeros::<f32>(2 * COPY_N)?;
    let mut run = |(pattern, s): (Pattern, usize)| {
        offset_stride::out_of_place(gpu, pattern, Cache::L1, &a_d, &mut b_d, COPY_N, s, BLOCK_SIZE)
    };
    Ok([
        Lesson::new(
            "copy: offset 1 / 0",
            pair(gpu, reps, [(Pattern::Offset, 1), (Pattern::Offset, 0)], &mut run)?,
            "misaligned warps touch one extra sector each",
        ),
        Lesson::new(
            "copy: stride 2 / 1",
            pair(gpu, reps, [(Pattern::Stride, 2), (Pattern::Stride, 1)], &mut run)?,
            "half of every sector fetched is wasted",
        ),
    ])
}

/// The texture path (§3.2.3): `b[i] = a[2 i] + 1` at [`COPY_N`] outputs through `ld.global` or
/// the read-only `ld.global.nc`. The book's texture cache helped strided reads on Fermi; since
/// Maxwell it is L1, so the ratio says what the read-only path still adds.
fn read_only(gpu: &Gpu, reps: usize) -> Result<Lesson> {
    use stride_texture::{Load, stride_read};
    let a_d = gpu.upload(&vec![1.0f32; 2 * COPY_N])?;
    let mut b_d = gpu.zeros::<f32>(COPY_N)?;
    Ok(Lesson::new(
        "stride-2 read: read-only / global",
        pair(gpu, reps, [Load::ReadOnly, Load::Global], |load| {
            stride_read(gpu, load, &a_d, &mut b_d, 2, BLOCK_SIZE)
        })?,
        "below 1 only if ld.global.nc still helps",
    ))
}

/// Streams (§3.1.3), at the book's 16 MB and 4 streams: the fastest of V1, V2 and V3 against copy
/// in, kernel, copy out in sequence, each timed by the example (events in stream 0), rounds
/// interleaved. Where the kernel is short next to the copies (an H100), only the two copy
/// directions overlap, which bounds the ratio below by `(1 + 1/4) / 2`.
fn overlap(gpu: &Gpu, reps: usize) -> Result<Lesson> {
    use async_overlap::{N, N_STREAMS, Setup, Variant, timed};
    let mut setup = Setup::new(gpu, N, N_STREAMS)?;
    let mut samples = vec![Vec::new(); Variant::ALL.len()];
    for round in 0..=reps.max(1) {
        for (k, variant) in Variant::ALL.into_iter().enumerate() {
            let (ms, _) = timed(gpu, &mut setup, variant)?;
            // Round 0 is the warm-up.
            if round > 0 {
                samples[k].push(ms);
            }
        }
    }
    let medians: Vec<f64> = samples.iter_mut().map(|s| Stats::of(s).median_ms).collect();
    let best = medians[1..].iter().copied().fold(f64::INFINITY, f64::min);
    Ok(Lesson::new(
        "async: best of V1-V3 / sequential",
        [best, medians[0]],
        "copies in and out overlap across streams",
    ))
}

/// Measures every lesson and prints their table.
pub fn run(gpu: &Gpu, settings: &Settings) -> Result<()> {
    let reps = settings.reps;
    let mut lessons = Vec::new();
    lessons.extend(bank_conflicts(gpu, reps)?);
    lessons.push(localmem(gpu, reps)?);
    lessons.extend(constant(gpu, reps)?);
    lessons.push(intrinsics(gpu, reps)?);
    lessons.push(divergence(gpu, reps)?);
    lessons.extend(coalescing(gpu, reps)?);
    lessons.push(read_only(gpu, reps)?);
    lessons.push(overlap(gpu, reps)?);
    println!();
    println!("chapter 3 lessons, each as time A / time B measured in this run:");
    println!(
        "{:<36} {:>10} {:>10} {:>7}  meaning",
        "A / B", "A (ms)", "B (ms)", "A/B"
    );
    for l in &lessons {
        println!(
            "{:<36} {:>10.4} {:>10.4} {:>7.3}  {}",
            l.name,
            l.a_ms,
            l.b_ms,
            l.a_ms / l.b_ms,
            l.meaning
        );
    }
    println!(
        "(median of {reps} interleaved runs each; copies f32 out of place at {COPY_N} elements; the rest at each example's GPU size)"
    );
    Ok(())
}
