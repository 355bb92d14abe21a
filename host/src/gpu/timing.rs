//! CUDA-event timing (book §2.1.2): events recorded on the stream, resolution about 0.5 us.
use super::{Error, Gpu, Result};
use cudarc::driver::{CudaEvent, CudaStream, sys::CUevent_flags};

/// A started timer: an event recorded on a stream.
pub struct Timer<'a> {
    stream: &'a CudaStream,
    start: CudaEvent,
}

impl<'a> Timer<'a> {
    /// Records the start event on `stream`.
    pub fn start(stream: &'a CudaStream) -> Result<Self> {
        let start = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(Error::cuda("cudaEventRecord(start)"))?;
        Ok(Self { stream, start })
    }

    /// Records the stop event, waits for it, and returns the milliseconds between the two.
    pub fn stop_ms(self) -> Result<f64> {
        let stop = self
            .stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(Error::cuda("cudaEventRecord(stop)"))?;
        stop.synchronize().map_err(Error::cuda("cudaEventSynchronize(stop)"))?;
        self.start
            .elapsed_ms(&stop)
            .map(f64::from)
            .map_err(Error::cuda("cudaEventElapsedTime"))
    }
}

impl Gpu {
    /// Runs `work` between two events on this `Gpu`'s stream and returns the device time, ms.
    pub fn time_ms(&self, work: impl FnOnce() -> Result<()>) -> Result<f64> {
        let timer = Timer::start(self.stream())?;
        work()?;
        timer.stop_ms()
    }
}
