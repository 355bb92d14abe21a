//! ch1-increment-2d: a 2-D grid of 2-D blocks over a 2-D array (book §1.3.3).
use crate::example::{LegacyExample, LegacySize, Options, Outcome, print_kernel_time};
use crate::reference;
use book_kernels::ch1::increment_2d::{Increment2d, Increment2dArgs};
use ferrocuda::footprint::{self, Footprint, try_vec};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch1-increment-2d",
    description: "32x8 blocks on a 32x64 grid add b to a 1024x512 int array (book 1.3.3); --size sets nx",
    size: Some(LegacySize {
        unit: "nx, the contiguous extent of the nx x 512 int array",
        gpu: NX,
        simulator: NX,
        min: 1,
        max: u32::MAX as usize,
        memory,
    }),
    f64: false,
    reps: false,
    flags: &[],
    run,
};

/// The book's extents: `a(nx, ny)` with nx = 1024 contiguous, ny = 512.
pub const NX: usize = 1024;
pub const NY: usize = 512;
/// The book's `tBlock = dim3(32, 8, 1)`.
pub const BLOCK: (u32, u32) = (32, 8);

/// The run's peak at `nx`: the array and a warm-up copy on the device, the array and its
/// download on the host; `None` on overflow.
pub fn memory(_: &Options, _gpu: &Gpu, nx: usize) -> Option<Footprint> {
    Footprint::NONE.mirrored::<i32>(2, footprint::elements(&[nx, NY])?)
}

/// `nx * ny`, or a sentence saying it overflows.
fn elements(nx: usize, ny: usize) -> Result<usize> {
    footprint::elements(&[nx, ny]).ok_or_else(|| {
        Error::InvalidArgument(format!(
            "a {nx} x {ny} array has more elements than this machine can count"
        ))
    })
}

/// `a_d[j * nx + i] += b` over `nx x ny`, with blocks of `block` threads.
pub fn increment(
    gpu: &Gpu,
    a_d: &mut DeviceBuffer<i32>,
    nx: usize,
    ny: usize,
    b: i32,
    block: (u32, u32),
) -> Result<()> {
    let needed = elements(nx, ny)?;
    if needed != a_d.len() {
        return Err(Error::InvalidArgument(format!(
            "a {nx} x {ny} array needs {needed} elements, the buffer has {}",
            a_d.len()
        )));
    }
    let extent = |v: usize| u32::try_from(v).map_err(|_| Error::InvalidArgument(format!("extent {v} exceeds u32")));
    let args = Increment2dArgs {
        a: a_d.view_mut(),
        nx: extent(nx)?,
        ny: extent(ny)?,
        b,
    };
    crate::kernels(gpu)?.launch(Increment2d, LaunchShape::cover_2d(nx, ny, block)?, args)
}

/// The book's program: 1024 x 512, `a = 1`, `b = 3`, check `a == 4`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let nx = options.size_or(NX)?;
    let ny = NY;
    let b = 3;
    let mut a = try_vec(elements(nx, ny)?, 1)?;
    let mut a_d = gpu.upload(&a)?;
    // A first launch loads the kernel (CUDA loads modules lazily); run it on a scratch copy so
    // the timed launch is the kernel alone and `a_d` is incremented once.
    let mut warm_d = gpu.upload(&a)?;
    increment(gpu, &mut warm_d, nx, ny, b, BLOCK)?;
    let ms = gpu.time_ms(|| increment(gpu, &mut a_d, nx, ny, b, BLOCK))?;
    let gpu_a = gpu.download(&a_d)?;
    reference::ch1::increment::increment(&mut a, b);
    let check = Check::compare("a", &gpu_a, &a, Tolerance::EXACT);
    println!(
        "{}",
        if check.passed() {
            "Program Passed"
        } else {
            "**** Program Failed ****"
        }
    );
    print_kernel_time(gpu, "increment_2d", ms, 2 * a.len() * size_of::<i32>());
    Ok(Outcome { checks: vec![check] })
}
