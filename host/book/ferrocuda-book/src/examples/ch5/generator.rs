//! What the chapter 5 examples that draw random numbers share: the `--generator` and `--seed`
//! flags, and the generator they choose (cuRAND's, the book's, on a GPU; this library's Philox
//! on the simulator).
use crate::example::{Flag, Options};
use ferrocuda::gpu::{Error, Gpu, Result};
use ferrocuda::random::Generator;

/// `--generator`.
pub const GENERATOR_FLAG: Flag = Flag {
    name: "--generator",
    value: Some("curand|curand-seeded|philox"),
    help: "cuRAND's default generator (the book's), the same with CURAND_ORDERING_PSEUDO_SEEDED (faster seeding, another stream: the book's suggestion in 5.3), or this library's Philox [default: curand on a GPU, philox on the simulator]",
    requires: None,
};

/// `--seed`.
pub const SEED_FLAG: Flag = Flag {
    name: "--seed",
    value: Some("N"),
    help: "the generator's seed [default: the book's, 1234; ch5-pi-fma's 1234567]",
    requires: None,
};

/// `--generator` and `--seed`, as every chapter 5 example that draws numbers takes them.
pub const FLAGS: &[Flag] = &[GENERATOR_FLAG, SEED_FLAG];

/// The generator and seed the flags ask for.
pub fn generator_and_seed(gpu: &Gpu, options: &Options, default_seed: u64) -> Result<(Generator, u64)> {
    let generator = options
        .parsed::<Generator>("--generator")?
        .unwrap_or_else(|| Generator::default_for(gpu));
    Ok((generator, options.parsed::<u64>("--seed")?.unwrap_or(default_seed)))
}

/// `--book` needs the book's generator.
pub fn require_curand(generator: Generator) -> Result<()> {
    if generator == Generator::Curand {
        Ok(())
    } else {
        Err(Error::InvalidArgument(
            "--book reproduces the book's cuRAND streams: it needs a CUDA device and --generator curand".into(),
        ))
    }
}
