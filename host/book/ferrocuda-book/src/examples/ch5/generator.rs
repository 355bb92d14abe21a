//! What the chapter 5 examples that draw random numbers share: the `--generator` and `--seed`
//! options, and the generator they choose (cuRAND's, the book's, on a GPU; this library's Philox
//! on the simulator).
use ferrocuda::gpu::Gpu;
use ferrocuda::random::Generator;

/// `--generator`, as every chapter 5 example that draws numbers takes it.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct GeneratorOption {
    /// cuRAND's default generator (the book's), the same with CURAND_ORDERING_PSEUDO_SEEDED (faster seeding, another stream: the book's suggestion in 5.3), or this library's Philox [default: curand on a GPU, philox on the simulator]
    #[arg(long, value_name = "curand|curand-seeded|philox")]
    pub generator: Option<Generator>,
}

impl GeneratorOption {
    /// The generator asked for, else the default on `gpu`.
    pub fn on(&self, gpu: &Gpu) -> Generator {
        self.generator.unwrap_or_else(|| Generator::default_for(gpu))
    }
}

/// `--generator` and `--seed`, as the chapter 5 examples but ch5-bs-european-mc take them.
#[derive(clap::Args, Clone, Copy, Debug)]
pub struct RandomOptions {
    #[command(flatten)]
    pub generator: GeneratorOption,
    /// the generator's seed [default: the book's, 1234; ch5-pi-fma's 1234567]
    #[arg(long, value_name = "N")]
    pub seed: Option<u64>,
}

impl RandomOptions {
    /// The generator and seed asked for, else the default generator on `gpu` and `default_seed`.
    pub fn on(&self, gpu: &Gpu, default_seed: u64) -> (Generator, u64) {
        (self.generator.on(gpu), self.seed.unwrap_or(default_seed))
    }
}
