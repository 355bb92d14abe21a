//! An example as the runner sees it ([`Entry`]): its description, its command line, its memory
//! plan and its run, whatever the type of its options. [`F32`] registers an [`Example`] that has
//! one precision; [`Generic`] one written once, generic over precision, and instantiated for f32
//! and f64, with the precision a run takes by default. The table of them all is
//! [`crate::registry`], a floor above the examples; this is a floor below them.
use crate::example::{Example, Outcome, Precision, Run, Size};
use clap::{ArgMatches, Command, FromArgMatches};
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{Error, Gpu, Result};
#[cfg(feature = "mpi")]
use ferrocuda::mpi::{Mpi, Placement};
use std::marker::PhantomData;

/// The options every example shares, as the command line gave them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shared {
    /// `--size`, if given.
    pub size: Option<usize>,
    pub precision: Precision,
    /// `--reps`, or its default.
    pub reps: usize,
}

/// The timed repetitions of a run without `--reps`.
pub const DEFAULT_REPS: usize = 10;

impl Shared {
    /// What a run at size `n` (the size to run or plan at) is given, with its own options `args`.
    fn run<A>(&self, n: usize, args: A) -> Run<A> {
        Run {
            size: n,
            size_given: self.size.is_some(),
            precision: self.precision,
            reps: self.reps,
            args,
        }
    }
}

/// What the list, the help and the planner read of a registered example.
#[derive(Clone, Copy, Debug)]
pub struct About {
    /// `ch1-increment`, as in the spec.
    pub id: &'static str,
    /// One line.
    pub description: &'static str,
    /// `--size`, or `None` when the source fixes the sizes.
    pub size: Option<Size>,
    /// True when it repeats timed runs (`--reps`).
    pub reps: bool,
    /// The precisions it runs in, its default first.
    pub precisions: &'static [Precision],
    /// True when it runs one process per GPU under `mpirun` (chapter 4).
    pub mpi: bool,
}

impl About {
    /// `E`'s description, in `precisions`.
    const fn of<E: Example>(precisions: &'static [Precision], mpi: bool) -> Self {
        Self {
            id: E::ID,
            description: E::DESCRIPTION,
            size: E::SIZE,
            reps: E::REPS,
            precisions,
            mpi,
        }
    }
}

/// One registered example, type-erased for the runner, the list and the tests.
pub trait Entry: Sync {
    /// Its description.
    fn about(&self) -> About;
    /// `ch1-increment`, as in the spec.
    fn id(&self) -> &'static str {
        self.about().id
    }
    /// One line.
    fn description(&self) -> &'static str {
        self.about().description
    }
    /// `--size`, or `None` when the source fixes the sizes.
    fn size(&self) -> Option<Size> {
        self.about().size
    }
    /// True when it repeats timed runs (`--reps`).
    fn reps(&self) -> bool {
        self.about().reps
    }
    /// The precisions it runs in, its default first.
    fn precisions(&self) -> &'static [Precision] {
        self.about().precisions
    }
    /// True when it runs one process per GPU under `mpirun` (chapter 4).
    fn is_mpi(&self) -> bool {
        self.about().mpi
    }
    /// `command` with the example's own options added.
    fn own_options(&self, command: Command) -> Command;
    /// The bytes a run at size `n` needs, given the command line's `matches`; `None` when the
    /// count overflows.
    fn memory(&self, gpu: &Gpu, shared: &Shared, n: usize, matches: &ArgMatches) -> Result<Option<Footprint>>;
    /// Runs it at size `n` (the given or default size; 0 for an example without sizes).
    fn run(&self, gpu: &Gpu, shared: &Shared, n: usize, matches: &ArgMatches) -> Result<Outcome>;
    /// Runs this rank's part of an MPI example, MPI started and the rank's device assigned.
    #[cfg(feature = "mpi")]
    fn run_rank(
        &self,
        mpi: &Mpi,
        gpu: &Gpu,
        placement: &Placement,
        shared: &Shared,
        n: usize,
        matches: &ArgMatches,
    ) -> Result<Outcome> {
        let _ = (mpi, gpu, placement, shared, n, matches);
        Err(Error::InvalidArgument(format!("{} is not an MPI example", self.id())))
    }
}

/// The refusal of an MPI id in a build without MPI: one sentence naming the build command.
pub fn needs_mpi_build(id: &str) -> Error {
    Error::InvalidArgument(format!(
        "{id} needs MPI, and this build has none: run `cargo xtask mpirun -np 2 {id}` (it builds with `--features mpi`), or build with `cargo build --release -p ferrocuda-runner --features mpi` and start `mpirun -np 2 target/release/ferrocuda-runner run {id}`"
    ))
}

/// The example's own options from `matches`, or clap's sentence.
fn own<E: Example>(matches: &ArgMatches) -> Result<E::Args> {
    E::Args::from_arg_matches(matches).map_err(|e| Error::InvalidArgument(e.to_string()))
}

/// An [`Example`] generic over precision: `E32` and `E64` are its two instances (`Sor<f32>`,
/// `Sor<f64>`), with the same id and options; the registration says which precision a run
/// without `--precision` takes (f64 where the source computes in double).
pub struct Generic<E32, E64> {
    /// The precisions it takes, its default first.
    precisions: &'static [Precision],
    instances: PhantomData<fn() -> (E32, E64)>,
}

