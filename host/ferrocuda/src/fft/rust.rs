//! The Rust engine: a plan as a list of launches of `gpu_kernels::fft`'s kernels, with their
//! twiddle tables and scratch memory.
//!
//! - A row of `n <= 4096` is one [`fft_rows`](gpu_kernels::fft::fft_rows) launch (one pass
//!   through global memory); a longer one (up to 2^24) two, the four-step algorithm: `n = n1 n2`,
//!   transforms of `n1` down the columns of the row read as an `n1 x n2` matrix, times the
//!   twiddles `w_n^(n2 k1)`, into scratch; then transforms of `n2` along its rows, written
//!   transposed.
//! - A 2-D or 3-D array: one launch per dimension; the outer dimensions transform columns (lanes
//!   of a warp on neighbouring columns, so loads and stores coalesce).
//! - R2C: the complex transform of `nx / 2` on the real rows read as complex, then `r2c_post`;
//!   then the outer dimensions. C2R: the outer dimensions (into scratch), `c2r_pre`, then the
//!   inverse complex transform of `nx / 2` in place on the real output read as complex.
use super::{Complex, Shape, Transform, twiddle};
use crate::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, LoadedKernels, Result, Stream};
use ferrocuda_device::complex::ComplexScalar;
use ferrocuda_device::global::{Slice, SliceMut};
use gpu_kernels::fft::{
    C2rPre, FftRows, FftRowsArgs, MAX_BLOCK_N, R2cPost, RealPassArgs, RowLayout, pairs_per_row, shared_bytes,
    threads_per_row,
};

/// Threads per block the row launches aim for (several rows per block when rows are short).
const TARGET_THREADS: u32 = 256;
/// Shared memory per block the row launches stay within when they hold several rows: 48 KiB,
/// what a block gets without opting in (a single longer row opts in, up to the device's limit).
const SHARED_BUDGET_BYTES: usize = 48 * 1024;
/// Threads per block of the real-transform passes.
const REAL_THREADS: u32 = 256;
/// The longest row of the four-step path: two passes of at most `MAX_BLOCK_N`.
const MAX_FOUR_STEP_N: usize = (MAX_BLOCK_N as usize) * (MAX_BLOCK_N as usize);

/// Launches of the FFT kernels for one precision.
pub trait LaunchFft: ComplexScalar {
    /// `fft_rows` with `args`, on `stream` or the device's.
    fn launch_rows(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        args: FftRowsArgs<'_, Self>,
    ) -> Result<()>;
    /// `r2c_post` (`post`) or `c2r_pre` with `args`.
    fn launch_real(
        kernels: &LoadedKernels,
        stream: Option<&Stream>,
        shape: LaunchShape,
        post: bool,
        args: RealPassArgs<'_, Self>,
    ) -> Result<()>;
}

macro_rules! launch_fft {
    ($($t:ty),*) => {$(
        impl LaunchFft for $t {
            fn launch_rows(kernels: &LoadedKernels, stream: Option<&Stream>, shape: LaunchShape, args: FftRowsArgs<'_, Self>) -> Result<()> {
                match stream {
                    Some(s) => kernels.launch_on(s, FftRows, shape, args),
                    None => kernels.launch(FftRows, shape, args),
                }
            }
            fn launch_real(kernels: &LoadedKernels, stream: Option<&Stream>, shape: LaunchShape, post: bool, args: RealPassArgs<'_, Self>) -> Result<()> {
                match (stream, post) {
                    (Some(s), true) => kernels.launch_on(s, R2cPost, shape, args),
                    (Some(s), false) => kernels.launch_on(s, C2rPre, shape, args),
                    (None, true) => kernels.launch(R2cPost, shape, args),
                    (None, false) => kernels.launch(C2rPre, shape, args),
                }
            }
        }
    )*};
}
launch_fft!(f32, f64);

/// Which buffer a launch reads or writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Buf {
    Input,
    Output,
    Scratch,
}

