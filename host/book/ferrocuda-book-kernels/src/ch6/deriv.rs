//! The 9-point, 8th-order finite-difference derivatives in x, y and z of a periodic 3-D array
//! (book §6.1, module `derivative_m` of Appendix D.5; the stretched grid of §6.1.4 is in
//! `deriv_nonuniform.rs`).
//!
//! Layout: the book's Fortran `f(mx, my, mz)`, x contiguous: point (i, j, k), 0-based, is element
//! `i + mx * (j + my * k)`. Periodic: the first and last points of a line are the same point (the
//! book's `f(1) = f(mx)`), so a line of `m` points has period `m - 1`, and the neighbour `n + o`
//! of point `n` is `n + o - (m - 1)` past the end and `n + o + (m - 1)` before the start.
//!
//! Every kernel copies whole lines (pencils) of `f` into a shared tile with [`HALO`] ghost points
//! at each end, fills the ghosts with their periodic images (the book's wrap, exactly), and
//! applies the stencil from the tile. The x kernels hold `PENCILS` x-lines of one (y, z) plane
//! (tile "x-y: mx x 4" or "mx x 32"); the y and z kernels hold `WIDTH` adjacent lines (tile
//! "x-y: 4 x my", "32 x my", or "x-z: ..."), so a warp's loads are `WIDTH` contiguous values.
//!
//! Generalised launch: the book's blocks cover a line with one thread per point along x
//! (`(mx, 4)`) or 4 or 8 points per thread along y and z; here each thread walks its line with
//! the block's stride along the derivative direction, so the host may cap the threads per block
//! (an `mx = 512` line cannot be 512 x 4 threads) and every thread issues four loads before its
//! four stores to the tile (bytes in flight for DRAM). At the book's sizes the launch is the
//! book's.
//!
//! The marching kernels, which hold their line in registers rather than a tile, are in
//! `deriv/march.rs`.
mod march;

pub use march::{DerivYMarch, DerivZMarch, MARCH_ROWS, MARCH_STEP, MARCH_WIDTH, deriv_y_march, deriv_z_march};

use ferrocuda_device::constant::{ConstantValue, constant_load};
use ferrocuda_device::prelude::*;
use ferrocuda_device::shared::Tile1d;

/// The book's `sPencils`: lines per tile in the small-pencil kernels.
pub const S_PENCILS: usize = 4;
/// The book's `lPencils`: lines per tile in the large-pencil kernels.
pub const L_PENCILS: usize = 32;
/// Points the stencil reaches on each side, so ghost points at each end of a tile line.
pub const HALO: usize = 4;
/// Constant-bank word of the uniform grid's coefficients: the book's `ax_c, bx_c, cx_c, dx_c,
/// ay_c, .., dz_c`, twelve values of `T` (one word each in f32, two in f64). Even, for f64.
pub const UNIFORM_WORD: usize = 128;

/// The derivative's direction, as a kernel's const parameter.
pub const X: u8 = 0;
pub const Y: u8 = 1;
pub const Z: u8 = 2;

/// What an x kernel does between its loads and its stores (its const parameter).
/// The stencil, after a barrier, the ghost fill, and a second barrier (`deriv_x`).
pub const STENCIL: u8 = 0;
/// The stencil after one barrier: the thread that loads a point also writes its periodic image
/// (`deriv_x_1sync`).
pub const ONE_SYNC: u8 = 1;
/// No stencil: `df = f` through the tile, with both barriers (the book's memory-only variant).
pub const MEM_ONLY: u8 = 2;

/// Arguments of the uniform-grid kernels and of the stretched-grid kernels whose coefficients
/// are in the constant bank: the book's `(f, df)`, with the extents the book keeps in module
/// variables.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
#[kernel_args(same_len(f, df))]
pub struct DerivArgs<'a, T> {
    /// The function, `mx * my * mz` values.
    pub f: Slice<'a, T>,
    /// Its derivative, as many values.
    pub df: SliceMut<'a, T>,
    pub mx: u32,
    pub my: u32,
    pub mz: u32,
}

