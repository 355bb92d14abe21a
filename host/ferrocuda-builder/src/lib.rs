//! The project's `cuda_builder`: compiles a `no_std` kernel crate to PTX with upstream rustc's
//! `nvptx64-nvidia-cuda` target, from a build script.
//!
//! For each architecture it runs, in a target directory of its own so builds stay incremental,
//!
//! ```text
//! cargo rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core --crate-type cdylib \
//!     -- -C target-cpu=sm_90 --emit=asm -C linker=/bin/true
//! ```
//!
//! with fat LTO and `panic = "abort"`: the `.s` file it leaves is one self-contained PTX module.
//!
//! The common use is one line in the `build.rs` of the host crate that launches the kernels:
//!
//! ```no_run
//! // build.rs: compile ./kernels to PTX for $FERROCUDA_ARCHS (default sm_90) and write what
//! // `ferrocuda::include_kernels!("kernels")` embeds into OUT_DIR.
//! ferrocuda_builder::PtxBuilder::new("kernels").embed().unwrap_or_else(|e| ferrocuda_builder::fail(&e));
//! ```
//!
//! `build` alone compiles and returns the modules' paths; `copy_to` writes the PTX files into a
//! folder of your choice. Every call prints `cargo::rerun-if-changed` for the kernel crate and
//! the local crates it depends on (the device library included), so editing a kernel rebuilds
//! its PTX and nothing else does.
//!
//! The build needs the nightly toolchain named in [`TOOLCHAIN`] with its `rust-src` component:
//! a dependent project copies ferrocuda's `rust-toolchain.toml` into its own root.
mod launch_bounds;

use std::env;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The architectures built when `FERROCUDA_ARCHS` is not set.
pub const DEFAULT_ARCHS: &[&str] = &["sm_90"];

/// The environment variable listing the architectures to build (`sm_80,sm_90`).
pub const ARCHS_ENV: &str = "FERROCUDA_ARCHS";

/// The toolchain the PTX build needs (`-Zbuild-std=core` and the `nvptx64-nvidia-cuda` target's
/// unstable features): the channel of ferrocuda's `rust-toolchain.toml`, with `rust-src`.
pub const TOOLCHAIN: &str = "nightly-2026-05-19";

/// One compiled module, as a file (`ferrocuda::gpu::PtxModule` is the same module embedded in a
/// program).
#[derive(Debug, Clone)]
pub struct PtxFile {
    /// `sm_90`, ...
    pub arch: String,
    /// The PTX file.
    pub path: PathBuf,
}

/// Why the PTX could not be built, in one sentence a user can act on.
#[derive(Debug)]
pub struct BuildError(String);

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BuildError {}

impl From<String> for BuildError {
    fn from(message: String) -> Self {
        Self(message)
    }
}

/// Builds the PTX modules of one kernel crate.
#[derive(Debug, Clone)]
pub struct PtxBuilder {
    crate_dir: PathBuf,
    archs: Vec<String>,
    target_dir: Option<PathBuf>,
}

impl PtxBuilder {
    /// A builder for the kernel crate in `crate_dir` (relative to the calling build script's
    /// package), for the architectures in `FERROCUDA_ARCHS`, else [`DEFAULT_ARCHS`].
    pub fn new(crate_dir: impl AsRef<Path>) -> Self {
        let dir = crate_dir.as_ref();
        let crate_dir = match env::var_os("CARGO_MANIFEST_DIR") {
            Some(manifest) if dir.is_relative() => PathBuf::from(manifest).join(dir),
            _ => dir.to_path_buf(),
        };
        Self {
            crate_dir,
            archs: archs_from_env(),
            target_dir: None,
        }
    }

    /// The architectures to build, `sm_XY` each.
    pub fn archs<S: AsRef<str>>(mut self, archs: &[S]) -> Self {
        self.archs = archs.iter().map(|a| a.as_ref().to_string()).collect();
        self
    }