/// One `fft_rows` launch.
#[derive(Clone, Copy, Debug)]
struct RowsStep {
    from: Buf,
    to: Buf,
    input_layout: RowLayout,
    output_layout: RowLayout,
    log2_n: u32,
    log2_rows_per_block: u32,
    rows: u32,
    /// The plan's own direction: C2C plans flip it for the inverse.
    inverse: bool,
    table: usize,
    /// Four-step twiddles: (low table, high table, rows, log2 of the low table's length).
    step: Option<(usize, usize, u32, u32)>,
    shape: LaunchShape,
}

/// One `r2c_post` (`post`) or `c2r_pre` launch.
#[derive(Clone, Copy, Debug)]
struct RealStep {
    post: bool,
    from: Buf,
    to: Buf,
    half_n: u32,
    rows: u32,
    input_distance: usize,
    output_distance: usize,
    table: usize,
    shape: LaunchShape,
}

#[derive(Clone, Copy, Debug)]
enum Step {
    Rows(RowsStep),
    Real(RealStep),
}

/// The input and output of one execution, as complex views (real buffers read as pairs).
pub struct Io<'a, T: ComplexScalar> {
    input: Slice<'a, Complex<T>>,
    output: SliceMut<'a, Complex<T>>,
}

impl<'a, T: super::FftFloat> Io<'a, T> {
    pub(super) fn complex(input: &'a DeviceBuffer<Complex<T>>, output: &'a mut DeviceBuffer<Complex<T>>) -> Self {
        Self {
            input: input.view(),
            output: output.view_mut(),
        }
    }

    pub(super) fn in_place(data: &'a mut DeviceBuffer<Complex<T>>) -> Self {
        let output = data.view_mut();
        Self {
            input: read_view(&output),
            output,
        }
    }

    pub(super) fn real_in(input: &'a DeviceBuffer<T>, output: &'a mut DeviceBuffer<Complex<T>>) -> Self {
        let real = input.view();
        // SAFETY: the allocation starts 256-byte aligned and holds `len` reals, so its first
        // `len / 2` pairs are `Complex<T>` (`#[repr(C)]` pairs of `T`) inside it.
        let input = unsafe { Slice::from_raw_parts(real.as_ptr().cast::<Complex<T>>(), real.len() / 2) };
        Self {
            input,
            output: output.view_mut(),
        }
    }

    /// A padded real array (`2 (nx / 2 + 1)` values per row), read and written as its
    /// `nx / 2 + 1` complex values per row: cuFFT's in-place R2C and C2R layout.
    pub(super) fn real_in_place(data: &'a mut DeviceBuffer<T>) -> Self {
        let real = data.view_mut();
        // SAFETY: as in `real_in`; one writable view, its read-only twin for the same launches
        // (see `read_view`).
        let output = unsafe { SliceMut::from_raw_parts(real.as_mut_ptr().cast::<Complex<T>>(), real.len() / 2) };
        Self {
            input: read_view(&output),
            output,
        }
    }

    pub(super) fn real_out(input: &'a mut DeviceBuffer<Complex<T>>, output: &'a mut DeviceBuffer<T>) -> Self {
        let real = output.view_mut();
        // SAFETY: as in `real_in`, and the `&mut` borrow makes this the only writable view.
        let output = unsafe { SliceMut::from_raw_parts(real.as_mut_ptr().cast::<Complex<T>>(), real.len() / 2) };
        Self {
            input: input.view(),
            output,
        }
    }
}

/// A read-only view of what `view` addresses, for a launch that reads and writes one buffer.
fn read_view<'a, T: ComplexScalar>(view: &SliceMut<'_, Complex<T>>) -> Slice<'a, Complex<T>> {
    // SAFETY: the same live allocation as `view`; the kernels given both views of one buffer
    // read every element a block writes before writing it (`fft_rows` loads its rows to shared
    // memory first, `r2c_post` reads both values of its pair first).
    unsafe { Slice::from_raw_parts(view.as_mut_ptr().cast_const(), view.len()) }
}

