//! What kernels print (`ferrocuda_device::println!`): in order with the host's own output, and
//! captured for checking on the simulator.
//!
//! On CUDA the driver keeps the kernels' lines in its printf buffer and writes them to the C
//! library's `stdout` when the host synchronises with the device; the process cannot read them
//! back (a test runs the program as a child process and reads its standard output). On the
//! simulator each line goes to standard output as the kernel prints it, or to a capture.
use super::{Backend, Gpu, Result};
use std::io::Write;

unsafe extern "C" {
    /// C's `fflush`: with a null stream, flushes every open output stream (`stdout` among them).
    fn fflush(stream: *mut std::ffi::c_void) -> std::ffi::c_int;
}

impl Gpu {
    /// Waits for the device, then flushes the lines its kernels printed to standard output, so
    /// they come before the host's next line even when standard output is a pipe or a file (where
    /// the C library would otherwise hold them until the process exits).
    pub fn synchronize_output(&self) -> Result<()> {
        // A partial line of the host's goes first, as it was printed first.
        let _ = std::io::stdout().flush();
        self.synchronize()?;
        if let Backend::Cuda(_) = &self.backend {
            // SAFETY: a null stream is `fflush`'s documented "every output stream"; it touches
            // only the C library's own buffers.
            unsafe { fflush(std::ptr::null_mut()) };
        }
        Ok(())
    }

    /// Runs `work` and returns what the kernels it launched from this thread printed: on the
    /// simulator the text, which then does not reach standard output; on CUDA `None`, and the
    /// lines go to standard output at the next synchronisation as usual.
    ///
    /// ```
    /// let gpu = ferrocuda::Gpu::from_env(0)?;
    /// let (value, printed) = gpu.capture_output(|| Ok(42))?;
    /// assert_eq!(value, 42);
    /// if gpu.is_simulator() {
    ///     assert_eq!(printed.as_deref(), Some("")); // nothing launched, nothing printed
    /// }
    /// # Ok::<(), ferrocuda::Error>(())
    /// ```
    pub fn capture_output<R>(&self, work: impl FnOnce() -> Result<R>) -> Result<(R, Option<String>)> {
        match &self.backend {
            Backend::Sim(_) => {
                let (result, printed) = ferrocuda_sim::capture_output(work);
                Ok((result?, Some(printed)))
            }
            Backend::Cuda(_) => Ok((work()?, None)),
        }
    }
}
