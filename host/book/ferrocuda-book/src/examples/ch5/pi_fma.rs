//! ch5-pi-fma: what a fused multiply-add does to the pi count (book §5.2.1). The book's GPU
//! computed `x² + y²` as `fma(y, y, x*x)` and its CPU as two rounded products and a rounded sum;
//! at N = 10^8 (single precision, seed 1234567) three points lie so close to the circle that the
//! two roundings put them on different sides (Table 5.1), and the counts differ.
//!
//! `--fma off` counts with separate roundings on the GPU too (the book's `-Mcuda=nofma`), and the
//! counts agree. The program `test_accuracy` (the first point of Table 5.1 in single and double
//! precision) is printed after the table.
use crate::example::{Example, Outcome, Precision, Run, SIMULATOR_SIZE, Size};
use crate::examples::ch5::pi::{
    self, BOOK_LARGEST, BOOK_SIZES, PiFloat, PiOptions, Rounding, SIZE_UNIT, estimate, heading, points, points_memory,
    row,
};
use crate::reference::ch5::pi as reference;
use book_kernels::ch5::pi_fma::MismatchArgs;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, Result};
use ferrocuda::random::Generator;
use ferrocuda::verify::{Check, Tolerance};
use std::marker::PhantomData;

/// ch5-pi-fma, in precision `T`.
pub struct Ch5PiFma<T>(PhantomData<T>);

/// The options of ch5-pi-fma.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct Ch5PiFmaOptions {
    #[command(flatten)]
    pub pi: PiOptions,
    /// count on the GPU with fma(y,y,x*x) (on) or with separate roundings (off)
    #[arg(long, value_name = "on|off", value_enum, default_value_t = Rounding::Fma, hide_possible_values = true)]
    pub fma: Rounding,
}

impl<T: PiFloat> Example for Ch5PiFma<T> {
    const ID: &'static str = "ch5-pi-fma";
    const DESCRIPTION: &'static str =
        "pi count with fma(y,y,x*x) vs separate roundings: the CPU/GPU mismatch and Table 5.1 (book 5.2.1)";
    const SIZE: Option<Size> = Some(Size::new(SIZE_UNIT, N, SIMULATOR_SIZE));
    type Args = Ch5PiFmaOptions;

    /// The peak bytes of a run: the sample's points on the device and on the host (the mismatch
    /// lists are a few entries); with `--book`, the book's largest sample (f32).
    fn memory(run: &Run<Ch5PiFmaOptions>, _gpu: &Gpu) -> Option<Footprint> {
        match run.args.pi.book {
            true => points_memory::<f32>(BOOK_LARGEST),
            false => points_memory::<T>(run.size),
        }
    }

    /// The experiment at `--size` (10^8 on a GPU), or the book's table with `--book`.
    fn run(gpu: &Gpu, run: &Run<Ch5PiFmaOptions>) -> Result<Outcome> {
        let (options, rounding) = (run.args.pi, run.args.fma);
        let (generator, seed) = options.generator_and_seed(gpu, run.size_given.then_some(run.size), SEED)?;
        let book = options.book;
        if book && (run.precision != Precision::F32 || seed != SEED || rounding != Rounding::Fma) {
            return Err(Error::InvalidArgument(
                "--book runs the book's experiment: single precision, seed 1234567, --fma on".into(),
            ));
        }
        let fma = match rounding {
            Rounding::Fma => "FMA enabled",
            Rounding::Separate => "FMA disabled",
        };
        println!("{} (seed={seed} {fma}, {} generator)", heading::<T>(), generator.name());
        let sizes = if book { BOOK_SIZES.to_vec() } else { vec![run.size] };
        let samples = sizes
            .into_iter()
            .map(|n| sample::<T>(gpu, generator, seed, n, rounding))
            .collect::<Result<Vec<_>>>()?;
        let mut checks: Vec<Check> = samples.iter().flat_map(|s| s.checks.clone()).collect();
        let last = samples
            .last()
            .ok_or_else(|| Error::InvalidArgument("no sample size".into()))?;
        println!();
        print_table_5_1(&last.cpu_mismatches);
        if book {
            for (s, book) in samples.iter().zip(BOOK_FMA_PI) {
                let printed = format!("{:.8}", s.pi);
                checks.push(Check::condition(
                    &format!("N={}: Pi={printed}, the book prints {book}", s.n),
                    printed == book,
                ));
            }
            let table: Vec<(u64, u32, u32)> = last
                .cpu_mismatches
                .iter()
                .map(|&(i, x, y)| (i + 1, (x.to_f64() as f32).to_bits(), (y.to_f64() as f32).to_bits()))
                .collect();
            checks.push(Check::condition(
                "N=10^8: the mismatching points are Table 5.1's (index, x bits, y bits)",
                table == TABLE_5_1,
            ));
        }
        println!();
        checks.push(table_5_1_on_gpu(gpu)?);
        checks.push(test_accuracy());
        Ok(Outcome { checks })
    }
}

