//! The book's defaults: an example runs the source's size on a GPU and a smaller one on the CPU
//! simulator, so that a run there takes seconds. A convenience of the book's, not of the library
//! (`ferrocuda::Gpu` says only which backend it is).
use ferrocuda::Gpu;

/// `gpu.pick(on_gpu, on_simulator)`: the first value on a GPU, the second on the simulator.
pub trait Pick {
    /// `on_gpu` on a GPU, `on_simulator` on the simulator.
    fn pick<T>(&self, on_gpu: T, on_simulator: T) -> T;
}

impl Pick for Gpu {
    fn pick<T>(&self, on_gpu: T, on_simulator: T) -> T {
        if self.is_simulator() { on_simulator } else { on_gpu }
    }
}
