//! What the course's vector-add programs share (`course-vector-add` and its managed, multi-GPU
//! and streams versions): the course's sizes and inputs, its kernel's launch, and the managed
//! arrays of hands-on 2b and 3b.
use book_kernels::course::vector_add::{VecAddArgs, VecAddKernel};
use ferrocuda::gpu::{Error, Gpu, KernelView, LaunchShape, ManagedBuffer, Result, Stream, same_len};
use std::ops::Range;

/// The course's `n`.
pub const N: usize = 10_000_000;
/// The course's block size.
pub const THREADS_PER_BLOCK: u32 = 256;
/// The course's inputs.
pub const A_VALUE: f32 = 1.0;
pub const B_VALUE: f32 = 2.0;

/// Element `i` of A and of B varied along the arrays, so that an element at a wrong index
/// shows: `A = 1 + (i mod 97)`, `B = 2 + (i mod 89) / 2`.
pub fn varied(i: usize) -> (f32, f32) {
    (1.0 + (i % 97) as f32, 2.0 + (i % 89) as f32 * 0.5)
}

/// `c = a + b` over `args` (views of one length): `ceil(n/256)` blocks of 256 threads, on
/// `stream` or, for `None`, the `Gpu`'s stream.
pub fn launch(gpu: &Gpu, stream: Option<&Stream>, args: VecAddArgs<'_>) -> Result<()> {
    let n = same_len("vector add", &[args.a.len(), args.b.len(), args.c.len()])?;
    let shape = LaunchShape::cover_1d(n, THREADS_PER_BLOCK)?;
    match stream {
        Some(stream) => crate::kernels(gpu)?.launch_on(stream, VecAddKernel, shape, args),
        None => crate::kernels(gpu)?.launch(VecAddKernel, shape, args),
    }
}

/// `args` restricted to the elements `range` (a chunk, one device's piece).
pub fn range_of<'a>(args: VecAddArgs<'a>, range: &Range<usize>) -> Result<VecAddArgs<'a>> {
    let outside = || {
        Error::InvalidArgument(format!(
            "elements {range:?} do not lie inside arrays of {} elements",
            args.c.len()
        ))
    };
    Ok(VecAddArgs {
        a: args.a.subview(range.clone()).ok_or_else(outside)?,
        b: args.b.subview(range.clone()).ok_or_else(outside)?,
        c: args.c.subview(range.clone()).ok_or_else(outside)?,
    })
}

/// `c_d = a_d + b_d`, on device or managed buffers.
pub fn vector_add<B: KernelView<f32>>(gpu: &Gpu, a_d: &B, b_d: &B, c_d: &mut B) -> Result<()> {
    let args = VecAddArgs {
        a: a_d.view(),
        b: b_d.view(),
        c: c_d.view_mut(),
    };
    launch(gpu, None, args)
}

/// The three managed arrays of the course's managed programs.
pub struct Arrays {
    pub a: ManagedBuffer<f32>,
    pub b: ManagedBuffer<f32>,
    pub c: ManagedBuffer<f32>,
}

impl Arrays {
    /// Three managed arrays of `n` floats.
    pub fn new(gpu: &Gpu, n: usize) -> Result<Self> {
        Ok(Self {
            a: gpu.managed(n)?,
            b: gpu.managed(n)?,
            c: gpu.managed(n)?,
        })
    }

    /// The host writes A = 1, B = 2 and C = NaN (so an element the kernel misses shows), which
    /// puts every page in host memory, as in the course's programs.
    pub fn fill(&mut self) -> Result<()> {
        self.a.as_mut_slice()?.fill(A_VALUE);
        self.b.as_mut_slice()?.fill(B_VALUE);
        self.c.as_mut_slice()?.fill(f32::NAN);
        Ok(())
    }

    /// The kernel's arguments over all of A, B and C.
    pub fn args(&mut self) -> VecAddArgs<'_> {
        VecAddArgs {
            a: self.a.view(),
            b: self.b.view(),
            c: self.c.view_mut(),
        }
    }

    /// The elements of C that are not `A_VALUE + B_VALUE`, read by the host in place (waiting
    /// for the device that allocated C).
    pub fn wrong(&mut self) -> Result<usize> {
        Ok(self.c.as_slice()?.iter().filter(|&&x| x != A_VALUE + B_VALUE).count())
    }
}