/// The Rust engine's plan.
pub struct RustPlan<T: ComplexScalar> {
    shape: Shape,
    transform: Transform,
    /// The launches with distinct input and output (and the in-place C2C).
    steps: Vec<Step>,
    /// The launches of the in-place real transforms (padded rows), built on first use.
    in_place_steps: Option<Vec<Step>>,
    tables: Vec<DeviceBuffer<Complex<T>>>,
    /// `(n, count)` of each table: `exp(-2 pi i m / n)`, `m < count`.
    keys: Vec<(u64, u64)>,
    scratch: Option<DeviceBuffer<Complex<T>>>,
}

impl<T: super::FftFloat> RustPlan<T> {
    /// The launches of `transform` over `shape`.
    pub fn new(gpu: &Gpu, shape: &Shape, transform: Transform) -> Result<Self> {
        for &d in shape.dims() {
            if !d.is_power_of_two() {
                return Err(Error::InvalidArgument(format!(
                    "the Rust FFT engine takes powers of two, and {d} is not one (cuFFT, Engine::Cufft on a GPU, takes any size)"
                )));
            }
        }
        let mut plan = Self {
            shape: *shape,
            transform,
            steps: Vec::new(),
            in_place_steps: None,
            tables: Vec::new(),
            keys: Vec::new(),
            scratch: None,
        };
        plan.steps = plan.build(gpu, false)?;
        Ok(plan)
    }

    /// The launches, out of place or (real transforms) in place on padded rows; allocates the
    /// scratch memory and tables they need.
    fn build(&mut self, gpu: &Gpu, in_place: bool) -> Result<Vec<Step>> {
        let shape = self.shape;
        let mut b = Builder::<T> {
            gpu,
            steps: Vec::new(),
            tables: &mut self.tables,
            keys: &mut self.keys,
            scratch_len: 0,
        };
        let dims = shape.dims();
        let nx = shape.nx();
        let rows = shape.rows();
        let h = nx / 2;
        match (self.transform, in_place) {
            (Transform::C2c, _) => {
                b.line_pass(nx, rows, (Buf::Input, Buf::Output), (nx, nx), false)?;
                b.outer_passes(&shape, nx, (Buf::Output, Buf::Output), false)?;
            }
            (Transform::R2c, _) => {
                // In place, the real rows are padded to `h + 1` pairs.
                let d_in = if in_place { h + 1 } else { h };
                b.line_pass(h, rows, (Buf::Input, Buf::Output), (d_in, h + 1), false)?;
                b.real_pass(true, nx, rows, (Buf::Output, Buf::Output), (h + 1, h + 1))?;
                b.outer_passes(&shape, h + 1, (Buf::Output, Buf::Output), false)?;
            }
            (Transform::C2r, false) => {
                let spectrum = if dims.len() > 1 {
                    b.scratch_len = b.scratch_len.max(shape.half_spectrum_len());
                    b.outer_passes(&shape, h + 1, (Buf::Input, Buf::Scratch), true)?;
                    Buf::Scratch
                } else {
                    Buf::Input
                };
                b.real_pass(false, nx, rows, (spectrum, Buf::Output), (h + 1, h))?;
                b.line_pass(h, rows, (Buf::Output, Buf::Output), (h, h), true)?;
            }
            (Transform::C2r, true) => {
                // The outer dimensions in place; the rows, which shrink from `h + 1` pairs to
                // `h`, through scratch; the inverse rows back into the padded real rows.
                b.outer_passes(&shape, h + 1, (Buf::Output, Buf::Output), true)?;
                b.scratch_len = b.scratch_len.max(rows * h);
                b.real_pass(false, nx, rows, (Buf::Output, Buf::Scratch), (h + 1, h))?;
                b.line_pass(h, rows, (Buf::Scratch, Buf::Output), (h, h + 1), true)?;
            }
        }
        let (steps, scratch_len) = (b.steps, b.scratch_len);
        if scratch_len > self.scratch.as_ref().map_or(0, |s| s.len()) {
            self.scratch = Some(gpu.zeros(scratch_len)?);
        }
        Ok(steps)
    }

