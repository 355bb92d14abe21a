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
