//! ch7-fftshift: the spectrum in natural order (`k = -n/2 .. n/2 - 1`) by multiplying the signal
//! by `(-1)^(i+1)` before the forward transform (book §7.1, after Solomon & Breckon 2011); the
//! constant `n` added to the signal marks `k = 0` with `16.0`. The same factor after the
//! inverse transform undoes the shift.
use super::{
    Ch7Float, FFT_FLAG, MIN_TEST_SIZE, THREADS_PER_BLOCK, engine, engine_name, fixed, test_signal, test_size, widen,
};
use super::{analytic_coefficients, coefficient_tolerance};
use crate::example::{LegacyExample, LegacySize, Options, Outcome, Precision};
use book_kernels::ch7::spectral::AlternateSignArgs;
use ferrocuda::fft::{Complex, Direction, Plan, wavenumbers};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};

pub const EXAMPLE: LegacyExample = LegacyExample {
    id: "ch7-fftshift",
    description: "C2C FFT of cos(2x) + sin(3x) + n pre-multiplied by (-1)^(i+1): the spectrum in natural order, 16 at k = 0 (book 7.1)",
    size: Some(LegacySize {
        unit: "transform length n, even and at least 8 (a power of two for the Rust FFT kernels; cuFFT takes any)",
        gpu: super::TEST_N,
        simulator: super::TEST_N,
        min: MIN_TEST_SIZE,
        max: usize::MAX,
        memory,
    }),
    f64: true,
    reps: false,
    flags: &[FFT_FLAG],
    run,
};

/// `data *= (-1)^i` elementwise on the GPU (rows of `nx`: `(-1)^(i+j)`).
pub fn alternate_sign<T: Ch7Float>(gpu: &Gpu, data_d: &mut DeviceBuffer<Complex<T>>, nx: usize) -> Result<()> {
    let nx = u32::try_from(nx)
        .map_err(|_| Error::InvalidArgument(format!("a row of {nx} values is too long for alternate_sign")))?;
    let shape = LaunchShape::cover_1d(data_d.len(), THREADS_PER_BLOCK)?;
    T::alternate_sign(
        gpu,
        shape,
        AlternateSignArgs {
            data: data_d.view_mut(),
            nx,
        },
    )
}

/// The signal, its shifted spectrum and the signal recovered (see [`shifted`]).
pub type Shifted<T> = (Vec<T>, Vec<Complex<T>>, Vec<Complex<T>>);

/// The shifted spectrum of `cos(2x) + sin(3x) + n`, divided by `n`, and the signal recovered
/// by the inverse transform and the same factor (divided by `n`): `(input, spectrum, recovered)`.
pub fn shifted<T: Ch7Float>(gpu: &Gpu, options: &Options, n: usize) -> Result<Shifted<T>> {
    let input: Vec<T> = test_signal::<T>(n)?
        .into_iter()
        .map(|x| T::from_f64(x.into() + n as f64))
        .collect();
    let complex: Vec<Complex<T>> = input.iter().map(|&x| Complex::new(x, T::default())).collect();
    let mut data_d = gpu.upload(&complex)?;
    let mut plan = Plan::<T>::c2c_1d(gpu, n, 1, engine(gpu, options)?)?;
    println!(
        " {} C2C, n = {n}, in place, sign pre-multiplied ({})",
        T::LABEL,
        engine_name(plan.engine())
    );
    alternate_sign(gpu, &mut data_d, n)?;
    plan.c2c_in_place(gpu, &mut data_d, Direction::Forward)?;
    let scale = T::from_f64(1.0 / n as f64);
    let spectrum = gpu.download(&data_d)?.into_iter().map(|c| c.scale(scale)).collect();
    plan.c2c_in_place(gpu, &mut data_d, Direction::Inverse)?;
    alternate_sign(gpu, &mut data_d, n)?;
    let recovered = gpu.download(&data_d)?.into_iter().map(|c| c.scale(scale)).collect();
    Ok((input, spectrum, recovered))
}

fn run_typed<T: Ch7Float>(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    let n = test_size(options, super::TEST_N)?;
    if !n.is_multiple_of(2) {
        return Err(Error::InvalidArgument(format!(
            "the (-1)^i shift centres k = 0 only for an even length, not {n}"
        )));
    }
    let (input, spectrum, recovered) = shifted::<T>(gpu, options, n)?;
    // Natural order: position m holds k = m - n/2.
    for (m, c) in spectrum.iter().enumerate() {
        println!(
            "{:4} {} {:4} {} {}",
            m + 1,
            fixed(input[m].into(), 9, 4),
            m as i64 - (n / 2) as i64,
            fixed(c.re.into(), 9, 4),
            fixed(c.im.into(), 9, 4)
        );
    }
    let mut natural = analytic_coefficients(n);
    natural[0].0 += n as f64;
    let order = wavenumbers(n);
    let mut want = vec![(0.0, 0.0); n];
    for (value, k) in natural.into_iter().zip(order) {
        want[(k + (n / 2) as i64) as usize] = value;
    }
    // Values reach n + 2, so the transform's absolute error scales with that magnitude.
    let base = coefficient_tolerance(n, T::EPSILON);
    let tolerance = Tolerance {
        abs: base.abs * (n as f64 + 2.0),
        rel: 0.0,
    };
    let (re, im): (Vec<f64>, Vec<f64>) = widen(&spectrum).into_iter().unzip();
    let (want_re, want_im): (Vec<f64>, Vec<f64>) = want.into_iter().unzip();
    let back: Vec<f64> = widen(&recovered).into_iter().map(|(re, _)| re).collect();
    let input64: Vec<f64> = input.iter().map(|&x| x.into()).collect();
    Ok(Outcome {
        checks: vec![
            Check::compare(
                "real part vs analytic (16 at k = 0, 0.5 at k = +-2)",
                &re,
                &want_re,
                tolerance,
            ),
            Check::compare(
                "imaginary part vs analytic (-+0.5 at k = +-3)",
                &im,
                &want_im,
                tolerance,
            ),
            Check::compare(
                "inverse transform and factor give the signal back",
                &back,
                &input64,
                tolerance,
            ),
        ],
    })
}

/// The peak bytes of the example at length `n` in `T`: on the device the data (transformed in
/// place) and an FFT work area of the same size; on the host the signal, its complex copy, the
/// downloaded spectrum and recovered signal, then the checks' f64 arrays (computed, analytic,
/// recovered and input).
pub fn plan<T: Ch7Float>(n: usize) -> Option<Footprint> {
    Footprint::NONE
        .device::<Complex<T>>(2, n)?
        .host::<T>(7, n)?
        .host::<f64>(7, n)
}

/// [`plan`] in `--precision`.
pub fn memory(options: &Options, _gpu: &Gpu, n: usize) -> Option<Footprint> {
    match options.precision {
        Precision::F32 => plan::<f32>(n),
        Precision::F64 => plan::<f64>(n),
    }
}

/// Runs the example in `--precision`.
pub fn run(gpu: &Gpu, options: &Options) -> Result<Outcome> {
    match options.precision {
        Precision::F32 => run_typed::<f32>(gpu, options),
        Precision::F64 => run_typed::<f64>(gpu, options),
    }
}