/// Arguments of [`derivative_math`]: the book's `(f, df, val)` less `f`, which it never reads.
#[repr(C)]
#[derive(Clone, Copy, Debug, KernelArgs)]
pub struct DerivMathArgs<'a, T> {
    /// Written only where `val * derivative == 1`, which never holds: the kernel stores nothing.
    pub df: SliceMut<'a, T>,
    pub mx: u32,
    pub my: u32,
    pub mz: u32,
    /// The value the tile holds (the book: a comparison operand that keeps the math alive).
    pub val: T,
}

/// Dynamic shared memory of a tile of `lines` lines of `m` points and their ghosts.
pub const fn tile_bytes<T>(m: usize, lines: usize) -> usize {
    lines * (m + 2 * HALO) * size_of::<T>()
}

/// The constant word of coefficient `k` (0..4: a, b, c, d) of `direction` on the uniform grid,
/// for values of `words` 4-byte words.
pub const fn uniform_word(direction: usize, k: usize, words: usize) -> usize {
    UNIFORM_WORD + (4 * direction + k) * words
}

/// The four coefficients of the stencil at one point: `[a, b, c, d]` multiply the differences
/// of the neighbours 1, 2, 3 and 4 points away.
pub trait Coefficients<T>: Copy {
    /// The coefficients at point `n` of the line (its index along the derivative).
    fn at(&self, n: usize) -> [T; 4];
}

/// The uniform grid's coefficients of one direction (the book's `constant` scalars `ax_c ..
/// dx_c`), read from the constant bank once per thread: the same for every point.
#[derive(Clone, Copy)]
pub struct Uniform<T>([T; 4]);

impl<T: ConstantValue> Uniform<T> {
    /// The coefficients of `direction` (0, 1, 2 for x, y, z), from the constant bank.
    #[inline(always)]
    pub fn load(direction: usize) -> Self {
        Self(core::array::from_fn(|k| {
            constant_load(uniform_word(direction, k, T::WORDS))
        }))
    }
}

impl<T: Copy> Coefficients<T> for Uniform<T> {
    #[inline(always)]
    fn at(&self, _n: usize) -> [T; 4] {
        self.0
    }
}

/// The 9-point, 8th-order derivative at one point: `a (f[+1] - f[-1]) + b (f[+2] - f[-2]) + c
/// (f[+3] - f[-3]) + d (f[+4] - f[-4])`, the book's expression, summed left to right with each
/// multiply-add fused explicitly (as nvcc contracts it), so that the CPU reference, the
/// simulator and the GPU round alike. `f(HALO + o)` is the neighbour `o` points ahead,
/// `f(HALO - o)` the one behind.
#[inline(always)]
pub fn stencil<T: Real>(c: [T; 4], f: impl Fn(usize) -> T) -> T {
    let d = |o: usize| f(HALO + o) - f(HALO - o);
    let ab = math::fma(c[1], d(2), c[0] * d(1));
    math::fma(c[3], d(4), math::fma(c[2], d(3), ab))
}

/// The extents, after checking that both views hold `mx * my * mz` values, fewer than 2^32:
/// the one test that makes every index of the kernels below in bounds and lets them count in 32
/// bits (traps otherwise, on every thread). 32-bit indices keep the pointer arithmetic of the
/// four loads in flight out of 64-bit registers (nvcc's `int` indices do the same).
#[inline(always)]
pub(crate) fn extents(len: usize, other_len: usize, mx: u32, my: u32, mz: u32) -> (u32, u32, u32) {
    let n = mx as usize * my as usize * mz as usize;
    if len != n || other_len != len || n > u32::MAX as usize {
        ferrocuda_device::global::bounds_failure()
    }
    (mx, my, mz)
}

/// The calling thread's (block index, thread index, block extent) in x and y, as `u32`.
#[inline(always)]
fn thread_2d() -> ([u32; 2], [u32; 2], [u32; 2]) {
    let (b, t, d) = (block_idx(), thread_idx(), block_dim());
    let u = |v: usize| v as u32;
    ([u(b.x), u(b.y)], [u(t.x), u(t.y)], [u(d.x), u(d.y)])
}

