//! What kernels print (`ferrocuda_device::println!`): each call's text goes to the host's
//! standard output in one locked write, so lines of threads simulated in parallel never mix
//! within a line, or, inside [`capture_output`], to a buffer the caller reads back.
use super::context::with_block_if_any;
use std::io::Write;
use std::string::String;
use std::sync::{Arc, Mutex, PoisonError};
use std::vec::Vec;

/// Where a launch's printed text goes instead of standard output.
pub(crate) type Sink = Arc<Mutex<Vec<u8>>>;

std::thread_local! {
    /// The capture of the launches this host thread makes, while [`capture_output`] runs.
    static CAPTURE: std::cell::RefCell<Option<Sink>> = const { std::cell::RefCell::new(None) };
}

/// The capture, if any, of launches made now from this host thread (read when a launch starts,
/// and handed to each of its blocks, which run on other host threads).
pub(crate) fn launch_sink() -> Option<Sink> {
    CAPTURE.with_borrow(Clone::clone)
}

/// Runs `work` and returns what the kernels it launched from this host thread printed, instead
/// of printing it. Launches from other host threads (other tests) are not captured.
///
/// ```
/// let ((), printed) = ferrocuda_sim::capture_output(|| ());
/// assert!(printed.is_empty());
/// ```
pub fn capture_output<R>(work: impl FnOnce() -> R) -> (R, String) {
    /// Puts back the capture that was in place (if nested), also when `work` panics.
    struct Restore(Option<Sink>);
    impl Drop for Restore {
        fn drop(&mut self) {
            CAPTURE.set(self.0.take());
        }
    }
    let sink = Sink::default();
    let _restore = Restore(CAPTURE.replace(Some(sink.clone())));
    let result = work();
    let bytes = std::mem::take(&mut *sink.lock().unwrap_or_else(PoisonError::into_inner));
    (result, String::from_utf8_lossy(&bytes).into_owned())
}

/// Prints `text` for the calling simulated thread: to its launch's capture, or to standard
/// output in one write (outside a launch, too).
pub fn print(text: &[u8]) {
    match with_block_if_any(|block| block.output.clone()).flatten() {
        Some(sink) => sink
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .extend_from_slice(text),
        None => {
            // A failed write to stdout (closed pipe) is not the kernel's fault; it is dropped,
            // as the driver drops printf output nobody reads.
            let _ = std::io::stdout().lock().write_all(text);
        }
    }
}
