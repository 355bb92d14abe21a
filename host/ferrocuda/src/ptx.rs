//! PTX: the library's own kernel set, embedded at build time (see `build.rs`), the entry points
//! and linkage symbols of a PTX text, and `ptxas` run on a module (resource reports, validation).
use std::path::PathBuf;
use std::process::Command;

pub use crate::gpu::{KernelSet, PtxModule};

/// The library's own kernels (`gpu-kernels`: reductions, Philox fill, SOR, probes), one module
/// per architecture in `FERROCUDA_ARCHS` (default sm_90).
pub static LIBRARY: KernelSet = crate::include_kernels!("gpu_kernels");

/// The names of the kernel entry points in a PTX text (`.entry name(`).
pub fn entry_points(ptx: &str) -> Vec<&str> {
    ptx.lines()
        .filter_map(|line| line.split(".entry ").nth(1))
        .filter_map(|rest| rest.split('(').next())
        .map(str::trim)
        .collect()
}

/// The PTX of one entry point: from its `.entry` line to the closing brace of its body.
pub fn entry_ptx<'a>(ptx: &'a str, name: &str) -> Option<&'a str> {
    let header = format!(".entry {name}(");
    let start = ptx.find(&header)?;
    let start = ptx[..start].rfind('\n').map_or(0, |i| i + 1);
    let body = &ptx[start..];
    let end = body.find("\n}\n").map_or(body.len(), |i| i + 3);
    Some(&body[..end])
}

/// CUDA's system calls: declared `.extern .func` by the modules that use them and provided by
/// the driver, never by another module (CUDA C Programming Guide, "Formatted Output" and
/// "Dynamic Global Memory Allocation").
pub const SYSTEM_CALLS: [&str; 4] = ["vprintf", "malloc", "free", "__assertfail"];

/// What a PTX module gives to and needs from the modules it is linked with (PTX ISA §5.4.4,
/// linking directives): functions, kernels and variables it defines `.visible`, and those it only
/// declares `.extern`, which a linker must find elsewhere (CUDA's [`SYSTEM_CALLS`] excepted:
/// the driver provides them). Dynamic shared memory (`.extern .shared`) is not a symbol to
/// resolve, and is left out.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Linkage<'a> {
    /// Kernels (`.visible .entry`), functions (`.visible .func`) and variables (`.visible
    /// .global`, `.visible .const`) the module defines for others.
    pub defined: Vec<&'a str>,
    /// Functions and variables the module uses but only declares (`.extern .func`, `.extern
    /// .global`, `.extern .const`).
    pub declared: Vec<&'a str>,
    /// The module's variables of the global and constant state spaces, defined or declared.
    pub variables: Vec<PtxVariable<'a>>,
}

/// A variable of a PTX module's global or constant state space.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtxVariable<'a> {
    /// The symbol.
    pub name: &'a str,
    /// Its size: the element type's bytes times the array length (`.b8 D_D[4]`: 4).
    pub bytes: usize,
    /// Defined here (`.visible`); `false` when only declared (`.extern`).
    pub defined: bool,
}

/// The linkage of a PTX text: its top-level `.visible` and `.extern` directives.
pub fn linkage(ptx: &str) -> Linkage<'_> {
    let mut linkage = Linkage::default();
    for line in ptx.lines() {
        let (defined, rest) = match (line.strip_prefix(".visible "), line.strip_prefix(".extern ")) {
            (Some(rest), _) => (true, rest),
            (_, Some(rest)) => (false, rest),
            _ => continue,
        };
        let rest = rest.trim_start();
        let name = if let Some(entry) = rest.strip_prefix(".entry ") {
            entry.split('(').next().map(str::trim)
        } else if let Some(function) = rest.strip_prefix(".func") {
            function_name(function).filter(|name| !SYSTEM_CALLS.contains(name))
        } else if let Some(variable) = rest.strip_prefix(".global ").or_else(|| rest.strip_prefix(".const ")) {
            variable_declaration(variable).map(|(name, bytes)| {
                linkage.variables.push(PtxVariable { name, bytes, defined });
                name
            })
        } else {
            None
        };
        match name {
            Some(name) if defined => linkage.defined.push(name),
            Some(name) => linkage.declared.push(name),
            None => {}
        }
    }
    linkage
}

/// `negate_d` from ` negate_d()` or ` (.param .b32 func_retval0) vprintf`: the name after the
/// optional return parameter, up to its parameter list or the end of the line.
fn function_name(rest: &str) -> Option<&str> {
    let rest = rest.trim_start();
    let rest = match rest.strip_prefix('(') {
        Some(inner) => &inner[inner.find(')')? + 1..],
        None => rest,
    };
    let name = rest.trim_start().split(['(', ' ', ';']).next()?.trim();
    (!name.is_empty()).then_some(name)
}

/// `("D_D", 4)` from `.align 4 .b8 D_D[4];` or `.align 4 .u32 D_D;` (an initializer may follow).
fn variable_declaration(rest: &str) -> Option<(&str, usize)> {
    let mut words = rest.split_whitespace();
    let mut word = words.next()?;
    if word == ".align" {
        words.next()?;
        word = words.next()?;
    }
    let element_bits: usize = word.strip_prefix(['.'])?.get(1..)?.parse().ok()?;
    let declarator = words.next()?.trim_end_matches(';');
    let (name, count) = match declarator.split_once('[') {
        Some((name, count)) => (name, count.trim_end_matches(']').parse().ok()?),
        None => (declarator, 1),
    };
    Some((name, element_bits / 8 * count))
}

