//! ch5-curand-basic: random numbers on the GPU with cuRAND's host API (book §5.1, program
//! `curand_example`): N = 20 uniforms from `CURAND_RNG_PSEUDO_DEFAULT` seeded with 1234, in the
//! working precision, copied back, the first four printed.
//!
//! With cuRAND (the default on a GPU) and the book's seed, the first four must print as the book
//! prints them: cuRAND's XORWOW stream has not changed since. With this library's Philox (the
//! default on the simulator, which has no cuRAND) the book's numbers cannot come out; instead
//! the GPU's numbers must equal the CPU reference's bit for bit.
use crate::example::{Example, Outcome, Run, Size};
use crate::examples::ch5::fortran::precision_name;
use crate::examples::ch5::generator::RandomOptions;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Gpu, Result};
use ferrocuda::random::cpu as reference;
use ferrocuda::random::{Generator, RandomFloat};
use ferrocuda::verify::{Check, Tolerance};
use std::marker::PhantomData;

/// ch5-curand-basic, in precision `T`.
pub struct Ch5CurandBasic<T>(PhantomData<T>);

impl<T: RandomFloat + Send + Into<f64>> Example for Ch5CurandBasic<T> {
    const ID: &'static str = "ch5-curand-basic";
    const DESCRIPTION: &'static str =
        "20 uniforms from cuRAND's default generator, seed 1234, the first four as the book prints them (book 5.1)";
    const SIZE: Option<Size> = Some(Size::new("uniforms generated", N, N));
    type Args = RandomOptions;

    /// The peak bytes of `n` uniforms: the device array, its downloaded copy and the CPU
    /// reference's (Philox; cuRAND's run has none); `None` when the count overflows.
    fn memory(run: &Run<RandomOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<T>(1, run.size)?.host::<T>(2, run.size)
    }

    /// The book's program at `--size` uniforms (its 20): generates them, prints the first four,
    /// and checks them.
    fn run(gpu: &Gpu, run: &Run<RandomOptions>) -> Result<Outcome> {
        let (generator, seed) = run.args.on(gpu, SEED);
        let n = run.size;
        println!(
            "Generating random numbers in {} precision ({} generator, seed {seed}, n = {n})",
            precision_name::<T>(),
            generator.name()
        );
        let mut x_d = gpu.zeros::<T>(n)?;
        generator.fill_uniform(gpu, seed, &mut x_d)?;
        let x = gpu.download(&x_d)?;
        let first = printed(&x[..n.min(4)]);
        // The book's list-directed output: one single-precision value per line, two doubles.
        for line in first.chunks(if T::NAME == "f32" { 1 } else { 2 }) {
            println!("   {}", line.join("  "));
        }
        let book = if T::NAME == "f32" { BOOK_F32 } else { BOOK_F64 };
        let mut checks = vec![Check::condition(
            "every value in (0, 1]",
            x.iter().all(|v| v.to_f64() > 0.0 && v.to_f64() <= 1.0),
        )];
        match generator {
            // The book printed the stream of its seed only.
            Generator::Curand if seed == SEED => checks.push(Check::condition(
                &format!("first four = the book's {}", book[..first.len()].join(" ")),
                first == book[..first.len()],
            )),
            // Another seed's or another ordering's stream: the book printed none of them.
            Generator::Curand | Generator::CurandSeeded => {}
            Generator::Philox => checks.push(Check::compare(
                "GPU vs CPU reference (Philox, bit for bit)",
                &x,
                &reference::uniform::<T>(seed, 0, n)?,
                Tolerance::EXACT,
            )),
        }
        Ok(Outcome { checks })
    }
}

/// The listing's `n`.
pub const N: usize = 20;
/// The listing's seed.
pub const SEED: u64 = 1234;
/// The book's output of `rng_gpu_sp`: the first four uniforms, as printed (7 digits).
pub const BOOK_F32: [&str; 4] = ["0.1454676", "0.8201809", "0.5503992", "0.2948303"];
/// The book's output of `rng_gpu_dp` (16 digits): not the single-precision stream widened, as the
/// book remarks, since the double form draws two words per number.
pub const BOOK_F64: [&str; 4] = [
    "0.4348988043884129",
    "0.9264169202024377",
    "0.8118452111300192",
    "0.3085554246353980",
];

/// `values` as the book prints them: 7 decimals in single precision, 16 in double.
pub fn printed<T: RandomFloat>(values: &[T]) -> Vec<String> {
    let decimals = if T::NAME == "f32" { 7 } else { 16 };
    values.iter().map(|v| format!("{:.*}", decimals, v.to_f64())).collect()
}