/// The experiment's seed.
pub const SEED: u64 = 1234567;
/// The experiment's largest sample, where the mismatch appears.
pub const N: usize = 100_000_000;

/// The book's `Pi=` column with FMA enabled (single precision, seed 1234567, N = 10^4 .. 10^8);
/// the conversion garbled it, these are the legible values.
pub const BOOK_FMA_PI: [&str; 5] = ["3.16720009", "3.13919997", "3.14109206", "3.14106607", "3.14139414"];

/// Table 5.1: the points (1-based index N, bits of x, bits of y) where `x*x + y*y` rounds to
/// exactly 1 (`3F800000`) and `fma(y, y, x*x)` to the next float up (`3F800001`).
pub const TABLE_5_1: [(u64, u32, u32); 3] = [
    (2377069, 0x3F1D_C57A, 0x3F49_9AA3),
    (33027844, 0x3E4E_A894, 0x3F7A_BB83),
    (81541078, 0x3F31_4855, 0x3F38_AE38),
];

/// Table 5.1's three points in the book's layout: the three x, then the three y.
pub fn table_5_1_points() -> Vec<f32> {
    let x = TABLE_5_1.map(|(_, x, _)| f32::from_bits(x));
    let y = TABLE_5_1.map(|(_, _, y)| f32::from_bits(y));
    [x, y].concat()
}

/// `test_accuracy`'s results for the first point: x² + y² in single precision, in double, and
/// the double rounded to single, which equals the GPU's fused result.
pub const TEST_ACCURACY_BITS: (u32, u64, u32) = (0x3F80_0000, 0x3FF0_0000_1578_1ED0, 0x3F80_0001);

/// Slots for the indices of mismatching points the kernel records (Table 5.1 has three).
const MISMATCH_SLOTS: usize = 64;

/// The 0-based indices of the points of `xy_d` that the two roundings classify differently, found
/// on the GPU (ascending), and how many there are (more than the indices when they overflow the
/// slots).
pub fn mismatches<T: PiFloat>(gpu: &Gpu, xy_d: &DeviceBuffer<T>) -> Result<(usize, Vec<u64>)> {
    let mut count_d = gpu.zeros::<u32>(1)?;
    let mut indices_d = gpu.zeros::<u64>(MISMATCH_SLOTS)?;
    let shape = pi::count_shape(gpu, xy_d.len() / 2).with_shared_bytes(0);
    let args = MismatchArgs {
        xy: xy_d.view(),
        count: count_d.view_mut(),
        indices: indices_d.view_mut(),
    };
    T::launch_mismatches(gpu, shape, args)?;
    let count = gpu.download(&count_d)?[0] as usize;
    let mut indices = gpu.download(&indices_d)?;
    indices.truncate(count.min(MISMATCH_SLOTS));
    indices.sort_unstable();
    Ok((count, indices))
}

/// What one sample size measured, and its checks.
struct Sample<T> {
    n: usize,
    pi: f64,
    /// The mismatching points the CPU finds: `(0-based index, x, y)`.
    cpu_mismatches: Vec<(u64, T, T)>,
    /// The GPU's count and mismatch list against the CPU's.
    checks: [Check; 2],
}