/// One line of `m` points as a thread walks it: global element `global + n * global_stride` is
/// tile element `tile + n * tile_stride`, for `n = start, start + step, .. < m`.
#[derive(Clone, Copy)]
pub(crate) struct Line {
    pub global: u32,
    pub global_stride: u32,
    pub tile: u32,
    pub tile_stride: u32,
    pub m: u32,
    pub start: u32,
    pub step: u32,
}

/// Copies the thread's points of `line` from `f` into the tile, four loads in flight before
/// their four stores (then one at a time for the rest).
///
/// # Safety
/// Every global element of the line lies in `f`, every tile element in the tile.
#[inline(always)]
pub(crate) unsafe fn load_line<T: Element>(f: &Slice<'_, T>, tile: &Tile1d<T>, line: Line) {
    let Line {
        global,
        global_stride,
        tile: first,
        tile_stride,
        m,
        start,
        step,
    } = line;
    let mut n = start;
    while n + 3 * step < m {
        // SAFETY: the four points lie on the line (`n + 3 step < m`): the caller's contract.
        let v: [T; 4] = core::array::from_fn(|q| unsafe {
            f.get_unchecked((global + (n + q as u32 * step) * global_stride) as usize)
        });
        for (q, &value) in v.iter().enumerate() {
            let n = n + q as u32 * step;
            // SAFETY: as above, for the tile.
            unsafe { tile.set_unchecked((first + n * tile_stride) as usize, value) };
        }
        n += 4 * step;
    }
    while n < m {
        // SAFETY: `n < m`: the caller's contract.
        let value = unsafe { f.get_unchecked((global + n * global_stride) as usize) };
        // SAFETY: as above, for the tile.
        unsafe { tile.set_unchecked((first + n * tile_stride) as usize, value) };
        n += step;
    }
}

/// Fills the ghosts of one tile line whose point `n` is at tile element `at + n * stride`
/// (`at` = `HALO * stride` past the line's first ghost) with the book's periodic images:
/// `ghost(-4..-1) = point(m - 5 .. m - 2)` and `ghost(m .. m + 3) = point(1 .. 4)`. Threads
/// `start, start + step, .. < HALO` of the line each fill one ghost at both ends.
///
/// # Safety
/// The line's `m + 2 HALO` tile elements lie in the tile, `m > HALO` (so each image is a loaded
/// point), and its points were stored before a barrier all threads of the block passed.
#[inline(always)]
pub(crate) unsafe fn fill_ghosts<T: Copy>(tile: &Tile1d<T>, at: u32, stride: u32, m: u32, start: u32, step: u32) {
    let h = HALO as u32;
    let mut g = start;
    while g < h {
        // SAFETY: the caller's contract: every index lies in the line, ghosts included.
        unsafe {
            let low = tile.get_unchecked((at + (g + m - 1 - h) * stride) as usize);
            tile.set_unchecked((at + g * stride - h * stride) as usize, low);
            let high = tile.get_unchecked((at + (g + 1) * stride) as usize);
            tile.set_unchecked((at + (m + g) * stride) as usize, high);
        }
        g += step;
    }
}

/// The one-barrier kernel's ghosts of one x line (point i at tile element `at + i`): each thread
/// copies its own points that are periodic images, the book's `if (i>mx-5 .and. i<mx)
/// f_s(i-(mx-1),j_l) = f_s(i,j_l)` and `if (i>1 .and. i<6) f_s(i+(mx-1),j_l) = f_s(i,j_l)`, 0-based:
/// points mx-5 ..= mx-2 are ghosts -4 ..= -1, points 1 ..= 4 ghosts mx ..= mx+3.
///
/// # Safety
/// The line's `mx + 2 HALO` tile elements lie in the tile, `mx > HALO`, and the calling thread
/// stored its points `start, start + step, .. < mx` of the line.
#[inline(always)]
unsafe fn own_images<T: Copy>(tile: &Tile1d<T>, at: u32, mx: u32, start: u32, step: u32) {
    let mut i = start;
    while i < mx {
        if i + 5 >= mx && i + 1 < mx {
            // SAFETY: ghost i - (mx - 1) >= -4 and point i lie in the line (the caller's contract).
            unsafe { tile.set_unchecked((at + i + 1 - mx) as usize, tile.get_unchecked((at + i) as usize)) };
        }
        if (1..=HALO as u32).contains(&i) {
            // SAFETY: ghost i + mx - 1 <= mx + 3 and point i lie in the line.
            unsafe { tile.set_unchecked((at + i + mx - 1) as usize, tile.get_unchecked((at + i) as usize)) };
        }
        i += step;
    }
}

