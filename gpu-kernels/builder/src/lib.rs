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
//! ```no_run
//! // build.rs of a host crate
//! let modules = gpu_kernels_builder::PtxBuilder::new("../gpu-kernels")
//!     .archs(&["sm_80", "sm_90"])
//!     .build()
//!     .unwrap_or_else(|e| gpu_kernels_builder::fail(&e));
//! ```
use std::env;
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The architectures built when `FERROCUDA_ARCHS` is not set.
pub const DEFAULT_ARCHS: &[&str] = &["sm_90"];

/// One compiled module.
#[derive(Debug, Clone)]
pub struct PtxModule {
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
    /// package), for [`DEFAULT_ARCHS`].
    pub fn new(crate_dir: impl AsRef<Path>) -> Self {
        let dir = crate_dir.as_ref();
        let crate_dir = match env::var_os("CARGO_MANIFEST_DIR") {
            Some(manifest) if dir.is_relative() => PathBuf::from(manifest).join(dir),
            _ => dir.to_path_buf(),
        };
        Self {
            crate_dir,
            archs: DEFAULT_ARCHS.iter().map(|a| a.to_string()).collect(),
            target_dir: None,
        }
    }

    /// The architectures to build, `sm_XY` each.
    pub fn archs<S: AsRef<str>>(mut self, archs: &[S]) -> Self {
        self.archs = archs.iter().map(|a| a.as_ref().to_string()).collect();
        self
    }

    /// Where the nested builds keep their files (default: `<workspace target>/ptx`).
    pub fn target_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.target_dir = Some(dir.into());
        self
    }

    /// Compiles one module per architecture.
    pub fn build(&self) -> Result<Vec<PtxModule>, BuildError> {
        for arch in &self.archs {
            parse_arch(arch)?;
        }
        check_rust_src()?;
        let target_root = match &self.target_dir {
            Some(dir) => dir.clone(),
            None => default_target_dir()?,
        };
        let lib_name = lib_name(&self.crate_dir)?;
        self.archs
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
                Ok(PtxModule {
                    arch: arch.clone(),
                    path,
                })
            })
            .collect()
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
        let output = cmd
            .output()
            .map_err(|e| BuildError(format!("could not start cargo to build the PTX for {arch}: {e}")))?;
        if output.status.success() {
            return Ok(());
        }
        let stderr = String::from_utf8_lossy(&output.stderr);
        let errors: Vec<&str> = stderr
            .lines()
            .filter(|l| !l.trim_start().starts_with("Compiling") && !l.trim().is_empty())
            .collect();
        Err(BuildError(format!(
            "the kernel crate failed to compile for {arch}:\n{}",
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

/// `sm_90` -> 90; an error for anything else.
pub fn parse_arch(arch: &str) -> Result<u32, BuildError> {
    arch.strip_prefix("sm_")
        .and_then(|cc| cc.trim_end_matches('a').parse().ok())
        .filter(|cc| *cc >= 70)
        .ok_or_else(|| {
            BuildError(format!(
                "`{arch}` is not a supported GPU architecture: use sm_70 or newer, written like sm_90"
            ))
        })
}

/// `-Zbuild-std` needs the `rust-src` component; say so in one sentence when it is missing.
fn check_rust_src() -> Result<(), BuildError> {
    let rustc = env::var_os("RUSTC").unwrap_or_else(|| "rustc".into());
    let output = Command::new(&rustc)
        .args(["--print", "sysroot"])
        .output()
        .map_err(|e| BuildError(format!("could not run rustc to find its sysroot: {e}")))?;
    let sysroot = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let core = sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml");
    if core.is_file() {
        Ok(())
    } else {
        Err(BuildError(
            "the rust-src component is missing, and the PTX build compiles `core` from it: run `rustup toolchain install` in the project folder (it installs what rust-toolchain.toml names)".into(),
        ))
    }
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

/// The library name cargo gives the kernel crate (its package name with `-` as `_`).
fn lib_name(crate_dir: &Path) -> Result<String, BuildError> {
    let manifest = crate_dir.join("Cargo.toml");
    let text = std::fs::read_to_string(&manifest)
        .map_err(|e| BuildError(format!("cannot read {}: {e}", manifest.display())))?;
    text.lines()
        .find_map(|line| {
            let (key, value) = line.split_once('=')?;
            (key.trim() == "name").then(|| value.trim().trim_matches('"').replace('-', "_"))
        })
        .ok_or_else(|| BuildError(format!("{} names no package", manifest.display())))
}