    /// The launches of the in-place real transforms, built on first use.
    pub(super) fn prepare_in_place(&mut self, gpu: &Gpu) -> Result<()> {
        if self.in_place_steps.is_none() {
            self.in_place_steps = Some(self.build(gpu, true)?);
        }
        Ok(())
    }

    /// Kernel launches per execution: each one pass through global memory.
    pub fn launches(&self) -> usize {
        self.steps.len()
    }

    /// Queues the plan's launches on `stream` (or the device's); `flip` inverts every complex
    /// pass (a C2C plan's inverse).
    /// `padded` selects the in-place real transforms' launches (`RustPlan::prepare_in_place`
    /// first).
    pub fn execute(
        &mut self,
        gpu: &Gpu,
        stream: Option<&Stream>,
        io: Io<'_, T>,
        flip: bool,
        padded: bool,
    ) -> Result<()> {
        let kernels = gpu.load(&crate::ptx::LIBRARY)?;
        let steps = match (padded, &self.in_place_steps) {
            (false, _) => &self.steps,
            (true, Some(steps)) => steps,
            (true, None) => return Err(Error::InvalidArgument("the in-place launches were not prepared".into())),
        };
        let scratch = match &mut self.scratch {
            Some(s) => s.view_mut(),
            None => io.output,
        };
        let read = |b: Buf| match b {
            Buf::Input => io.input,
            Buf::Output => read_view(&io.output),
            Buf::Scratch => read_view(&scratch),
        };
        let write = |b: Buf| match b {
            Buf::Scratch => scratch,
            _ => io.output,
        };
        for step in steps {
            match *step {
                Step::Rows(s) => {
                    let twiddles = self.tables[s.table].view();
                    let (low, high, step_rows, step_log2_low) = match s.step {
                        Some((low, high, rows, log2_low)) => {
                            (self.tables[low].view(), self.tables[high].view(), rows, log2_low)
                        }
                        None => (twiddles, twiddles, 0, 0),
                    };
                    let args = FftRowsArgs {
                        input: read(s.from),
                        output: write(s.to),
                        twiddles,
                        step_low: low,
                        step_high: high,
                        input_layout: s.input_layout,
                        output_layout: s.output_layout,
                        log2_n: s.log2_n,
                        log2_rows_per_block: s.log2_rows_per_block,
                        rows: s.rows,
                        inverse: u32::from(s.inverse != flip),
                        step_rows,
                        step_log2_low,
                    };
                    T::launch_rows(&kernels, stream, s.shape, args)?;
                }
                Step::Real(s) => {
                    let args = RealPassArgs {
                        input: read(s.from),
                        output: write(s.to),
                        twiddles: self.tables[s.table].view(),
                        half_n: s.half_n,
                        rows: s.rows,
                        input_distance: s.input_distance,
                        output_distance: s.output_distance,
                    };
                    T::launch_real(&kernels, stream, s.shape, s.post, args)?;
                }
            }
        }
        Ok(())
    }
}

/// What a plan's launches are assembled in.
struct Builder<'a, T: ComplexScalar> {
    gpu: &'a Gpu,
    steps: Vec<Step>,
    tables: &'a mut Vec<DeviceBuffer<Complex<T>>>,
    keys: &'a mut Vec<(u64, u64)>,
    scratch_len: usize,
}

fn to_u32(value: usize, what: &str) -> Result<u32> {
    u32::try_from(value).map_err(|_| {
        Error::InvalidArgument(format!(
            "the Rust FFT engine handles at most 2^32 - 1 {what}, not {value}"
        ))
    })
}