/// The x derivative of the lines of `PENCILS` points in y of one plane: block (b.x, b.y) takes
/// lines `j = b.x * PENCILS ..` of plane `k = b.y`; its threads (TX, TY) walk x in steps of TX
/// and the lines in steps of TY (book: (mx, 4) threads). Grid `(my / PENCILS, mz)`; the launch
/// provides [`tile_bytes`]`::<T>(mx, PENCILS)` bytes of dynamic shared memory.
#[inline(always)]
pub(crate) fn deriv_x_body<T: Real, C: Coefficients<T>, const PENCILS: usize, const MODE: u8>(
    f: Slice<'_, T>,
    df: SliceMut<'_, T>,
    (mx, my, mz): (u32, u32, u32),
    coeffs: C,
) {
    let ([bx, by], [tx, ty], [dx, dy]) = thread_2d();
    let (pencils, h) = (PENCILS as u32, HALO as u32);
    if (bx + 1) as usize * PENCILS > my as usize || by >= mz || mx <= h {
        ferrocuda_device::global::bounds_failure()
    }
    let pitch = mx + 2 * h;
    // SAFETY: the launch provides `tile_bytes::<T>(mx, PENCILS)` bytes (host driver), one tile.
    let tile = unsafe { Tile1d::<T>::dynamic((pencils * pitch) as usize) };
    // Element (0, j0, k) of the block's first line, and tile element of each line's point 0.
    let first = (by * my + bx * pencils) * mx;
    let row = |j_l: u32| (first + j_l * mx, j_l * pitch + h);
    let mut j_l = ty;
    while j_l < pencils {
        let (global, at) = row(j_l);
        let line = Line {
            global,
            global_stride: 1,
            tile: at,
            tile_stride: 1,
            m: mx,
            start: tx,
            step: dx,
        };
        // SAFETY: the line lies in `f` (`extents`, and the test of the block above) and in the tile.
        unsafe { load_line(&f, &tile, line) };
        if MODE == ONE_SYNC {
            // SAFETY: the line lies in the tile and `mx > HALO`; each thread reads back only
            // points it stored itself, so no barrier is needed before.
            unsafe { own_images(&tile, at, mx, tx, dx) };
        }
        j_l += dy;
    }
    // No thread has returned; every thread reaches every barrier of this kernel.
    sync_threads();
    if MODE != ONE_SYNC {
        let mut j_l = ty;
        while j_l < pencils {
            // SAFETY: the line lies in the tile, `mx > HALO`, and its points were stored before
            // the barrier above.
            unsafe { fill_ghosts(&tile, row(j_l).1, 1, mx, tx, dx) };
            j_l += dy;
        }
        // As above.
        sync_threads();
    }
    let mut j_l = ty;
    while j_l < pencils {
        let (global, at) = row(j_l);
        let mut i = tx;
        while i < mx {
            let value = if MODE == MEM_ONLY {
                // SAFETY: point i of the line, in the tile.
                unsafe { tile.get_unchecked((at + i) as usize) }
            } else {
                // SAFETY: points i - 4 ..= i + 4 of the line, ghosts included, in the tile.
                stencil(coeffs.at(i as usize), |o| unsafe {
                    tile.get_unchecked((at + i - h) as usize + o)
                })
            };
            // SAFETY: the point lies in `df` (`extents`, and the test of the block above).
            unsafe { df.set_unchecked((global + i) as usize, value) };
            i += dx;
        }
        j_l += dy;
    }
}

