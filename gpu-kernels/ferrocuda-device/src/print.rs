//! Printing from kernels: [`println!`](crate::println) and [`print!`](macro@crate::print), CUDA C's
//! device-side `printf` with Rust's format syntax (Rust-CUDA's `cuda_std::println!`).
//!
//! ```
//! use ferrocuda_device::prelude::*;
//!
//! #[repr(C)]
//! #[derive(Clone, Copy, KernelArgs)]
//! pub struct NoArgs {
//!     pub unused: u32,
//! }
//!
//! #[kernel]
//! pub fn hello(_args: NoArgs) {
//!     let (thread, block) = (thread_idx_x(), block_idx().x);
//!     ferrocuda_device::println!("Hello from thread {thread}, block {block}");
//! }
//! ```
//!
//! # How a line is made
//! The arguments are formatted with `core::fmt` into a buffer of [`LINE_BUFFER_BYTES`] bytes on
//! the calling thread's stack, and the finished line goes out in one call of CUDA's
//! `vprintf("%s", line)` (the system call that `printf` in CUDA C compiles to; the driver
//! resolves it when it loads the PTX, as it does for nvcc's). On the simulator the same bytes go
//! to the host's standard output in one write.
//!
//! Why format on the device rather than translate `{}` into a `printf` format at compile time:
//! a macro sees tokens, not types, so it cannot pick `%d`, `%u`, `%lld` or `%f` for an argument;
//! `core::fmt` takes every `Display`/`Debug` type with Rust's full syntax (`{:>8.3}`, `{:?}`,
//! `{x:#x}`), prints exactly what the same format prints on the host (so the simulator's lines
//! equal the GPU's byte for byte), and needs no allocator. The cost is paid only by kernels that
//! print: the formatting runs in one out-of-line function ([`_print`]), so a kernel that never
//! prints links none of it, and one that does keeps the line buffer and the formatter's state
//! in that function's frame (local memory), not in the kernel's registers.
//!
//! What a printing kernel does pay: a thread's registers are allocated for the deepest call it
//! can make, so the formatter's needs become the kernel's, whether or not the print runs. Per
//! `ptxas -v` (sm_90): `say_hello`, which prints integers, 55 registers and 440 bytes of stack,
//! 0.2 s to compile. Keep prints out of kernels whose speed matters (behind a `cfg` or a `const`
//! switch).
//!
//! **Floats are expensive to print.** `{}` of an `f32` or `f64` links `core`'s float formatter
//! (Grisu with a Dragon4 fallback, on big integers): the kernel then needs 255 registers, and
//! ptxas takes some 12 s to compile it, which the driver pays when it first loads the module
//! (its JIT cache keeps the result for later runs). For a quick look at a float, print its
//! integer part and a scaled fraction, or its bits (`{:#x}` of `x.to_bits()`).
//!
//! # Limits
//! - A line holds at most [`MAX_LINE_TEXT_BYTES`] bytes of text (its newline not counted).
//!   Longer text is cut at a character boundary and ends in [`TRUNCATION_MARK`], so a cut line is
//!   visible as such; the newline of `println!` is kept.
//! - Each call's text comes out whole: lines of different threads never mix within a line. Their
//!   order between threads is unspecified, on the GPU as on the simulator. A line built from
//!   several `print!` calls can be interleaved with other threads' output, as in CUDA C.
//! - On the GPU the output is held in the driver's printf buffer (1 MiB by default,
//!   `cudaLimitPrintfFifoSize`; beyond it older output is lost) and written to the process's
//!   standard output when the host next synchronises with the device (the host library's
//!   `Gpu::synchronize_output` also flushes it). Each line costs a trip through that buffer:
//!   print for debugging and teaching, not in timed loops.
use core::fmt::{self, Write};

/// Bytes of the per-call line buffer: the text, the truncation mark, the newline and the
/// terminating NUL that `vprintf`'s `%s` needs.
pub const LINE_BUFFER_BYTES: usize = 256;

/// What ends a line whose text did not fit.
pub const TRUNCATION_MARK: &str = "...";

/// The most bytes of text one `print!` or `println!` call prints (without its newline).
pub const MAX_LINE_TEXT_BYTES: usize = LINE_BUFFER_BYTES - TRUNCATION_MARK.len() - 2;

/// One line being formatted: text up to [`MAX_LINE_TEXT_BYTES`], then room for the mark, the
/// newline and the NUL.
pub struct LineBuffer {
    bytes: [u8; LINE_BUFFER_BYTES],
    len: usize,
    truncated: bool,
}

impl Default for LineBuffer {
    fn default() -> Self {
        Self::new()
    }
}

impl LineBuffer {
    /// An empty line.
    pub const fn new() -> Self {
        Self {
            bytes: [0; LINE_BUFFER_BYTES],
            len: 0,
            truncated: false,
        }
    }

