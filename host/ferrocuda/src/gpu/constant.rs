//! The host side of constant memory (CUDA C's `cudaMemcpyToSymbol` to a `__constant__`): writes
//! words of a kernel set's constant bank (`ferrocuda_device::constant`), found in its loaded
//! module with `cuModuleGetGlobal`, or the simulator's bank.
use super::Backend;
use super::error::{Error, Result};
use super::kernels::LoadedKernels;
use ferrocuda_device::constant::{CONSTANT_BANK_BYTES, CONSTANT_BANK_SYMBOL, ConstantValue};

impl LoadedKernels<'_> {
    /// Writes `values` into this kernel set's constant bank from word `word` (4 bytes each; an
    /// 8-byte value takes two and starts at an even word), in stream order: kernels launched
    /// after it read the new values. The bank is one per loaded module (one per process on the
    /// simulator), as a module's `__constant__` variables are.
    pub fn write_constant<T: ConstantValue>(&self, word: usize, values: &[T]) -> Result<()> {
        let words: Vec<u32> = values
            .iter()
            .flat_map(|v| v.to_words().into_iter().take(T::WORDS))
            .collect();
        let end_word = word.saturating_add(words.len());
        if end_word > CONSTANT_BANK_BYTES / 4 {
            return Err(Error::InvalidArgument(format!(
                "constant words {word}..{end_word} do not fit the {CONSTANT_BANK_BYTES}-byte constant bank",
            )));
        }
        if !word.is_multiple_of(T::WORDS) {
            return Err(Error::InvalidArgument(format!(
                "{}-byte constant values start at an even word, not at word {word}",
                4 * T::WORDS
            )));
        }
        let (start, end) = (4 * word, 4 * end_word);
        match (&self.gpu().backend, self.module()) {
            (Backend::Sim(_), _) => ferrocuda_sim::write_constant_bank(start, &words).map_err(Error::InvalidArgument),
            (Backend::Cuda(_), None) => Err(super::stream::mixed()),
            (Backend::Cuda(cuda), Some(module)) => {
                let module = module.cuda_module();
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
