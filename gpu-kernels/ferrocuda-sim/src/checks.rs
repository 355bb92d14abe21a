//! Which of the simulator's optional checks a launch makes: the process's default, from
//! `FERROCUDA_SIM_CHECKS`, and a scoped override for the launches of one host thread.
use std::cell::Cell;
use std::string::String;
use std::sync::OnceLock;

/// The optional checks of a simulated launch. The checks that cost nothing measurable (bounds,
/// never-written shared memory, barriers and warp operations every lane must reach) are always
/// made.
///
/// The default comes from `FERROCUDA_SIM_CHECKS`, a comma-separated list read once per process:
/// `race` (the shared-memory race detector, [`Checks::shared_race`]), `global-race` (the
/// cross-block global-memory race detector, [`Checks::global_race`]), `all`, or `none`. Unset,
/// it is `race`: the shared-memory detector is on by default, in tests and everywhere else.
/// [`with_checks`] overrides the default for the launches one host thread makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Checks {
    /// Two threads of a block touching the same shared-memory bytes between two barriers, one of
    /// them writing, without a barrier (or, within a warp, a `__syncwarp`, shuffle or vote)
    /// ordering them. Costs nothing on kernels without shared memory, up to about 1.4 times the
    /// time on one made of shared-memory accesses.
    pub shared_race: bool,
    /// Two blocks of a launch touching the same global-memory bytes, one of them writing, not
    /// ordered by a `__threadfence` and atomics (a lock). Every global access is looked up in a
    /// launch-wide table, which makes launches 4 to 100 times slower (the most on the fast path
    /// of barrier-free kernels) and holds tens of bytes per word touched, hence off by default.
    pub global_race: bool,
}

impl Checks {
    /// Every optional check.
    pub const ALL: Checks = Checks {
        shared_race: true,
        global_race: true,
    };
    /// No optional check.
    pub const NONE: Checks = Checks {
        shared_race: false,
        global_race: false,
    };
    /// The default without `FERROCUDA_SIM_CHECKS`: the shared-memory race detector only.
    pub const DEFAULT: Checks = Checks {
        shared_race: true,
        global_race: false,
    };

    /// Parses a `FERROCUDA_SIM_CHECKS` value; `Err` names the word it does not know.
    pub fn parse(list: &str) -> Result<Checks, String> {
        let mut checks = Checks::NONE;
        for word in list.split(',').map(str::trim).filter(|w| !w.is_empty()) {
            match word {
                "race" => checks.shared_race = true,
                "global-race" => checks.global_race = true,
                "all" => checks = Checks::ALL,
                "none" => checks = Checks::NONE,
                other => {
                    return Err(std::format!(
                        "FERROCUDA_SIM_CHECKS: unknown check `{other}` (known: race, global-race, all, none)"
                    ));
                }
            }
        }
        Ok(checks)
    }
}

std::thread_local! {
    /// The override [`with_checks`] sets for this host thread's launches.
    static OVERRIDE: Cell<Option<Checks>> = const { Cell::new(None) };
}

/// The checks `FERROCUDA_SIM_CHECKS` asks for ([`Checks::DEFAULT`] when unset), or one sentence
/// naming what is wrong with its value. `ferrocuda`'s `Gpu::open` asks this before it opens a
/// simulator, so a bad value is refused there, before any launch.
pub fn checks_from_env() -> Result<Checks, String> {
    match std::env::var("FERROCUDA_SIM_CHECKS") {
        Ok(list) => Checks::parse(&list),
        Err(std::env::VarError::NotPresent) => Ok(Checks::DEFAULT),
        Err(std::env::VarError::NotUnicode(_)) => Err(
            "FERROCUDA_SIM_CHECKS is not valid UTF-8: give a comma-separated list of race, global-race, all, none"
                .into(),
        ),
    }
}

/// The checks of the process: `FERROCUDA_SIM_CHECKS`, or [`Checks::DEFAULT`] when unset.
///
/// Panics on a value [`checks_from_env`] refuses, naming the unknown word: a check the user asked
/// for must not be silently left out (the host library refuses such a value when it opens the
/// simulator, so its launches never get here with one).
pub fn default_checks() -> Checks {
    static FROM_ENV: OnceLock<Checks> = OnceLock::new();
    *FROM_ENV.get_or_init(|| checks_from_env().unwrap_or_else(|e| panic!("{e}")))
}

/// The checks the next launch from this host thread makes.
pub fn current_checks() -> Checks {
    OVERRIDE.get().unwrap_or_else(default_checks)
}

/// Runs `work` with `checks` for every launch this host thread makes inside it (a launch runs on
/// the thread that makes it), whatever `FERROCUDA_SIM_CHECKS` says.
///
/// ```
/// use ferrocuda_sim::{Checks, current_checks, with_checks};
/// let inside = with_checks(Checks::ALL, current_checks);
/// assert!(inside.global_race && inside.shared_race);
/// ```
pub fn with_checks<R>(checks: Checks, work: impl FnOnce() -> R) -> R {
    /// Puts the previous override back, also when `work` unwinds.
    struct Restore(Option<Checks>);
    impl Drop for Restore {
        fn drop(&mut self) {
            OVERRIDE.set(self.0);
        }
    }
    let _restore = Restore(OVERRIDE.replace(Some(checks)));
    work()
}
