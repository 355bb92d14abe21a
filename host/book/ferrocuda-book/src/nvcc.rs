//! nvcc on the machine, for the CUDA C the book runs beside its Rust: the bench's twins
//! (`bench::nvcc`) and Appendix C's `appc-fcallingc`. Compiles CUDA C to PTX (`-O3
//! -arch=sm_XY`, nvcc's defaults otherwise, so FMA contraction is on as in rustc's NVPTX
//! backend) or a CUDA C host program to an executable, in a temporary folder.
use ferrocuda::gpu::{Error, KernelSet, Result};
use ferrocuda::{Gpu, LoadedKernels};
use std::path::{Path, PathBuf};
use std::process::Command;

/// `gpu.load_or(twin, &set)`: a benchmark's kernels, from the CUDA C twin when it runs one. A
/// convenience of the book's benchmarks, not of the library (which loads a twin's PTX with
/// `Gpu::load_ptx` like any other).
pub trait LoadOr {
    /// `twin` when given (a CUDA C twin's kernels, for a benchmark's comparison), else the
    /// kernels of `set`.
    fn load_or<'g>(&'g self, twin: Option<&LoadedKernels<'g>>, set: &'static KernelSet) -> Result<LoadedKernels<'g>>;
}

impl LoadOr for Gpu {
    fn load_or<'g>(&'g self, twin: Option<&LoadedKernels<'g>>, set: &'static KernelSet) -> Result<LoadedKernels<'g>> {
        match twin {
            Some(kernels) => Ok(kernels.clone()),
            None => self.load(set),
        }
    }
}

/// Compiles the CUDA C file `source` to PTX for `arch` (`sm_90`); returns the PTX text.
pub fn compile(nvcc: &Path, source: &Path, arch: &str) -> Result<String> {
    let ptx = source.with_extension("ptx");
    run_nvcc(nvcc, &["-ptx", "-O3", &format!("-arch={arch}")], &ptx, source)?;
    std::fs::read_to_string(&ptx).map_err(|e| Error::Io(format!("cannot read {}: {e}", ptx.display())))
}

/// `nvcc ARGS -o OUT SOURCE`; an error with nvcc's messages when it fails.
fn run_nvcc(nvcc: &Path, args: &[&str], out: &Path, source: &Path) -> Result<()> {
    let output = Command::new(nvcc)
        .args(args)
        .arg("-o")
        .arg(out)
        .arg(source)
        .output()
        .map_err(|e| Error::Io(format!("cannot run nvcc: {e}")))?;
    if !output.status.success() {
        return Err(Error::Io(format!(
            "nvcc failed on {}: {}",
            source.display(),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok(())
}

/// nvcc's path and the last line of its `--version` (the build); an error when it is missing.
pub fn nvcc_and_version() -> Result<(PathBuf, String)> {
    let nvcc = find_nvcc()
        .ok_or_else(|| Error::Io("nvcc is not on this machine (looked in PATH and /usr/local/cuda/bin)".into()))?;
    let version = Command::new(&nvcc)
        .arg("--version")
        .output()
        .map_err(|e| Error::Io(format!("cannot run nvcc: {e}")))?;
    let compiler = String::from_utf8_lossy(&version.stdout)
        .lines()
        .last()
        .unwrap_or("nvcc")
        .to_string();
    Ok((nvcc, compiler))
}

/// Writes `text` to `dir/rel`, creating the folders on the way; returns the file's path.
pub fn write_source(dir: &Path, rel: &str, text: &str) -> Result<PathBuf> {
    let path = dir.join(rel);
    std::fs::create_dir_all(path.parent().unwrap_or(dir))
        .map_err(|e| Error::Io(format!("cannot create {}: {e}", dir.display())))?;
    std::fs::write(&path, text).map_err(|e| Error::Io(format!("cannot write {}: {e}", path.display())))?;
    Ok(path)
}

fn find_nvcc() -> Option<PathBuf> {
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .chain([PathBuf::from("/usr/local/cuda/bin")])
        .map(|dir| dir.join("nvcc"))
        .find(|p| p.is_file())
}

/// Compiles the CUDA C host program `source` (named `rel`, `ch3/bandwidth_test.cu` say) to an
/// executable with `nvcc -O3`, into a fresh temporary folder; returns its path and nvcc's
/// version line. An error when nvcc (or the host compiler it needs) is missing or fails.
pub fn build_program(rel: &str, source: &str) -> Result<(PathBuf, String)> {
    let (nvcc, compiler) = nvcc_and_version()?;
    let dir = std::env::temp_dir().join(format!("ferrocuda-nvcc-program-{}", std::process::id()));
    let path = write_source(&dir, rel, source)?;
    let exe = path.with_extension("");
    run_nvcc(&nvcc, &["-O3"], &exe, &path)?;
    Ok((exe, compiler))
}