    /// Ends the line (the mark if text was cut, then `\n` when `newline`) and returns it with
    /// its terminating NUL.
    pub fn finish(&mut self, newline: bool) -> &[u8] {
        if self.truncated {
            self.push(TRUNCATION_MARK.as_bytes());
        }
        if newline {
            self.push(b"\n");
        }
        self.bytes[self.len] = 0;
        &self.bytes[..=self.len]
    }

    /// Appends bytes the buffer has room for by construction (the reserved tail).
    fn push(&mut self, tail: &[u8]) {
        self.bytes[self.len..self.len + tail.len()].copy_from_slice(tail);
        self.len += tail.len();
    }
}

impl Write for LineBuffer {
    /// Appends `s`; once the text is full, keeps what fits (whole characters) and stops the
    /// formatting, which has nothing more to add.
    fn write_str(&mut self, s: &str) -> fmt::Result {
        if self.truncated {
            return Err(fmt::Error);
        }
        let room = MAX_LINE_TEXT_BYTES - self.len;
        if s.len() <= room {
            self.push(s.as_bytes());
            return Ok(());
        }
        let mut cut = room;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        self.push(&s.as_bytes()[..cut]);
        self.truncated = true;
        Err(fmt::Error)
    }
}

/// Formats `args` into one line and prints it (with a newline when `newline`): the body of
/// [`print!`](crate::print) and [`println!`](crate::println).
///
/// Out of line and cold, so that a kernel pays for the formatter only on the path that prints.
#[doc(hidden)]
#[inline(never)]
#[cold]
pub fn _print(args: fmt::Arguments<'_>, newline: bool) {
    let mut line = LineBuffer::new();
    // An error only says the line was cut; `finish` marks it.
    let _ = line.write_fmt(args);
    crate::arch::print_line(line.finish(newline));
}

/// Prints from a kernel, as CUDA C's `printf` does, with Rust's format syntax; no newline.
///
/// Each call's text comes out whole (see the [module](mod@crate::print) for limits). For a
/// line, use [`println!`](crate::println).
#[macro_export]
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::print::_print(::core::format_args!($($arg)*), false)
    };
}

/// Prints one line from a kernel, as CUDA C's `printf("...\n")` does, with Rust's format syntax.
///
/// ```
/// # fn kernel_body(i: usize, x: f32) {
/// ferrocuda_device::println!("thread {i}: x = {x:.3}");
/// # }
/// ```
///
/// At most [`MAX_LINE_TEXT_BYTES`](crate::print::MAX_LINE_TEXT_BYTES) bytes of text per line;
/// longer text ends in `...`. On the GPU the line reaches standard output when the host next
/// synchronises with the device; on the simulator at once.
#[macro_export]
macro_rules! println {
    () => {
        $crate::print::_print(::core::format_args!(""), true)
    };
    ($($arg:tt)*) => {
        $crate::print::_print(::core::format_args!($($arg)*), true)
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::format;
    use std::string::String;

    fn line(text: &str, newline: bool) -> String {
        let mut buffer = LineBuffer::new();
        let _ = buffer.write_str(text);
        let bytes = buffer.finish(newline);
        assert_eq!(bytes.last(), Some(&0), "the line ends in NUL");
        String::from_utf8(bytes[..bytes.len() - 1].to_vec()).expect("whole characters")
    }

    #[test]
    fn short_text_is_kept_whole() {
        assert_eq!(line("Hello", true), "Hello\n");
        assert_eq!(line("Hello", false), "Hello");
        assert_eq!(line("", true), "\n");
    }

    #[test]
    fn text_of_exactly_the_limit_is_not_cut() {
        let text = "x".repeat(MAX_LINE_TEXT_BYTES);
        assert_eq!(line(&text, true), format!("{text}\n"));
    }

    #[test]
    fn longer_text_is_cut_and_marked() {
        let text = "y".repeat(MAX_LINE_TEXT_BYTES + 1);
        let printed = line(&text, true);
        assert_eq!(printed.len(), MAX_LINE_TEXT_BYTES + TRUNCATION_MARK.len() + 1);
        assert!(printed.ends_with("y...\n"), "{printed}");
    }

    #[test]
    fn a_cut_never_splits_a_character() {
        // 'é' is two bytes: at an odd limit one of them falls on the boundary.
        let text = "é".repeat(MAX_LINE_TEXT_BYTES);
        let printed = line(&text, false);
        let kept = printed.strip_suffix(TRUNCATION_MARK).expect("marked");
        assert!(kept.chars().all(|c| c == 'é'));
        assert!(kept.len() <= MAX_LINE_TEXT_BYTES && kept.len() + 2 > MAX_LINE_TEXT_BYTES);
    }

    #[test]
    fn formatted_pieces_fill_the_line_in_order() {
        let mut buffer = LineBuffer::new();
        let _ = write!(buffer, "a{}b{:>4}c{:.2}", 1, 23, 0.5f32);
        let bytes = buffer.finish(true);
        assert_eq!(&bytes[..bytes.len() - 1], b"a1b  23c0.50\n");
    }
}