impl<E32, E64> Generic<E32, E64> {
    /// Registered with f32 by default.
    pub const fn f32_default() -> Self {
        Self {
            precisions: &[Precision::F32, Precision::F64],
            instances: PhantomData,
        }
    }

    /// Registered with f64 by default (the source computes in double).
    pub const fn f64_default() -> Self {
        Self {
            precisions: &[Precision::F64, Precision::F32],
            instances: PhantomData,
        }
    }
}

/// An [`Example`] with one precision (f32, or none), registered as it is: the command line
/// offers only f32, so the one instance always runs.
pub type F32<E> = Generic<E, E>;

impl<E> F32<E> {
    /// The registration of `E` (a `const fn` for the registry's static: no `Default`).
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self {
            precisions: &[Precision::F32],
            instances: PhantomData,
        }
    }
}

impl<E32: Example, E64: Example<Args = E32::Args>> Entry for Generic<E32, E64> {
    fn about(&self) -> About {
        About::of::<E32>(self.precisions, false)
    }
    fn own_options(&self, command: Command) -> Command {
        <E32::Args as clap::Args>::augment_args(command)
    }
    fn memory(&self, gpu: &Gpu, shared: &Shared, n: usize, matches: &ArgMatches) -> Result<Option<Footprint>> {
        let run = shared.run(n, own::<E32>(matches)?);
        Ok(match shared.precision {
            Precision::F32 => E32::memory(&run, gpu),
            Precision::F64 => E64::memory(&run, gpu),
        })
    }
    fn run(&self, gpu: &Gpu, shared: &Shared, n: usize, matches: &ArgMatches) -> Result<Outcome> {
        let run = shared.run(n, own::<E32>(matches)?);
        match shared.precision {
            Precision::F32 => E32::run(gpu, &run),
            Precision::F64 => E64::run(gpu, &run),
        }
    }
}

/// An [`Example`] that runs one process per GPU under `mpirun` (book §4.2): the runner starts
/// MPI, gives each rank its own device and calls its `run_rank` there (built with the `mpi` feature). Its
/// [`Example::run`] is [`run_in_process`]: a job of one rank, MPI started in this process.
pub trait RankExample: Example {
    /// One rank's part: MPI started, its device opened where MPI placed it.
    #[cfg(feature = "mpi")]
    fn run_rank(mpi: &Mpi, gpu: &Gpu, placement: &Placement, run: &Run<Self::Args>) -> Result<Outcome>;
}

/// A [`RankExample`] called as a plain example, outside `mpirun`: MPI started in this process
/// (one rank unless a launcher started it), its rank's part on `gpu`; in a build without MPI,
/// the one-sentence refusal of [`needs_mpi_build`].
pub fn run_in_process<E: RankExample>(gpu: &Gpu, run: &Run<E::Args>) -> Result<Outcome> {
    #[cfg(feature = "mpi")]
    {
        let mpi = Mpi::init()?;
        let result = (|| {
            let placement = Placement {
                rank: mpi.rank(),
                node: mpi.node()?,
                device: (!gpu.is_simulator()).then(|| gpu.properties().ordinal),
                devices_on_node: match gpu.is_simulator() {
                    true => 0,
                    false => ferrocuda::gpu::device_count()?,
                },
            };
            E::run_rank(&mpi, gpu, &placement, run)
        })();
        mpi.finish(result)
    }
    #[cfg(not(feature = "mpi"))]
    {
        let _ = (gpu, run);
        Err(needs_mpi_build(E::ID))
    }
}

/// A [`RankExample`], registered as it is: an MPI example ([`Entry::is_mpi`]) with one
/// precision, whose ranks the runner starts with `Entry::run_rank` (built with the `mpi` feature).
pub struct MpiRanks<E>(PhantomData<fn() -> E>);

impl<E> MpiRanks<E> {
    /// The registration of `E` (a `const fn` for the registry's static: no `Default`).
    #[allow(clippy::new_without_default)]
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<E: RankExample> Entry for MpiRanks<E> {
    fn about(&self) -> About {
        About::of::<E>(&[Precision::F32], true)
    }
    fn own_options(&self, command: Command) -> Command {
        <E::Args as clap::Args>::augment_args(command)
    }
    fn memory(&self, gpu: &Gpu, shared: &Shared, n: usize, matches: &ArgMatches) -> Result<Option<Footprint>> {
        Ok(E::memory(&shared.run(n, own::<E>(matches)?), gpu))
    }
    fn run(&self, gpu: &Gpu, shared: &Shared, n: usize, matches: &ArgMatches) -> Result<Outcome> {
        E::run(gpu, &shared.run(n, own::<E>(matches)?))
    }
    #[cfg(feature = "mpi")]
    fn run_rank(
        &self,
        mpi: &Mpi,
        gpu: &Gpu,
        placement: &Placement,
        shared: &Shared,
        n: usize,
        matches: &ArgMatches,
    ) -> Result<Outcome> {
        E::run_rank(mpi, gpu, placement, &shared.run(n, own::<E>(matches)?))
    }
}