/// The y (`DIRECTION = Y`) or z derivative of `WIDTH` adjacent lines: block (b.x, b.y) takes
/// the lines at `i = b.x * WIDTH + t.x` of plane `k = b.y` (y) or row `j = b.y` (z); its
/// threads (WIDTH, TY) walk the line in steps of TY (book: (4, m) or (32, m / 8) threads). Grid
/// `(mx / WIDTH, mz)` for y, `(mx / WIDTH, my)` for z; the launch provides
/// [`tile_bytes`]`::<T>(m, WIDTH)` bytes of dynamic shared memory, `m` the line's extent.
#[inline(always)]
pub(crate) fn deriv_yz_body<T: Real, C: Coefficients<T>, const DIRECTION: u8, const WIDTH: usize>(
    f: Slice<'_, T>,
    df: SliceMut<'_, T>,
    (mx, my, mz): (u32, u32, u32),
    coeffs: C,
) {
    let ([bx, by], [tx, ty], [dx, dy]) = thread_2d();
    let (width, h) = (WIDTH as u32, HALO as u32);
    // (extent along the derivative, its stride, planes across, their stride)
    let (m, stride, across, across_stride) = if DIRECTION == Y {
        (my, mx, mz, mx * my)
    } else {
        (mz, mx * my, my, mx)
    };
    if dx != width || (bx + 1) as usize * WIDTH > mx as usize || by >= across || m <= h {
        ferrocuda_device::global::bounds_failure()
    }
    // SAFETY: the launch provides `tile_bytes::<T>(m, WIDTH)` bytes (host driver), one tile.
    let tile = unsafe { Tile1d::<T>::dynamic(((m + 2 * h) * width) as usize) };
    let global = bx * width + tx + by * across_stride;
    let at = h * width + tx;
    let line = Line {
        global,
        global_stride: stride,
        tile: at,
        tile_stride: width,
        m,
        start: ty,
        step: dy,
    };
    // SAFETY: the line lies in `f` (`extents`, and the test of the block above) and in the tile.
    unsafe { load_line(&f, &tile, line) };
    // No thread has returned; every thread reaches both barriers.
    sync_threads();
    // SAFETY: the line lies in the tile, `m > HALO`, its points stored before the barrier.
    unsafe { fill_ghosts(&tile, at, width, m, ty, dy) };
    // As above.
    sync_threads();
    let mut n = ty;
    while n < m {
        // Tile row r holds point r - HALO: points n - 4 ..= n + 4 are rows n ..= n + 8.
        // SAFETY: those rows, ghosts included, lie in the tile.
        let value = stencil(coeffs.at(n as usize), |o| unsafe {
            tile.get_unchecked(((n + o as u32) * width + tx) as usize)
        });
        // SAFETY: the point lies in `df`.
        unsafe { df.set_unchecked((global + n * stride) as usize, value) };
        n += dy;
    }
}

/// The x derivative, tile `mx x 4` (book §6.1.2, `deriv_x`): two barriers, around the threads
/// `i < 4` filling the periodic images.
#[kernel(f32, f64)]
pub fn deriv_x<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_x_body::<T, _, S_PENCILS, STENCIL>(args.f, args.df, e, Uniform::<T>::load(0));
}

/// [`deriv_x`] with one barrier (book §6.1.2.1, `deriv_x_1sync`): the thread that loads a point
/// also writes its periodic image.
#[kernel(f32, f64)]
pub fn deriv_x_1sync<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_x_body::<T, _, S_PENCILS, ONE_SYNC>(args.f, args.df, e, Uniform::<T>::load(0));
}

/// [`deriv_x`] with a tile of 32 lines, each thread 8 of them (book §6.1.3, `deriv_x_lPencils`).
#[kernel(f32, f64)]
pub fn deriv_x_l_pencils<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_x_body::<T, _, L_PENCILS, STENCIL>(args.f, args.df, e, Uniform::<T>::load(0));
}

/// The memory-only variant of [`deriv_x`] (book §6.1.2.1: "df(i,j,k) = f_s(i,j_l)"): the same
/// loads, barriers, images and stores, no stencil.
#[kernel(f32, f64)]
pub fn deriv_x_mem<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_x_body::<T, _, S_PENCILS, MEM_ONLY>(args.f, args.df, e, Uniform::<T>::load(0));
}

