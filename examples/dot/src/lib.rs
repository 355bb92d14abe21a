//! A dot product of two `f32` vectors on an NVIDIA GPU, or on the CPU simulator when there is
//! none: one launch of [`dot_partials`](kernels::dot_partials) leaves one partial sum per block,
//! and the host adds the partials.
//!
//! The kernel lives in its own `no_std` crate (`kernels/`, library `dot_kernels`); `build.rs`
//! compiles it to PTX, [`KERNELS`] embeds that PTX, and this crate also depends on the kernel
//! crate as an ordinary one, for its argument struct and launch handle.
use dot_kernels::{DotArgs, DotPartials};
use ferrocuda::{Error, Gpu, KernelSet, KernelView, LaunchShape, Result};

/// The kernel crate, for launching its kernels directly.
pub use dot_kernels as kernels;

/// The PTX of `dot-kernels`, one module per architecture in `FERROCUDA_ARCHS` (default sm_90).
pub static KERNELS: KernelSet = ferrocuda::include_kernels!("dot_kernels");

/// Threads per block [`dot`] launches.
pub const THREADS: u32 = 256;

/// `Σ x[i] y[i]` on `gpu`, with blocks of [`THREADS`] threads; an error names the kernel when
/// `x` and `y` differ in length.
pub fn dot(gpu: &Gpu, x: &[f32], y: &[f32]) -> Result<f32> {
    dot_with_block(gpu, x, y, THREADS)
}

/// [`dot`] with blocks of `threads` threads: a multiple of 32 (the kernel's warp reduction needs
/// whole warps), at most the device's limit (1024).
pub fn dot_with_block(gpu: &Gpu, x: &[f32], y: &[f32], threads: u32) -> Result<f32> {
    let shape = launch_shape(gpu, x.len(), threads)?;
    let x_d = gpu.upload(x)?;
    let y_d = gpu.upload(y)?;
    let mut partials_d = gpu.zeros::<f32>(shape.grid.0 as usize)?;
    let args = DotArgs {
        x: x_d.view(),
        y: y_d.view(),
        partials: partials_d.view_mut(),
    };
    gpu.load(&KERNELS)?.launch(DotPartials, shape, args)?;
    // One partial per block: a few hundred at most, added on the host in f64.
    let partials = gpu.download(&partials_d)?;
    Ok(partials.iter().map(|&p| f64::from(p)).sum::<f64>() as f32)
}

/// The launch [`dot_with_block`] makes for `n` elements: blocks of `threads` threads, one
/// thread per element but no more blocks than the device holds at once (the grid-stride loop
/// covers the rest), and the shared memory the kernel's tile needs.
///
/// Fails with one sentence when `threads` is not a positive multiple of 32.
pub fn launch_shape(gpu: &Gpu, n: usize, threads: u32) -> Result<LaunchShape> {
    if threads == 0 || !threads.is_multiple_of(32) {
        return Err(Error::InvalidArgument(format!(
            "dot_partials reduces whole warps, so its blocks need a positive multiple of 32 threads, not {threads}"
        )));
    }
    let p = gpu.properties();
    let resident_blocks = p.multiprocessor_count * (p.max_threads_per_multiprocessor / threads).max(1);
    let blocks = LaunchShape::cover_1d(n, threads)?.grid.0.min(resident_blocks.max(1));
    let shared = dot_kernels::shared_bytes(threads as usize) as u32;
    Ok(LaunchShape::new((blocks, 1, 1), (threads, 1, 1)).with_shared_bytes(shared))
}

/// The exact dot product (to f64 accuracy) and `Σ |x[i] y[i]|`, accumulated in f64 on the CPU:
/// the reference [`dot`] is checked against, and the scale of its error bound.
pub fn cpu_reference(x: &[f32], y: &[f32]) -> (f64, f64) {
    x.iter().zip(y).fold((0.0, 0.0), |(sum, abs), (&a, &b)| {
        let product = f64::from(a) * f64::from(b);
        (sum + product, abs + product.abs())
    })
}

/// The bound on `|dot - exact| / Σ|x[i] y[i]|` for `n` elements launched as `shape`.
///
/// Each product `x[i] y[i]` reaches the result through at most `k` roundings to f32 (unit
/// roundoff `u = 2^-24`): its own, the `m = ceil(n / threads in the grid)` additions of its
/// thread's grid-stride loop, 5 in its warp's shuffles, 5 in warp 0's, and the final conversion
/// of the f64 sum of the partials (whose own error, in f64, is negligible): `k = m + 12`. Whatever
/// the order of the additions, the error is then at most `γ_k Σ|x[i] y[i]|` with
/// `γ_k = k u / (1 - k u)` (Higham, *Accuracy and Stability of Numerical Algorithms*, §3.1). For
/// non-negative inputs `Σ|x[i] y[i]|` is the result itself, so this is a relative tolerance.
pub fn relative_tolerance(shape: &LaunchShape, n: usize) -> f64 {
    let threads_in_grid = shape.grid.0 as usize * shape.block.0 as usize;
    let k = (n.div_ceil(threads_in_grid.max(1)) + 12) as f64;
    let u = f64::from(f32::EPSILON) / 2.0;
    k * u / (1.0 - k * u)
}

/// `n` deterministic values in `[0, 1)`, different for each `seed`: a 64-bit linear congruential
/// generator (Knuth's MMIX constants), its top 24 bits as the fraction.
pub fn sample(n: usize, seed: u64) -> Vec<f32> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            (state >> 40) as f32 / (1u64 << 24) as f32
        })
        .collect()
}
