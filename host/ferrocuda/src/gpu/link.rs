//! Separate compilation: kernel sets whose PTX calls functions or uses variables of another set
//! (`extern` declarations in the kernel crate), linked into one module by the driver's JIT linker
//! (`cuLinkCreate`, `cuLinkAddData`, `cuLinkComplete`), as `nvcc -rdc=true` and `nvlink` link
//! relocatable device code (book §1.6.1; CUDA C++ Programming Guide, "Separate Compilation").
//!
//! On the CPU simulator the host's linker has already resolved the declarations (each kernel
//! crate is an ordinary Rust library there), so nothing is linked at run time; the symbols are
//! still checked, so that a set loaded without the set it needs is refused on both backends.
use super::cuda::CudaDevice;
use super::error::{Error, Result};
use super::kernels::{KernelSet, LoadedKernels};
use super::{Backend, Gpu};
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::ptr;

/// Bytes of the linker's error log: a few hundred lines.
const LINK_LOG_BYTES: usize = 16 * 1024;

/// The constant bank's PTX symbol, which the device library defines in every kernel crate that
/// uses it (`ferrocuda_device::constant`).
const CONSTANT_BANK: &str = ferrocuda_device::constant::CONSTANT_BANK_SYMBOL;

impl Gpu {
    /// The kernels of several sets linked into one module: a set's PTX may call functions and
    /// use device variables that another set of the list defines (`extern` declarations), as
    /// relocatable device code does in CUDA. On CUDA the driver's linker joins the sets' modules
    /// for the device's architecture, once per device and list; on the simulator the host's
    /// linker already did, and the kernels run directly.
    ///
    /// Fails with one sentence naming the symbols when a set uses one that no set of the list
    /// defines, or when two sets define the same one. Kernel sets that use the constant bank
    /// share one bank, the first set's.
    ///
    /// ```
    /// use ferrocuda::Gpu;
    /// let gpu = Gpu::simulator();
    /// // A set that calls nothing of another links alone; one that does is listed with the set
    /// // that defines what it calls: `gpu.link(&[&C_M, &D_M])`.
    /// let kernels = gpu.link(&[&ferrocuda::ptx::LIBRARY])?;
    /// assert!(kernels.gpu().is_simulator());
    /// # Ok::<(), ferrocuda::Error>(())
    /// ```
    pub fn link(&self, sets: &[&'static KernelSet]) -> Result<LoadedKernels<'_>> {
        if sets.is_empty() {
            return Err(Error::InvalidArgument(
                "`gpu.link` needs at least one kernel set".into(),
            ));
        }
        for (i, set) in sets.iter().enumerate() {
            if sets[..i].iter().any(|other| other.name() == set.name()) {
                return Err(Error::InvalidArgument(format!(
                    "kernel set `{}` is listed twice in `gpu.link`",
                    set.name()
                )));
            }
        }
        let module = match &self.backend {
            Backend::Cuda(cuda) => {
                let key = sets.iter().map(|s| s.name()).collect::<Vec<_>>().join("+");
                Some(cuda.module_named(&key, || self.jit_link(cuda, sets))?)
            }
            Backend::Sim(_) => {
                check_symbols(sets)?;
                None
            }
        };
        Ok(LoadedKernels {
            gpu: self,
            sets: sets.to_vec(),
            module,
        })
    }

    /// Links the sets' modules for this device with the driver's JIT linker and loads the cubin.
    fn jit_link(&self, cuda: &CudaDevice, sets: &[&'static KernelSet]) -> Result<super::cuda::Module> {
        let mut inputs = Vec::with_capacity(sets.len());
        let mut bank_defined = false;
        for set in sets {
            let module = self.ptx_for_device(set)?;
            let mut ptx = module.ptx.to_string();
            let defines_bank = set.linkage().defined.contains(&CONSTANT_BANK);
            if defines_bank && bank_defined {
                ptx = declare_constant_bank(&ptx);
            }
            bank_defined |= defines_bank;
            inputs.push((set.name(), module.arch, ptx));
        }
        let what = format!("the linked PTX of {}", quoted_names(sets));
        let cubin = JitLink::new(cuda)?
            .link(&inputs)
            .map_err(|error| match (&error, check_symbols(sets)) {
                // No log from the driver: the PTX's own directives say what is missing.
                (Error::Cuda { .. }, Err(Error::Link(why))) => Error::Link(format!("{why} ({error})")),
                _ => error,
            })?;
        cuda.load_cubin(cubin, &what)
    }
}

/// `ptx` with its definition of the constant bank turned into a declaration, so that the linked
/// module has one bank (the first set's) and not two definitions of one symbol.
fn declare_constant_bank(ptx: &str) -> String {
    let definition = format!(".visible .const .align 16 .b8 {CONSTANT_BANK}[");
    let declaration = format!(".extern .const .align 16 .b8 {CONSTANT_BANK}[");
    ptx.replacen(&definition, &declaration, 1)
}

/// The sets' names for messages: `c_m, d_m`.
pub(super) fn set_names(sets: &[&KernelSet]) -> String {
    sets.iter().map(|s| s.name()).collect::<Vec<_>>().join(", ")
}

/// The sets' names, each quoted: `` `c_m`, `d_m` ``.
fn quoted_names(sets: &[&KernelSet]) -> String {
    sets.iter()
        .map(|s| format!("`{}`", s.name()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The symbols as a list for messages: `` `negate_d`, `D_D` ``.
fn quoted(symbols: &[&str]) -> String {
    symbols.iter().map(|s| format!("`{s}`")).collect::<Vec<_>>().join(", ")
}

/// The error for loading `set` alone when its PTX uses symbols it does not define, with `cause`
/// appended (the driver's refusal on CUDA); `None` when it defines all it uses.
pub(super) fn unresolved_alone(set: &KernelSet, cause: &str) -> Option<Error> {
    let linkage = set.linkage();
    let missing: Vec<&str> = linkage
        .declared
        .iter()
        .copied()
        .filter(|symbol| !linkage.defined.contains(symbol))
        .collect();
    (!missing.is_empty()).then(|| {
        Error::Link(format!(
            "kernel set `{}` uses {}, which it only declares (`extern`), so it cannot be loaded alone: link it with the kernel set that defines them, `gpu.link(&[..])`{cause}",
            set.name(),
            quoted(&missing)
        ))
    })
}

/// What the driver's linker checks, checked on the PTX texts: every symbol a set declares is
/// defined by a set of the list, and no symbol is defined twice (the constant bank excepted:
/// the sets share the first one's).
fn check_symbols(sets: &[&'static KernelSet]) -> Result<()> {
    let mut definitions: Vec<(&str, &str)> = Vec::new();
    for set in sets {
        for &symbol in &set.linkage().defined {
            if let Some((_, first)) = definitions.iter().find(|(s, _)| *s == symbol)
                && symbol != CONSTANT_BANK
            {
                return Err(Error::Link(format!(
                    "linking {}: `{symbol}` is defined in both `{first}` and `{}`",
                    quoted_names(sets),
                    set.name()
                )));
            }
            definitions.push((symbol, set.name()));
        }
    }
    for set in sets {
        let missing: Vec<&str> = set
            .linkage()
            .declared
            .iter()
            .copied()
            .filter(|symbol| !definitions.iter().any(|(s, _)| s == symbol))
            .collect();
        if !missing.is_empty() {
            return Err(Error::Link(format!(
                "linking {}: `{}` uses {}, which no kernel set of the link defines: add the set that defines them",
                quoted_names(sets),
                set.name(),
                quoted(&missing)
            )));
        }
    }
    Ok(())
}

/// One run of the driver's JIT linker, its error log, and the link state, destroyed when
/// dropped.
struct JitLink {
    state: sys::CUlinkState,
    /// The log the driver writes its errors into; boxed so that its address, given to
    /// `cuLinkCreate`, stays put, and dropped only after the state (see `Drop`).
    error_log: Box<[u8]>,
    /// The option values given to `cuLinkCreate`, into which the driver may write back the log
    /// sizes it used: kept alive as long as the state.
    _option_values: Box<[*mut c_void]>,
}

impl JitLink {
    /// Starts a link for the device of `cuda`'s context (the driver links for the current
    /// context's device, `CU_JIT_TARGET_FROM_CUCONTEXT`).
    fn new(cuda: &CudaDevice) -> Result<Self> {
        cuda.context
            .bind_to_thread()
            .map_err(Error::cuda("making the context current for the link"))?;
        let mut error_log = vec![0u8; LINK_LOG_BYTES].into_boxed_slice();
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        // The size is passed as the pointer value itself, as the driver API specifies.
        let mut option_values: Box<[*mut c_void]> =
            Box::new([error_log.as_mut_ptr().cast(), LINK_LOG_BYTES as *mut c_void]);
        let mut state: sys::CUlinkState = ptr::null_mut();
        // SAFETY: two options and two values, in order: a buffer of LINK_LOG_BYTES bytes and its
        // size. The buffer and the values array live in the returned `JitLink`, which destroys
        // the state before freeing them; `state` receives the new link state.
        unsafe {
            sys::cuLinkCreate_v2(
                options.len() as u32,
                options.as_mut_ptr(),
                option_values.as_mut_ptr(),
                &mut state,
            )
        }
        .result()
        .map_err(Error::cuda("cuLinkCreate"))?;
        Ok(Self {
            state,
            error_log,
            _option_values: option_values,
        })
    }

    /// Adds each `(set, arch, PTX)` and links them; the cubin, or the link log as the error.
    fn link(self, inputs: &[(&str, &str, String)]) -> Result<Vec<u8>> {
        let names = inputs
            .iter()
            .map(|(set, ..)| format!("`{set}`"))
            .collect::<Vec<_>>()
            .join(", ");
        for (set, arch, ptx) in inputs {
            let source = CString::new(ptx.as_str())
                .map_err(|_| Error::Link(format!("the {arch} PTX of `{set}` holds a NUL byte")))?;
            let name = CString::new(*set).map_err(|_| Error::Link(format!("kernel set `{set}`: NUL in its name")))?;
            // SAFETY: `self.state` is a live link state; `source` is the NUL-terminated PTX text
            // (PTX input must be, and its size counts the NUL) and `name` a NUL-terminated name,
            // both alive through the call; no per-input options.
            let added = unsafe {
                sys::cuLinkAddData_v2(
                    self.state,
                    sys::CUjitInputType::CU_JIT_INPUT_PTX,
                    source.as_ptr() as *mut c_void,
                    source.as_bytes_with_nul().len(),
                    name.as_ptr(),
                    0,
                    ptr::null_mut(),
                    ptr::null_mut(),
                )
            }
            .result();
            if let Err(error) = added {
                return Err(self.failure(&format!("compiling the {arch} PTX of `{set}` for the link"), error));
            }
        }
        let mut cubin: *mut c_void = ptr::null_mut();
        let mut bytes = 0usize;
        // SAFETY: `self.state` is a live link state with every input added; the driver writes
        // the address and size of the cubin, which the state owns.
        let completed = unsafe { sys::cuLinkComplete(self.state, &mut cubin, &mut bytes) }.result();
        if let Err(error) = completed {
            return Err(self.failure(&format!("linking {names}"), error));
        }
        if cubin.is_null() {
            return Err(Error::Link(format!("linking {names}: the driver returned no cubin")));
        }
        // SAFETY: the driver's cubin is `bytes` bytes at `cubin`, valid until the state is
        // destroyed, which happens when `self` drops, after this copy.
        Ok(unsafe { std::slice::from_raw_parts(cubin.cast::<u8>(), bytes) }.to_vec())
    }

    /// The failure of `step` as one sentence: the driver's error and its log, one line after
    /// another (`Undefined reference to 'negate_d' in 'c_m'`).
    fn failure(&self, step: &str, error: cudarc::driver::DriverError) -> Error {
        let driver = Error::Cuda {
            call: step.to_string(),
            error,
        };
        let text = self.error_log.split(|&b| b == 0).next().unwrap_or_default();
        let log: Vec<String> = String::from_utf8_lossy(text)
            .lines()
            .map(|line| {
                line.trim_start_matches("error")
                    .trim_start_matches([' ', ':'])
                    .trim()
                    .to_string()
            })
            .filter(|line| !line.is_empty())
            .collect();
        if log.is_empty() {
            driver
        } else {
            Error::Link(format!("{driver}: {}", log.join("; ")))
        }
    }
}

impl Drop for JitLink {
    fn drop(&mut self) {
        // SAFETY: `self.state` came from `cuLinkCreate` and is destroyed once, here, before the
        // logs and option values it points into are freed (fields drop after `drop` returns).
        let _ = unsafe { sys::cuLinkDestroy(self.state) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HEADER: &str = ".version 7.8\n.target sm_90\n.address_size 64\n";
    static USES: KernelSet = KernelSet::new(
        "uses",
        &[(
            "sm_90",
            90,
            ".version 7.8\n.visible .const .align 16 .b8 ferrocuda_constant_bank[65536];\n.extern .func f\n()\n;\n.extern .global .align 4 .u32 V;\n.visible .entry k(\n)\n{\n}\n",
        )],
    );
    static DEFINES: KernelSet = KernelSet::new(
        "defines",
        &[(
            "sm_90",
            90,
            ".version 7.8\n.visible .const .align 16 .b8 ferrocuda_constant_bank[65536];\n.visible .global .align 4 .b8 V[4];\n.visible .func f()\n{\n}\n",
        )],
    );
    static ALSO_DEFINES: KernelSet = KernelSet::new("also_defines", &[("sm_90", 90, ".visible .func f()\n{\n}\n")]);

    #[test]
    fn symbols_resolve_only_within_the_link() {
        assert!(check_symbols(&[&USES, &DEFINES]).is_ok());
        let alone = check_symbols(&[&USES]).unwrap_err().to_string();
        assert!(alone.contains("`f`, `V`"), "{alone}");
        let twice = check_symbols(&[&DEFINES, &ALSO_DEFINES]).unwrap_err().to_string();
        assert!(
            twice.contains("`f` is defined in both `defines` and `also_defines`"),
            "{twice}"
        );
        assert!(unresolved_alone(&USES, "").is_some());
        assert!(unresolved_alone(&DEFINES, "").is_none());
    }

    #[test]
    fn later_constant_banks_become_declarations() {
        let ptx = format!("{HEADER}.visible .const .align 16 .b8 {CONSTANT_BANK}[65536];\n");
        let declared = declare_constant_bank(&ptx);
        assert!(declared.contains(&format!(".extern .const .align 16 .b8 {CONSTANT_BANK}[65536];")));
        assert!(!crate::ptx::linkage(&declared).defined.contains(&CONSTANT_BANK));
    }
}