/// The math-only variant (book §6.1.2.1, `derivative_math`): the stencil of [`deriv_x`] on a
/// tile no global load filled, stored only where `val * derivative == 1`. Launched as
/// [`deriv_x`]; the book's undefined `nPencils` is that launch's tile height, `S_PENCILS`.
///
/// The book reads a tile nothing wrote; here each thread first sets its points (and the threads
/// `i < 4` the ghosts) to `val` from a register, then one barrier: the simulator refuses reads
/// of shared memory never written, and one shared store per point adds no memory traffic. Every
/// derivative is then 0, so nothing is stored.
#[kernel(f32, f64)]
pub fn derivative_math<T: Real + ConstantValue>(args: DerivMathArgs<'_, T>) {
    let (mx, my, mz) = extents(args.df.len(), args.df.len(), args.mx, args.my, args.mz);
    let ([bx, by], [tx, ty], [dx, dy]) = thread_2d();
    let (pencils, h) = (S_PENCILS as u32, HALO as u32);
    if (bx + 1) as usize * S_PENCILS > my as usize || by >= mz || mx <= h {
        ferrocuda_device::global::bounds_failure()
    }
    let pitch = mx + 2 * h;
    // SAFETY: the launch provides `tile_bytes::<T>(mx, S_PENCILS)` bytes (host driver).
    let tile = unsafe { Tile1d::<T>::dynamic((pencils * pitch) as usize) };
    let coeffs = Uniform::<T>::load(0);
    let first = (by * my + bx * pencils) * mx;
    let mut j_l = ty;
    while j_l < pencils {
        let mut i = tx;
        while i < pitch {
            // SAFETY: element i of the line's `mx + 8` (ghosts included) lies in the tile.
            unsafe { tile.set_unchecked((j_l * pitch + i) as usize, args.val) };
            i += dx;
        }
        j_l += dy;
    }
    // No thread has returned; every thread reaches the barrier.
    sync_threads();
    let mut j_l = ty;
    while j_l < pencils {
        let mut i = tx;
        while i < mx {
            let at = j_l * pitch + i;
            // SAFETY: points i - 4 ..= i + 4 of the line (tile elements at ..= at + 8) lie in it.
            let temp = stencil(coeffs.at(i as usize), |o| unsafe {
                tile.get_unchecked(at as usize + o)
            });
            if args.val * temp == T::from_f64(1.0) {
                // SAFETY: the point lies in `df` (`extents`, and the test of the block above).
                unsafe { args.df.set_unchecked((first + j_l * mx + i) as usize, temp) };
            }
            i += dx;
        }
        j_l += dy;
    }
}

/// The y derivative, tile `4 x my` (book §6.1.3, `deriv_y`).
#[kernel(f32, f64)]
pub fn deriv_y<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Y, S_PENCILS>(args.f, args.df, e, Uniform::<T>::load(1));
}

/// The y derivative, tile `32 x my`: a warp loads 32 contiguous values (book §6.1.3,
/// `deriv_y_lPencils`).
#[kernel(f32, f64)]
pub fn deriv_y_l_pencils<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Y, L_PENCILS>(args.f, args.df, e, Uniform::<T>::load(1));
}

/// The z derivative, tile `4 x mz` in x-z (book, `deriv_z`).
#[kernel(f32, f64)]
pub fn deriv_z<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Z, S_PENCILS>(args.f, args.df, e, Uniform::<T>::load(2));
}

/// The z derivative, tile `32 x mz` in x-z (book, `deriv_z_lPencils`).
#[kernel(f32, f64)]
pub fn deriv_z_l_pencils<T: Real + ConstantValue>(args: DerivArgs<'_, T>) {
    let e = extents(args.f.len(), args.df.len(), args.mx, args.my, args.mz);
    deriv_yz_body::<T, _, Z, L_PENCILS>(args.f, args.df, e, Uniform::<T>::load(2));
}
