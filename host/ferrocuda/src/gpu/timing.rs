//! Timing: CUDA events on the stream (book §2.1.2, resolution about 0.5 us), or the host clock
//! around the simulator's synchronous launches.
use super::{Backend, Error, Gpu, Result};
use cudarc::driver::{CudaEvent, CudaStream, sys::CUevent_flags};
use std::time::Instant;

/// A started timer.
pub enum Timer<'a> {
    /// An event recorded on a stream.
    Events { stream: &'a CudaStream, start: CudaEvent },
    /// The host clock (simulator).
    Host(Instant),
}

impl<'a> Timer<'a> {
    /// Records the start event on `stream`.
    pub fn start_on(stream: &'a CudaStream) -> Result<Self> {
        let start = stream
            .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
            .map_err(Error::cuda("cudaEventRecord(start)"))?;
        Ok(Timer::Events { stream, start })
    }

    /// Stops the timer and returns the milliseconds since its start (for events: waits for the
    /// stop event).
    pub fn stop_ms(self) -> Result<f64> {
        match self {
            Timer::Events { stream, start } => {
                let stop = stream
                    .record_event(Some(CUevent_flags::CU_EVENT_DEFAULT))
                    .map_err(Error::cuda("cudaEventRecord(stop)"))?;
                stop.synchronize().map_err(Error::cuda("cudaEventSynchronize(stop)"))?;
                start
                    .elapsed_ms(&stop)
                    .map(f64::from)
                    .map_err(Error::cuda("cudaEventElapsedTime"))
            }
            Timer::Host(start) => Ok(start.elapsed().as_secs_f64() * 1e3),
        }
    }
}

impl Gpu {
    /// Starts a timer on this `Gpu`'s stream (events), or on the host clock for the simulator.
    pub fn timer(&self) -> Result<Timer<'_>> {
        match &self.backend {
            Backend::Cuda(cuda) => Timer::start_on(&cuda.stream),
            Backend::Sim(_) => Ok(Timer::Host(Instant::now())),
        }
    }

    /// Runs `work` between a timer's start and stop and returns the time, ms.
    pub fn time_ms(&self, work: impl FnOnce() -> Result<()>) -> Result<f64> {
        let timer = self.timer()?;
        work()?;
        let ms = timer.stop_ms()?;
        self.synchronize()?;
        Ok(ms)
    }

    /// What [`Gpu::time_ms`] measures, for output: "CUDA events" or "simulator, host clock".
    pub fn timing_label(&self) -> &'static str {
        match &self.backend {
            Backend::Cuda(_) => "CUDA events",
            Backend::Sim(_) => "simulator timing, host clock",
        }
    }
}
