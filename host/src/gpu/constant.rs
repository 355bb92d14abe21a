//! The host side of constant memory (CUDA C's `cudaMemcpyToSymbol` to a `__constant__`): writes
//! words of the kernels' constant bank (`gpu_kernels::device::constant`), found in the loaded
//! module with `cuModuleGetGlobal`, or the simulator's bank.
use super::error::{Error, Result};
use super::{Backend, Gpu};
use gpu_kernels::device::constant::{CONSTANT_BANK_BYTES, CONSTANT_BANK_SYMBOL, ConstantWord};

impl Gpu {
    /// Writes `values` into the constant bank from word `word` (4 bytes each), in stream order:
    /// kernels launched after it read the new values. The bank is one per device (one per process
    /// on the simulator), as a module's `__constant__` variables are.
    ///
    /// ```no_run
    /// let gpu = ferrocuda::Gpu::new(0)?;
    /// gpu.write_constant(0, &[3i32])?; // the `b` of ch3-constant-increment
    /// # Ok::<(), ferrocuda::Error>(())
    /// ```
    pub fn write_constant<T: ConstantWord>(&self, word: usize, values: &[T]) -> Result<()> {
        let words: Vec<u32> = values.iter().map(|v| v.to_word()).collect();
        let (start, end) = (4 * word, 4 * (word + words.len()));
        if end > CONSTANT_BANK_BYTES {
            return Err(Error::InvalidArgument(format!(
                "constant words {word}..{} do not fit the {CONSTANT_BANK_BYTES}-byte constant bank",
                word + words.len()
            )));
        }
        match &self.backend {
            Backend::Sim(_) => gpu_kernels::sim::write_constant_bank(start, &words).map_err(Error::InvalidArgument),
            Backend::Cuda(cuda) => {
                let module = cuda.kernels.cuda_module();
                let mut bank = module
                    .get_global(CONSTANT_BANK_SYMBOL, &cuda.stream)
                    .map_err(Error::cuda(format!("cuModuleGetGlobal(`{CONSTANT_BANK_SYMBOL}`)")))?;
                let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_ne_bytes()).collect();
                let mut range = bank.slice_mut(start..end);
                cuda.stream
                    .memcpy_htod(&bytes, &mut range)
                    .map_err(Error::cuda("copying to the constant bank"))
            }
        }
    }
}