    /// Adds sm_90a (Hopper's own instructions: `wgmma`, the bulk tensor copy, `setmaxnreg`) when
    /// the list has sm_90 and not it: for a kernel crate with `#[kernel(requires = "sm_90a")]`
    /// kernels that Hopper GPUs should run without the user listing sm_90a (the host prefers the
    /// sm_90a module on compute capability 9.0 and the sm_90 one stays for none).
    pub fn with_hopper_specific(mut self) -> Self {
        if self.archs.iter().any(|a| a == "sm_90") && !self.archs.iter().any(|a| a == "sm_90a") {
            self.archs.push("sm_90a".to_string());
        }
        self
    }

    /// Where the nested builds keep their files (default: `<workspace target>/ptx`).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// Compiles one module per architecture, and tells cargo when to do it again.
    pub fn build(&self) -> Result<Vec<PtxFile>, BuildError> {
        self.build_named().map(|(_, modules)| modules)
    }

    /// [`PtxBuilder::build`], with the kernel crate's library name.
    fn build_named(&self) -> Result<(String, Vec<PtxFile>), BuildError> {
        for arch in &self.archs {
            parse_arch(arch)?;
        }
        check_toolchain()?;
        let lib_name = read_metadata(&self.crate_dir)?;
        let target_root = match &self.target_dir {
            Some(dir) => dir.clone(),
            None => default_target_dir()?,
        };
        let modules = self
            .archs
            .iter()
            .map(|arch| {
                let target_dir = target_root.join(arch);
                self.build_one(arch, &target_dir)?;
                let path = target_dir
                    .join("nvptx64-nvidia-cuda/release/deps")
                    .join(format!("{lib_name}.s"));
                if !path.is_file() {
                    return Err(BuildError(format!(
                        "the PTX build for {arch} finished but left no {}",
                        path.display()
                    )));
                }
                let read = std::fs::read_to_string(&path)
                    .map_err(|e| BuildError(format!("cannot read {}: {e}", path.display())))?;
                let bounded = path.with_extension("ptx");
                std::fs::write(&bounded, launch_bounds::apply(&read)?)
                    .map_err(|e| BuildError(format!("cannot write {}: {e}", bounded.display())))?;
                Ok(PtxFile {
                    arch: arch.clone(),
                    path: bounded,
                })
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
        Ok((lib_name, modules))
    }

    /// Builds, and copies each module to `<dir>/<crate>.<arch>.ptx` (`my_kernels.sm_90.ptx`).
    pub fn copy_to(&self, dir: impl AsRef<Path>) -> Result<Vec<PtxFile>, BuildError> {
        self.copy_to_named(dir.as_ref()).map(|(_, modules)| modules)
    }

    fn copy_to_named(&self, dir: &Path) -> Result<(String, Vec<PtxFile>), BuildError> {
        std::fs::create_dir_all(dir).map_err(|e| BuildError(format!("cannot create {}: {e}", dir.display())))?;
        let (lib_name, modules) = self.build_named()?;
        let copies = modules
            .into_iter()
            .map(|module| {
                let path = dir.join(format!("{lib_name}.{}.ptx", module.arch));
                std::fs::copy(&module.path, &path).map_err(|e| {
                    BuildError(format!(
                        "cannot copy {} to {}: {e}",
                        module.path.display(),
                        path.display()
                    ))
                })?;
                Ok(PtxFile {
                    arch: module.arch,
                    path,
                })
            })
            .collect::<Result<Vec<_>, BuildError>>()?;
        Ok((lib_name, copies))
    }

    /// Builds, copies the modules into `OUT_DIR`, and writes `<crate>.kernels.rs` there: the
    /// table `ferrocuda::include_kernels!("<crate>")` embeds (the crate's library name, `-` as `_`).
    pub fn embed(&self) -> Result<Vec<PtxFile>, BuildError> {
        let out_dir = env::var_os("OUT_DIR").map(PathBuf::from).ok_or_else(|| {
            BuildError("OUT_DIR is not set: call `embed` from a build script, or use `copy_to`".into())
        })?;
        let (lib_name, modules) = self.copy_to_named(&out_dir)?;
        let mut table = String::from("[\n");
        for module in &modules {
            let cc = parse_arch(&module.arch)?;
            table += &format!(
                "    ({:?}, {cc}, include_str!({:?})),\n",
                module.arch,
                module.path.display().to_string()
            );
        }
        table += "]\n";
        let table_path = out_dir.join(format!("{lib_name}.kernels.rs"));
        std::fs::write(&table_path, table)
            .map_err(|e| BuildError(format!("cannot write {}: {e}", table_path.display())))?;
        Ok(modules)
    }

    fn build_one(&self, arch: &str, target_dir: &Path) -> Result<(), BuildError> {
        let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut cmd = Command::new(cargo);
        cmd.current_dir(&self.crate_dir)
            .args([
                "rustc",
                "--lib",
                "--release",
                "--target",
                "nvptx64-nvidia-cuda",
                "-Zbuild-std=core",
                "--crate-type",
                "cdylib",
                "--target-dir",
            ])
            .arg(target_dir)
            .args(["--", "-C"])
            .arg(format!("target-cpu={arch}"))
            .args(["--emit=asm", "-C", "linker=/bin/true"])
            // One fat-LTO unit: every kernel and the `core` code it calls in one module.
            .env("CARGO_PROFILE_RELEASE_LTO", "fat")
            .env("CARGO_PROFILE_RELEASE_PANIC", "abort")
            .env("CARGO_PROFILE_RELEASE_CODEGEN_UNITS", "1")
            .env("CARGO_PROFILE_RELEASE_DEBUG", "false")
            .env("CARGO_PROFILE_RELEASE_OPT_LEVEL", "3");
        // The outer build's settings describe the host build, not this one.
        for (key, _) in env::vars_os() {
            let key = key.to_string_lossy();
            let inherited = key.starts_with("CARGO_ENCODED_RUSTFLAGS")
                || key == "RUSTFLAGS"
                || key == "RUSTC_WORKSPACE_WRAPPER"
                || key == "RUSTC_WRAPPER"
                || key == "CARGO_TARGET_DIR"
                || key == "CARGO_BUILD_TARGET"
                || key.starts_with("CARGO_FEATURE_")
                || key.starts_with("CARGO_CFG_")
                || key == "CARGO_MAKEFLAGS"
                || key == "MAKEFLAGS";
            if inherited {
                cmd.env_remove(key.as_ref());
            }
        }
        // Every crate of the build, not only the kernel crate (`cargo rustc -- ..`), sees the
        // architecture: the device library chooses instructions by `cfg(target_feature)` (sm_90a's
        // `wgmma`, a trap elsewhere).
        cmd.env("CARGO_ENCODED_RUSTFLAGS", format!("-Ctarget-cpu={arch}"));
        let output = cmd
            .output()
            .map_err(|e| BuildError(format!("could not start cargo to build the PTX for {arch}: {e}")))?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        // From the first error on: cargo's progress and the warnings before it are noise here.
        let lines: Vec<&str> = stderr.lines().filter(|l| !l.trim().is_empty()).collect();
        let first_error = lines.iter().position(|l| l.starts_with("error")).unwrap_or(0);
        let errors = &lines[first_error..];
        let hint = hint(&stderr).map(|h| format!("\nhint: {h}")).unwrap_or_default();
        Err(BuildError(format!(
            "the kernel crate failed to compile for {arch}:\n{}{hint}",
            errors.join("\n")
        )))
    }
}

/// Prints `error` as one build-script error and exits, for use in `build.rs`.
pub fn fail(error: &BuildError) -> ! {
    for line in error.to_string().lines() {
        println!("cargo::error={line}");
    }
    std::process::exit(1)
}

/// The compute capabilities a PTX module can be built for: those of NVIDIA's GPUs from Volta
/// (7.0) to Blackwell (12.1). Another number would build and embed PTX that no driver loads.
pub const KNOWN_COMPUTE_CAPABILITIES: [u32; 14] = [70, 72, 75, 80, 86, 87, 89, 90, 100, 101, 103, 110, 120, 121];

/// `sm_90` -> 90 (`sm_90a` too); an error naming the valid architectures for anything else.
pub fn parse_arch(arch: &str) -> Result<u32, BuildError> {
    arch.strip_prefix("sm_")
        .and_then(|cc| cc.trim_end_matches('a').parse().ok())
        .filter(|cc| KNOWN_COMPUTE_CAPABILITIES.contains(cc))
        .ok_or_else(|| {
            let valid: Vec<String> = KNOWN_COMPUTE_CAPABILITIES.iter().map(|cc| format!("sm_{cc}")).collect();
            BuildError(format!(
                "`{arch}` is not a GPU architecture this build knows: use one of {} (an `a` suffix, as sm_90a, is allowed)",
                valid.join(", ")
            ))
        })
}

/// The architectures `FERROCUDA_ARCHS` lists, else [`DEFAULT_ARCHS`].
fn archs_from_env() -> Vec<String> {
    println!("cargo::rerun-if-env-changed={ARCHS_ENV}");
    match env::var(ARCHS_ENV) {
        Ok(list) if !list.trim().is_empty() => list.split(',').map(|a| a.trim().to_string()).collect(),
        _ => DEFAULT_ARCHS.iter().map(|a| a.to_string()).collect(),
    }
}

/// The PTX build needs a nightly rustc (`-Zbuild-std`) with `rust-src`; one sentence with the fix
/// when the toolchain is another.
fn check_toolchain() -> Result<(), BuildError> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let run = |arg: &[&str]| {
        Command::new(&rustc)
            .args(arg)
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .map_err(|e| BuildError(format!("could not run rustc: {e}")))
    };
    let fix = format!(
        "copy ferrocuda's rust-toolchain.toml (channel {TOOLCHAIN}, components rust-src) into your project's root, then `rustup toolchain install` there"
    );
    let version = run(&["--version"])?;
    if !version.contains("nightly") {
        return Err(BuildError(format!(
            "the PTX build needs the nightly toolchain {TOOLCHAIN}, but this build runs `{version}`: {fix}"
        )));
    }
    let sysroot = PathBuf::from(run(&["--print", "sysroot"])?);
    if sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml").is_file() {
        Ok(())
    } else {
        Err(BuildError(format!(
            "the toolchain `{version}` lacks the rust-src component, which the PTX build compiles `core` from: {fix}"
        )))
    }
}

