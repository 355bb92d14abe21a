//! The simulated threads' stacks: their size (`FERROCUDA_SIM_STACK`), and the guard that turns a
//! thread's stack overflow into a [`Fault`](crate::Fault) of its launch instead of a segfault of
//! the process.
//!
//! Each simulated thread of a cooperative block runs on its own stack, mapped with a guard page
//! below it (`corosensei`'s `DefaultStack`). A thread that overflows it touches the guard page and
//! the kernel delivers `SIGSEGV`. The simulator's handler, installed once, checks whether the
//! faulting address lies in the guard page of the stack this host thread is running; if so it
//! makes that coroutine return [`Exit::StackOverflow`] (`corosensei`'s trap handler resets the
//! stack and jumps to its return), and the launch ends with a fault naming the kernel, the stack
//! size and the fix. Any other fault goes to the handler that was there before (Rust's own, which
//! reports the host thread's stack overflows), or to the default action.
use std::string::String;
use std::sync::OnceLock;

/// Bytes of each simulated thread's stack when `FERROCUDA_SIM_STACK` is unset: enough for every
/// kernel of the repository in a debug build (the deepest, a course convolution with its
/// `dp4a` emulation and libm's argument reduction, needs less than half), at no cost in memory
/// until a page is touched.
pub const DEFAULT_STACK_BYTES: usize = 1 << 20;
/// The smallest and largest stacks `FERROCUDA_SIM_STACK` accepts.
const STACK_BYTES_RANGE: core::ops::RangeInclusive<usize> = (64 << 10)..=(1 << 30);

/// How a simulated thread's coroutine ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Exit {
    /// The kernel returned (or unwound: the caller catches the panic).
    Returned,
    /// The thread overflowed its stack; its frames were dropped without running their
    /// destructors.
    StackOverflow,
}

/// The stack size `FERROCUDA_SIM_STACK` asks for ([`DEFAULT_STACK_BYTES`] when unset), or one
/// sentence naming what is wrong with its value. The value is bytes, or a number with `K`/`KiB`
/// or `M`/`MiB`, from 64 KiB to 1 GiB. `ferrocuda`'s `Gpu::open` asks this before it opens a
/// simulator, so a bad value is refused there, before any launch.
pub fn stack_bytes_from_env() -> Result<usize, String> {
    match std::env::var("FERROCUDA_SIM_STACK") {
        Ok(text) => parse_stack_bytes(&text),
        Err(std::env::VarError::NotPresent) => Ok(DEFAULT_STACK_BYTES),
        Err(std::env::VarError::NotUnicode(_)) => {
            Err("FERROCUDA_SIM_STACK is not valid UTF-8: give a size such as 4M or 4MiB".into())
        }
    }
}

fn parse_stack_bytes(text: &str) -> Result<usize, String> {
    let trimmed = text.trim();
    let split = trimmed.find(|c: char| !c.is_ascii_digit()).unwrap_or(trimmed.len());
    let (digits, unit) = trimmed.split_at(split);
    let scale: usize = match unit.trim() {
        "" => 1,
        "K" | "k" | "KiB" => 1 << 10,
        "M" | "m" | "MiB" => 1 << 20,
        "G" | "g" | "GiB" => 1 << 30,
        _ => 0,
    };
    let bytes = digits.parse::<usize>().ok().and_then(|n| n.checked_mul(scale));
    match bytes {
        Some(bytes) if STACK_BYTES_RANGE.contains(&bytes) => Ok(bytes),
        _ => Err(std::format!(
            "FERROCUDA_SIM_STACK={text:?} is not a stack size from 64K to 1G: give bytes or a number with K, KiB, M or MiB, such as 4M"
        )),
    }
}

/// The stack of each simulated thread: `FERROCUDA_SIM_STACK`, or [`DEFAULT_STACK_BYTES`].
///
/// Panics on a value [`stack_bytes_from_env`] refuses (the host library refuses such a value
/// when it opens the simulator, so its launches never get here with one).
pub fn stack_bytes() -> usize {
    static FROM_ENV: OnceLock<usize> = OnceLock::new();
    *FROM_ENV.get_or_init(|| stack_bytes_from_env().unwrap_or_else(|e| panic!("{e}")))
}

/// The fault message of a thread that overflowed its stack.
pub(crate) fn overflow_message() -> String {
    std::format!(
        "the thread overflowed its {} KiB simulator stack (deep recursion, large local arrays, or a debug build's \
         frames): set FERROCUDA_SIM_STACK to a larger size (such as FERROCUDA_SIM_STACK=8M), or build with --release",
        stack_bytes() >> 10
    )
}

mod guard;
pub(crate) use guard::Running;

#[cfg(test)]
mod tests {
    use super::parse_stack_bytes;

    #[test]
    fn sizes_parse_with_and_without_units() {
        assert_eq!(parse_stack_bytes("1048576"), Ok(1 << 20));
        assert_eq!(parse_stack_bytes("512K"), Ok(512 << 10));
        assert_eq!(parse_stack_bytes("4MiB"), Ok(4 << 20));
        assert_eq!(parse_stack_bytes(" 8M "), Ok(8 << 20));
    }

    #[test]
    fn sizes_outside_the_range_or_malformed_are_refused() {
        for bad in ["", "4X", "-1", "1K", "2G", "M", "99999999999999999999999", "4.5M"] {
            let message = parse_stack_bytes(bad).unwrap_err();
            assert!(message.starts_with("FERROCUDA_SIM_STACK="), "{message}");
        }
    }
}