impl<T: super::FftFloat> Builder<'_, T> {
    /// The index of the table `exp(-2 pi i m / n)`, `m < count`, uploaded once.
    fn table(&mut self, n: usize, count: usize) -> Result<usize> {
        let key = (n as u64, count.max(1) as u64);
        if let Some(i) = self.keys.iter().position(|&k| k == key) {
            return Ok(i);
        }
        self.tables.push(self.gpu.upload(&twiddle::table::<T>(key.0, key.1))?);
        self.keys.push(key);
        Ok(self.tables.len() - 1)
    }

    /// Transforms of `n` along contiguous rows `distances.0` (input) and `distances.1` (output)
    /// elements apart.
    fn line_pass(
        &mut self,
        n: usize,
        rows: usize,
        bufs: (Buf, Buf),
        distances: (usize, usize),
        inverse: bool,
    ) -> Result<()> {
        let (d_in, d_out) = distances;
        if n <= MAX_BLOCK_N as usize {
            return self.rows(
                n,
                rows,
                bufs,
                (RowLayout::contiguous(d_in), RowLayout::contiguous(d_out)),
                inverse,
                None,
            );
        }
        if n > MAX_FOUR_STEP_N {
            return Err(Error::InvalidArgument(format!(
                "the Rust FFT engine transforms rows of at most 2^24 elements, not {n}"
            )));
        }
        // n = n1 n2, n2 >= n1, both powers of two of at most 4096.
        let log2_n = n.trailing_zeros();
        let n2 = 1usize << log2_n.div_ceil(2);
        let n1 = n / n2;
        self.scratch_len = self.scratch_len.max(
            rows.checked_mul(n)
                .ok_or_else(|| Error::InvalidArgument("an FFT too large".into()))?,
        );
        let columns = |inner_rows: usize, outer: usize, element_stride: usize| -> Result<RowLayout> {
            Ok(RowLayout {
                inner_rows: to_u32(inner_rows, "columns")?,
                lanes_along_rows: 1,
                inner_stride: 1,
                outer_stride: outer,
                element_stride,
            })
        };
        // Step 1: length n1 down the columns (element n2 n1' + n2'), times w_n^(n2' k1), to scratch.
        let log2_low = log2_n.div_ceil(2);
        let low = self.table(n, 1 << log2_low)?;
        // high[h] = w_n^(h L) = w_(n / L)^h, L = 2^log2_low.
        let high = self.table(n >> log2_low, n >> log2_low)?;
        let step = Some((low, high, to_u32(n2, "columns")?, log2_low));
        let step1_rows = rows
            .checked_mul(n2)
            .ok_or_else(|| Error::InvalidArgument("an FFT too large".into()))?;
        self.rows(
            n1,
            step1_rows,
            (bufs.0, Buf::Scratch),
            (columns(n2, d_in, n2)?, columns(n2, n, n2)?),
            inverse,
            step,
        )?;
        // Step 2: length n2 along the rows of scratch, written transposed (element k1 + n1 k2).
        let scratch_rows = RowLayout {
            inner_rows: to_u32(n1, "rows")?,
            lanes_along_rows: 0,
            inner_stride: n2,
            outer_stride: n,
            element_stride: 1,
        };
        self.rows(
            n2,
            rows * n1,
            (Buf::Scratch, bufs.1),
            (scratch_rows, columns(n1, d_out, n1)?),
            inverse,
            None,
        )
    }

    /// Transforms along every dimension but the innermost, of arrays whose rows hold `nx`.
    fn outer_passes(&mut self, shape: &Shape, nx: usize, bufs: (Buf, Buf), inverse: bool) -> Result<()> {
        let dims = shape.dims();
        let rank = dims.len();
        let mut from = bufs.0;
        // The dimension `axis` has stride `inner` (the product of the dimensions inside it) and
        // arrays of `inner * n` elements.
        let mut inner = nx;
        for axis in (0..rank - 1).rev() {
            let n = dims[axis];
            if n > MAX_BLOCK_N as usize {
                return Err(Error::InvalidArgument(format!(
                    "the Rust FFT engine transforms outer dimensions of at most {MAX_BLOCK_N}, not {n}"
                )));
            }
            let block = inner * n;
            let layout = RowLayout {
                inner_rows: to_u32(inner, "columns")?,
                lanes_along_rows: 1,
                inner_stride: 1,
                outer_stride: block,
                element_stride: inner,
            };
            // Every element of the arrays lies on one line along `axis`.
            let rows = shape.rows() * nx / n;
            self.rows(n, rows, (from, bufs.1), (layout, layout), inverse, None)?;
            from = bufs.1;
            inner = block;
        }
        Ok(())
    }

    /// `r2c_post` (`post`) or `c2r_pre` over `rows` rows of a real transform of `n`.
    fn real_pass(
        &mut self,
        post: bool,
        n: usize,
        rows: usize,
        bufs: (Buf, Buf),
        distances: (usize, usize),
    ) -> Result<()> {
        let half_n = n / 2;
        let table = self.table(n, half_n)?;
        let half_n = to_u32(half_n, "elements")?;
        let threads = (pairs_per_row(half_n) as usize)
            .checked_mul(rows)
            .ok_or_else(|| Error::InvalidArgument("an FFT too large".into()))?;
        let shape = LaunchShape::cover_1d(threads, REAL_THREADS)?;
        self.steps.push(Step::Real(RealStep {
            post,
            from: bufs.0,
            to: bufs.1,
            half_n,
            rows: to_u32(rows, "rows")?,
            input_distance: distances.0,
            output_distance: distances.1,
            table,
            shape,
        }));
        Ok(())
    }

    /// One `fft_rows` launch: `rows` rows of `n <= MAX_BLOCK_N`.
    fn rows(
        &mut self,
        n: usize,
        rows: usize,
        bufs: (Buf, Buf),
        layouts: (RowLayout, RowLayout),
        inverse: bool,
        step: Option<(usize, usize, u32, u32)>,
    ) -> Result<()> {
        let table = self.table(n, n)?;
        let n32 = to_u32(n, "elements")?;
        let rows32 = to_u32(rows, "rows")?;
        let per_row = threads_per_row(n32);
        let complex_bytes = size_of::<Complex<T>>();
        let mut rows_per_block = (TARGET_THREADS / per_row).max(1);
        if layouts.0.lanes_along_rows != 0 || layouts.1.lanes_along_rows != 0 {
            // Columns: enough neighbouring ones per block that a warp's accesses fill whole
            // 64-byte runs (8 f32 pairs, 4 f64 pairs).
            rows_per_block = rows_per_block.max((64 / complex_bytes) as u32);
        }
        rows_per_block = rows_per_block.min(rows32.next_power_of_two());
        let limit_threads = self.gpu.properties().max_threads_per_block;
        while rows_per_block > 1
            && (rows_per_block * per_row > limit_threads
                || shared_bytes(n32, rows_per_block, complex_bytes) > SHARED_BUDGET_BYTES)
        {
            rows_per_block /= 2;
        }
        let bytes = shared_bytes(n32, rows_per_block, complex_bytes);
        let limit_bytes = self.gpu.properties().shared_mem_per_block_optin_bytes as usize;
        if bytes > limit_bytes {
            return Err(Error::InvalidArgument(format!(
                "a row of {n} needs {bytes} bytes of shared memory, more than this device's {limit_bytes}"
            )));
        }
        let shape = LaunchShape::new(
            (rows32.div_ceil(rows_per_block), 1, 1),
            (per_row * rows_per_block, 1, 1),
        )
        .with_shared_bytes(bytes as u32);
        self.steps.push(Step::Rows(RowsStep {
            from: bufs.0,
            to: bufs.1,
            input_layout: layouts.0,
            output_layout: layouts.1,
            log2_n: n.trailing_zeros(),
            log2_rows_per_block: rows_per_block.trailing_zeros(),
            rows: rows32,
            inverse,
            table,
            step,
            shape,
        }));
        Ok(())
    }
}
