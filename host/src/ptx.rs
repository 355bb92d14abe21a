//! The PTX modules embedded at build time (see `build.rs`): one per architecture in
//! `FERROCUDA_ARCHS` (default sm_90).

/// One embedded module.
#[derive(Debug)]
pub struct PtxModule {
    /// `sm_90`, ...
    pub arch: &'static str,
    /// 90 for sm_90.
    pub compute_capability: u32,
    /// The PTX text.
    pub ptx: &'static str,
}

/// Every embedded module, in the order of `FERROCUDA_ARCHS`.
pub static MODULES: &[PtxModule] = include!(concat!(env!("OUT_DIR"), "/ptx_modules.rs"));

/// The module a device of compute capability `cc` (90 for 9.0) should load: the newest
/// architecture not newer than the device, whose PTX the driver compiles for it.
pub fn for_compute_capability(cc: u32) -> Option<&'static PtxModule> {
    MODULES
        .iter()
        .filter(|m| m.compute_capability <= cc)
        .max_by_key(|m| m.compute_capability)
}

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