/// One sentence with the fix for the errors a kernel crate meets first.
fn hint(stderr: &str) -> Option<String> {
    if stderr.contains("can't find crate for `std`") {
        Some(
            "a kernel crate is `#![no_std]` (the GPU has only `core`): put `#![no_std]` at the top of its lib.rs"
                .into(),
        )
    } else if stderr.contains("\"gpu-kernel\" ABI is experimental") {
        Some(
            "add `#![cfg_attr(target_arch = \"nvptx64\", feature(abi_gpu_kernel))]` to the kernel crate's lib.rs"
                .into(),
        )
    } else if let Some(at) = stderr.find("Linking globals named '") {
        let name = stderr[at + 23..].split('\'').next().unwrap_or_default();
        Some(format!(
            "two kernels (or a kernel and another `#[no_mangle]` item) export the PTX symbol `{name}`: rename one"
        ))
    } else {
        None
    }
}

/// `cargo::rerun-if-changed` for the kernel crate and every local (path) package it depends on,
/// as `cargo metadata` lists them (a change in the device library rebuilds the PTX too), and
/// returns the kernel crate's library name as rustc names its output (`-` as `_`).
fn read_metadata(crate_dir: &Path) -> Result<String, BuildError> {
    let cargo = env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(crate_dir)
        .args([
            "metadata",
            "--format-version",
            "1",
            "--filter-platform",
            "nvptx64-nvidia-cuda",
            "--manifest-path",
        ])
        .arg(crate_dir.join("Cargo.toml"))
        .output()
        .map_err(|e| BuildError(format!("could not run cargo metadata: {e}")))?;
    if !output.status.success() {
        return Err(BuildError(format!(
            "cargo metadata failed for {}: {}",
            crate_dir.display(),
            String::from_utf8_lossy(&output.stderr).trim()
        )));
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout)
        .map_err(|e| BuildError(format!("cannot read cargo metadata's output: {e}")))?;
    let manifest = crate_dir.join("Cargo.toml");
    let packages = metadata["packages"].as_array().map(Vec::as_slice).unwrap_or_default();
    let same_file = |a: &str| Path::new(a).canonicalize().ok() == manifest.canonicalize().ok();
    let package = packages
        .iter()
        .find(|p| p["manifest_path"].as_str().is_some_and(same_file))
        .ok_or_else(|| {
            BuildError(format!(
                "cargo metadata does not list the package of {}",
                manifest.display()
            ))
        })?;
    let lib_name = package["targets"]
        .as_array()
        .into_iter()
        .flatten()
        // lib, rlib, cdylib, ...: the kinds of a library target.
        .find(|t| {
            t["kind"]
                .as_array()
                .is_some_and(|kinds| kinds.iter().any(|k| k.as_str().is_some_and(|k| k.ends_with("lib"))))
        })
        .and_then(|t| t["name"].as_str())
        .map(|name| name.replace('-', "_"))
        .ok_or_else(|| {
            BuildError(format!(
                "{} has no library target: a kernel crate is a library (src/lib.rs)",
                manifest.display()
            ))
        })?;
    let root = package["id"].as_str().ok_or_else(|| {
        BuildError(format!(
            "cargo metadata does not list the package of {}",
            manifest.display()
        ))
    })?;
    let nodes = metadata["resolve"]["nodes"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default();
    // The kernel crate's dependency closure on the GPU target, by package id.
    let (mut seen, mut queue) = (std::collections::BTreeSet::new(), vec![root.to_string()]);
    while let Some(id) = queue.pop() {
        if !seen.insert(id.clone()) {
            continue;
        }
        let node = nodes.iter().find(|n| n["id"].as_str() == Some(&id));
        let deps = node.and_then(|n| n["dependencies"].as_array()).into_iter().flatten();
        queue.extend(deps.filter_map(|d| d.as_str().map(str::to_string)));
    }
    let local = packages
        .iter()
        .filter(|p| p["source"].is_null() && p["id"].as_str().is_some_and(|id| seen.contains(id)));
    for package in local {
        if let Some(manifest) = package["manifest_path"].as_str().map(Path::new) {
            println!("cargo::rerun-if-changed={}", manifest.display());
            if let Some(dir) = manifest.parent() {
                println!("cargo::rerun-if-changed={}", dir.join("src").display());
            }
        }
    }
    Ok(lib_name)
}

/// The workspace target directory seen from a build script: `OUT_DIR` is
/// `<target>/<profile>/build/<pkg>-<hash>/out`, or with `--target`, one level deeper.
fn default_target_dir() -> Result<PathBuf, BuildError> {
    let out_dir = env::var_os("OUT_DIR").map(PathBuf::from).ok_or_else(|| {
        BuildError("OUT_DIR is not set: call the PTX builder from a build script, or give it a target_dir".into())
    })?;
    out_dir
        .ancestors()
        .find(|dir| dir.join("CACHEDIR.TAG").is_file())
        .map(|target| target.join("ptx"))
        .ok_or_else(|| BuildError(format!("no cargo target directory above {}", out_dir.display())))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toolchain_is_the_workspace_channel() {
        let file = include_str!("../../../rust-toolchain.toml");
        assert!(
            file.lines().any(|l| l.trim() == format!("channel = \"{TOOLCHAIN}\"")),
            "TOOLCHAIN ({TOOLCHAIN}) must be rust-toolchain.toml's channel, which its error message names"
        );
    }

    #[test]
    fn hints_name_the_fix_for_the_first_errors() {
        let no_std = "error[E0463]: can't find crate for `std`";
        assert!(hint(no_std).is_some_and(|h| h.contains("#![no_std]")));
        let abi = "error[E0658]: the extern \"gpu-kernel\" ABI is experimental and subject to change";
        assert!(hint(abi).is_some_and(|h| h.contains("feature(abi_gpu_kernel)")));
        let clash = "error: Linking globals named 'increment': symbol multiply defined!";
        assert!(hint(clash).is_some_and(|h| h.contains("`increment`")));
        assert!(hint("error[E0308]: mismatched types").is_none());
    }

    #[test]
    fn architectures_are_checked() {
        assert_eq!(parse_arch("sm_90").ok(), Some(90));
        assert_eq!(parse_arch("sm_90a").ok(), Some(90));
        assert_eq!(parse_arch("sm_120").ok(), Some(120));
        for bad in ["sm_60", "sm_999", "sm_91", "90", "compute_90", "sm_x"] {
            assert!(parse_arch(bad).is_err(), "{bad}");
        }
    }
}
