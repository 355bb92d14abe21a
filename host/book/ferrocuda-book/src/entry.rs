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
    /// What a run of an example described by `size` gets on `gpu`, with its own options `args`.
    /// `n` is the size to run (or plan) at.
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

/// One registered example, type-erased for the runner, the list and the tests.
pub trait Entry: Sync {
    /// `ch1-increment`, as in the spec.
    fn id(&self) -> &'static str;
    /// One line.
    fn description(&self) -> &'static str;
    /// `--size`, or `None` when the source fixes the sizes.
    fn size(&self) -> Option<Size>;
    /// True when it repeats timed runs (`--reps`).
    fn reps(&self) -> bool;
    /// The precisions it runs in, its default first.
    fn precisions(&self) -> &'static [Precision];
    /// True when it runs one process per GPU under `mpirun` (chapter 4).
    fn is_mpi(&self) -> bool {
        false
    }
    /// `command` with the example's own options added.
    fn own_options(&self, command: Command) -> Command;
    /// The bytes a run at size `n` needs, given the command line's `matches`; `None` when the
    /// count overflows.
    fn memory(&self, gpu: &Gpu, shared: &Shared, n: usize, matches: &ArgMatches) -> Result<Option<Footprint>>;
    /// Checks, before any work, that the files its options name can be written.
    fn check_paths(&self, shared: &Shared, matches: &ArgMatches) -> Result<()> {
        let _ = (shared, matches);
        Ok(())
    }
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

/// An [`Example`] with one precision (f32, or none), registered as it is.
pub struct F32<E>(PhantomData<fn() -> E>);

impl<E> F32<E> {
    /// The registration of `E`.
    pub const fn new() -> Self {
        Self(PhantomData)
    }
}

impl<E: Example> Entry for F32<E> {
    fn id(&self) -> &'static str {
        E::ID
    }
    fn description(&self) -> &'static str {
        E::DESCRIPTION
    }
    fn size(&self) -> Option<Size> {
        E::SIZE
    }
    fn reps(&self) -> bool {
        E::REPS
    }
    fn precisions(&self) -> &'static [Precision] {
        &[Precision::F32]
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
}

/// An [`Example`] generic over precision: `E32` and `E64` are its two instances (`Sor<f32>`,
/// `Sor<f64>`), with the same id and options; `default` is the precision of a run without
/// `--precision` (f64 where the source computes in double).
pub struct Generic<E32, E64> {
    default: Precision,
    instances: PhantomData<fn() -> (E32, E64)>,
}

impl<E32, E64> Generic<E32, E64> {
    /// Registered with f32 by default.
    pub const fn f32_default() -> Self {
        Self {
            default: Precision::F32,
            instances: PhantomData,
        }
    }

    /// Registered with f64 by default (the source computes in double).
    pub const fn f64_default() -> Self {
        Self {
            default: Precision::F64,
            instances: PhantomData,
        }
    }
}

impl<E32: Example, E64: Example<Args = E32::Args>> Entry for Generic<E32, E64> {
    fn id(&self) -> &'static str {
        E32::ID
    }
    fn description(&self) -> &'static str {
        E32::DESCRIPTION
    }
    fn size(&self) -> Option<Size> {
        E32::SIZE
    }
    fn reps(&self) -> bool {
        E32::REPS
    }
    fn precisions(&self) -> &'static [Precision] {
        match self.default {
            Precision::F32 => &[Precision::F32, Precision::F64],
            Precision::F64 => &[Precision::F64, Precision::F32],
        }
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