fn sample<T: PiFloat>(gpu: &Gpu, generator: Generator, seed: u64, n: usize, rounding: Rounding) -> Result<Sample<T>> {
    let xy_d = points::<T>(gpu, generator, seed, n)?;
    let inside_gpu = pi::count(gpu, rounding, &xy_d)?;
    let (gpu_count, gpu_indices) = mismatches(gpu, &xy_d)?;
    let xy = gpu.download(&xy_d)?;
    let inside_cpu = reference::count_inside(&xy, T::norm2_separate);
    let inside_cpu_same_rounding = match rounding {
        Rounding::Separate => inside_cpu,
        Rounding::Fma => reference::count_inside(&xy, T::norm2_fma),
    };
    if inside_gpu != inside_cpu {
        println!("Mismatch between CPU/GPU {inside_cpu:>10}{inside_gpu:>10}");
    }
    let (pi, error) = estimate::<T>(inside_gpu, n);
    println!("{}", row(n, pi, error));
    let cpu_indices = reference::mismatches(&xy);
    let checks = [
        Check::compare(
            &format!("N={n}: GPU count ({rounding:?}) vs CPU count with the same rounding"),
            &[inside_gpu as f64],
            &[inside_cpu_same_rounding as f64],
            Tolerance::EXACT,
        ),
        Check::condition(
            &format!(
                "N={n}: {gpu_count} mismatching points found on the GPU, {} on the CPU, same indices",
                cpu_indices.len()
            ),
            gpu_count == cpu_indices.len() && (gpu_count > MISMATCH_SLOTS || gpu_indices == cpu_indices),
        ),
    ];
    let cpu_mismatches = cpu_indices
        .into_iter()
        .map(|i| (i, xy[i as usize], xy[i as usize + n]))
        .collect();
    Ok(Sample {
        n,
        pi,
        cpu_mismatches,
        checks,
    })
}

/// A float as the book prints it in Table 5.1: 10 significant digits and its bits.
fn show<T: PiFloat>(v: T) -> String {
    let v: f64 = v.into();
    match T::NAME {
        "f32" => format!("{v:.9e} ({:08X})", (v as f32).to_bits()),
        _ => format!("{v:.9e} ({:016X})", v.to_bits()),
    }
}

/// Table 5.1 for the mismatching points: 1-based index, x, y, and x² + y² under both roundings.
fn print_table_5_1<T: PiFloat>(points: &[(u64, T, T)]) {
    println!("Points where x*x+y*y differs (Table 5.1):");
    println!(
        "{:>10}  {:<28}{:<28}{:<28}x^2+y^2 GPU with FMA",
        "N", "x", "y", "x^2+y^2 CPU"
    );
    for &(i, x, y) in points {
        println!(
            "{:>10}  {:<28}{:<28}{:<28}{}",
            i + 1,
            show(x),
            show(y),
            show(T::norm2_separate(x, y)),
            show(T::norm2_fma(x, y))
        );
    }
}

/// The GPU's counts of the three points of Table 5.1: under separate roundings all three are
/// inside (x² + y² = 1 exactly), under `fma(y, y, x*x)` none is.
fn table_5_1_on_gpu(gpu: &Gpu) -> Result<Check> {
    let xy_d = gpu.upload(&table_5_1_points())?;
    let separate = pi::count(gpu, Rounding::Separate, &xy_d)?;
    let fused = pi::count(gpu, Rounding::Fma, &xy_d)?;
    println!("Table 5.1's points on the GPU: {separate} inside with separate roundings, {fused} with fma(y,y,x*x)");
    Ok(Check::condition(
        "Table 5.1's points: 3 inside with separate roundings, 0 with FMA (GPU)",
        (separate, fused) == (3, 0),
    ))
}

/// The book's `test_accuracy` program on the first point of Table 5.1.
fn test_accuracy() -> Check {
    let (x, y) = (f32::from_bits(TABLE_5_1[0].1), f32::from_bits(TABLE_5_1[0].2));
    let single = x * x + y * y;
    let double = f64::from(x) * f64::from(x) + f64::from(y) * f64::from(y);
    let rounded = double as f32;
    println!("test_accuracy: x = {:08X}, y = {:08X}", x.to_bits(), y.to_bits());
    for (what, v) in [
        ("x*x+y*y", single),
        ("fmaf(x,x,y*y)", x.mul_add(x, y * y)),
        ("fmaf(y,y,x*x)", y.mul_add(y, x * x)),
    ] {
        println!("  {what:<13} = {v:.9e} {:08x}", v.to_bits());
    }
    println!("  in double     = {double:.16e} {:016X}", double.to_bits());
    println!("  double as single = {rounded:.9e} {:08X}", rounded.to_bits());
    Check::condition(
        "test_accuracy bits: 3F800000, 3FF0000015781ED0, 3F800001 as the book",
        (single.to_bits(), double.to_bits(), rounded.to_bits()) == TEST_ACCURACY_BITS,
    )
}