/// Registers, stack, spills and shared memory per kernel, from `ptxas -v` output.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ResourceReport {
    /// One row per entry point, sorted by name.
    pub kernels: Vec<KernelResources>,
}

/// One kernel's resources.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct KernelResources {
    pub name: String,
    pub registers: u32,
    pub stack_frame_bytes: u32,
    pub spill_store_bytes: u32,
    pub spill_load_bytes: u32,
    pub shared_bytes: u32,
}

impl ResourceReport {
    /// Parses `ptxas -v`: a "Compiling entry function 'k'" line, then its "bytes stack frame"
    /// and "Used N registers" lines.
    pub fn parse(ptxas_output: &str) -> Self {
        let mut kernels: Vec<KernelResources> = Vec::new();
        let number_before = |line: &str, unit: &str| -> u32 {
            line.find(unit)
                .and_then(|at| line[..at].split_whitespace().last())
                .and_then(|n| n.parse().ok())
                .unwrap_or(0)
        };
        for line in ptxas_output.lines() {
            if let Some(rest) = line.split("Compiling entry function '").nth(1) {
                let name = rest.split('\'').next().unwrap_or_default().to_string();
                kernels.push(KernelResources {
                    name,
                    ..Default::default()
                });
            } else if let Some(k) = kernels.last_mut() {
                if line.contains("bytes stack frame") && k.registers == 0 {
                    k.stack_frame_bytes = number_before(line, "bytes stack frame");
                    k.spill_store_bytes = number_before(line, "bytes spill stores");
                    k.spill_load_bytes = number_before(line, "bytes spill loads");
                } else if line.contains("Used") && line.contains("registers") {
                    k.registers = number_before(line, "registers");
                    k.shared_bytes = number_before(line, "bytes smem");
                }
            }
        }
        kernels.sort_by(|a, b| a.name.cmp(&b.name));
        Self { kernels }
    }
}

impl std::fmt::Display for ResourceReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "{:<36} {:>9} {:>11} {:>12} {:>11} {:>10}",
            "kernel", "registers", "stack (B)", "spill st (B)", "spill ld (B)", "smem (B)"
        )?;
        for k in &self.kernels {
            writeln!(
                f,
                "{:<36} {:>9} {:>11} {:>12} {:>11} {:>10}",
                k.name, k.registers, k.stack_frame_bytes, k.spill_store_bytes, k.spill_load_bytes, k.shared_bytes
            )?;
        }
        Ok(())
    }
}

/// Runs `ptxas -v` on one module; its report (stderr) on success, one sentence on failure.
///
/// A module that uses another's functions or variables (`.extern`, see [`linkage`]) is compiled
/// as relocatable code (`--compile-only`), as `nvcc -rdc=true` compiles it: alone it does not
/// link, and the driver links it with the others (`Gpu::link`).
pub fn ptxas_verbose(module: &PtxModule) -> Result<String, String> {
    let ptxas = find_ptxas()?;
    let file = std::env::temp_dir().join(format!("ferrocuda-{}-{}.ptx", module.arch, std::process::id()));
    std::fs::write(&file, module.ptx).map_err(|e| format!("cannot write {}: {e}", file.display()))?;
    let relocatable = !linkage(module.ptx).declared.is_empty();
    let output = Command::new(&ptxas)
        .arg(format!("-arch={}", module.arch))
        .arg("-v")
        .args(relocatable.then_some("--compile-only"))
        .arg(&file)
        .args(["-o", "/dev/null"])
        .output();
    // Removed whether ptxas ran or not (a wrong PTXAS left a 1.3 MB file behind on every run).
    let _ = std::fs::remove_file(&file);
    let output = output.map_err(|e| format!("cannot run {}: {e}", ptxas.display()))?;
    let report = String::from_utf8_lossy(&output.stderr).into_owned();
    match (output.status.success(), report.trim().is_empty()) {
        (true, _) => Ok(report),
        (false, false) => Err(format!("ptxas rejected the {} PTX:\n{report}", module.arch)),
        // `PTXAS=/bin/false`, a crashed or killed ptxas: say what is known instead of nothing.
        (false, true) => Err(format!(
            "{} failed on the {} PTX ({}) and printed no reason: check that PTXAS names CUDA's ptxas",
            ptxas.display(),
            module.arch,
            output.status
        )),
    }
}

/// `$PTXAS`, `ptxas` on the PATH, or the one in the `nvidia-cuda-nvcc` PyPI wheel.
pub fn find_ptxas() -> Result<PathBuf, String> {
    if let Some(path) = std::env::var_os("PTXAS") {
        return Ok(PathBuf::from(path));
    }
    let on_path = std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/local/cuda/bin")])
        .map(|dir| dir.join("ptxas"))
        .find(|p| p.is_file());
    if let Some(path) = on_path {
        return Ok(path);
    }
    let wheel = Command::new("python3")
        .args([
            "-c",
            "import nvidia, os; print(os.path.join(nvidia.__path__[0], 'cu13', 'bin', 'ptxas'))",
        ])
        .output()
        .ok()
        .map(|o| PathBuf::from(String::from_utf8_lossy(&o.stdout).trim()))
        .filter(|p| p.is_file());
    wheel.ok_or_else(|| {
        "ptxas not found: install it with `python3 -m pip install nvidia-cuda-nvcc==13.0.88`, or set PTXAS".into()
    })
}
