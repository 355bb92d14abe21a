//! ch3-cuf-increment-2d: the book's two-level CUF kernel loop (book §3.7,
//! `!$cuf kernel do (2) <<<(*,*), (32,8)>>>` over `a(n, n)`, n = 4*1024): blocks of 32 x 8,
//! `threadIdx%x` along the inner, contiguous `i`, the grid chosen to cover the array
//! (128 x 512 blocks for n = 4096). The loop body is the book kernel `cuf_increment_2d`, a 2-D
//! grid-stride loop; `ferrocuda::cuf` chooses the shape.
use crate::example::{Example, NoOptions, Outcome, Run, Size, print_kernel_time};
use crate::reference;
use book_kernels::ch3::cuf_increment_2d::{CufIncrement2d, CufIncrement2dArgs};
use ferrocuda::cuf::{Dim, KernelLoop};
use ferrocuda::footprint::{self, Footprint, try_from_fn};
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, Result};
use ferrocuda::measure::time_reps;
use ferrocuda::verify::{Check, Tolerance};

/// The book's `n = 4*1024`, and the simulator's (a sixteenth of the elements: seconds, not a
/// minute).
pub const N: usize = 4 * 1024;
pub const SIMULATOR_N: usize = 1024;
/// The book's block, `(32, 8)`.
pub const BLOCK: (u32, u32) = (32, 8);
pub const B: i32 = 3;

/// ch3-cuf-increment-2d.
pub struct Ch3CufIncrement2d;

impl Example for Ch3CufIncrement2d {
    const ID: &'static str = "ch3-cuf-increment-2d";
    const DESCRIPTION: &'static str = "!$cuf kernel do (2) <<<(*,*),(32,8)>>>: a(i,j) = a(i,j) + b over a 4096 x 4096 int array (book 3.7); --size sets n";
    const SIZE: Option<Size> =
        Some(Size::new("n, the side of the n x n int array", N, SIMULATOR_N).at_most(u32::MAX as usize));
    const REPS: bool = true;
    type Args = NoOptions;

    /// The run's peak at side `n`: `a_d` on the device; `a`, its reference and a download on
    /// the host; `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        let elements = footprint::elements(&[run.size, run.size])?;
        Footprint::NONE.device::<i32>(1, elements)?.host::<i32>(3, elements)
    }

    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let elements = footprint::elements(&[n, n]).ok_or_else(|| {
            Error::InvalidArgument(format!(
                "an {n} x {n} array has more elements than this machine can count"
            ))
        })?;
        let cuf_loop = kernel_loop(n, n)?;
        let a = input(elements)?;
        let expected = reference::ch3::cuf::increment(&a, B);
        let mut a_d = gpu.upload(&a)?;
        increment(gpu, &cuf_loop, &mut a_d, B)?;
        let check = Check::compare("a", &gpu.download(&a_d)?, &expected, Tolerance::EXACT);
        println!(
            " !$cuf kernel do (2) <<<(*,*),({},{})>>> over a({n},{n})",
            BLOCK.0, BLOCK.1
        );
        println!(
            "   {cuf_loop}, {} element(s) per thread",
            cuf_loop.elements_per_thread()
        );
        match check.passed() {
            true => println!(" Program Passed"),
            false => println!(" **** Program Failed ****"),
        }
        let stats = time_reps(gpu, run.reps, || increment(gpu, &cuf_loop, &mut a_d, B))?;
        print_kernel_time(
            gpu,
            "cuf_increment_2d",
            stats.median_ms,
            2 * elements * size_of::<i32>(),
        );
        Ok(Outcome { checks: vec![check] })
    }
}

/// The book's loop over `nx x ny`: `<<<(*,*), (32,8)>>>`.
pub fn kernel_loop(nx: usize, ny: usize) -> Result<KernelLoop> {
    KernelLoop::new_2d(
        nx,
        ny,
        (Dim::Auto, Dim::Auto),
        (Dim::Fixed(BLOCK.0), Dim::Fixed(BLOCK.1)),
    )
}

/// `a_d[j * nx + i] += b` over the loop's `nx x ny`, launched as `cuf_loop`.
pub fn increment(gpu: &Gpu, cuf_loop: &KernelLoop, a_d: &mut DeviceBuffer<i32>, b: i32) -> Result<()> {
    let (nx, ny) = cuf_loop.extent();
    if footprint::elements(&[nx, ny]) != Some(a_d.len()) {
        return Err(Error::InvalidArgument(format!(
            "a {nx} x {ny} loop needs {nx} x {ny} elements, the array holds {}",
            a_d.len()
        )));
    }
    let extent = |v: usize| {
        u32::try_from(v).map_err(|_| Error::InvalidArgument(format!("extent {v} is more than the kernel's u32 holds")))
    };
    let args = CufIncrement2dArgs {
        a: a_d.view_mut(),
        nx: extent(nx)?,
        ny: extent(ny)?,
        b,
    };
    cuf_loop.launch(&crate::kernels(gpu)?, CufIncrement2d, args)
}

/// The input: a ramp over the whole array, so a moved element shows.
pub fn input(elements: usize) -> Result<Vec<i32>> {
    try_from_fn(elements, |k| (k % 1009) as i32)
}
