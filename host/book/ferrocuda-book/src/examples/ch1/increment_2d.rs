//! ch1-increment-2d: a 2-D grid of 2-D blocks over a 2-D array (book §1.3.3).
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::examples::ch1::increment_launch::{book_memory, book_program};
use book_kernels::ch1::increment_2d::{Increment2d, Increment2dArgs};
use ferrocuda::footprint::{self, Footprint};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};

/// The book's extents: `a(nx, ny)` with nx = 1024 contiguous, ny = 512.
pub const NX: usize = 1024;
pub const NY: usize = 512;
/// The book's `tBlock = dim3(32, 8, 1)`.
pub const BLOCK: (u32, u32) = (32, 8);

/// ch1-increment-2d: the book's program on `nx x 512`.
pub struct Ch1Increment2d;

impl Example for Ch1Increment2d {
    const ID: &'static str = "ch1-increment-2d";
    const DESCRIPTION: &'static str =
        "32x8 blocks on a 32x64 grid add b to a 1024x512 int array (book 1.3.3); --size sets nx";
    const SIZE: Option<Size> =
        Some(Size::new("nx, the contiguous extent of the nx x 512 int array", NX, NX).at_most(u32::MAX as usize));
    type Args = NoOptions;

    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        book_memory(footprint::elements(&[run.size, NY])?)
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let nx = run.size;
        book_program(gpu, elements(nx, NY)?, "increment_2d", |a_d, b| {
            increment(gpu, a_d, nx, NY, b, BLOCK)
        })
    }
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
