//! The CUDA C twins: `host/book/nvcc/*.cu`, embedded here and compiled by nvcc to PTX at bench
//! time (`-O3 -arch=sm_XY`, nvcc's defaults otherwise, so FMA contraction is on as in rustc's
//! NVPTX backend), then loaded as modules of their own.
use ferrocuda::gpu::{Error, Gpu, Kernels, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

const COMMON: &str = include_str!("../../nvcc/common.cuh");
const STREAM: &str = include_str!("../../nvcc/stream.cu");
const VECTOR_ADD: &str = include_str!("../../nvcc/course/vector_add.cu");
const INCREMENT_MULTIBLOCK: &str = include_str!("../../nvcc/ch1/increment_multiblock.cu");
const REDUCE: &str = include_str!("../../nvcc/reduce.cu");
const TRANSPOSE: &str = include_str!("../../nvcc/ch3/transpose.cu");
const ILP_COPY: &str = include_str!("../../nvcc/ch3/ilp_copy.cu");
const SOR: &str = include_str!("../../nvcc/thesis/sor.cu");
const HEAT: &str = include_str!("../../nvcc/course/heat.cu");
const LAPLACE2D: &str = include_str!("../../nvcc/ch6/laplace2d.cu");
const IMAGE_FILTER: &str = include_str!("../../nvcc/course/image_filter.cuh");
const IMAGE_BLUR: &str = include_str!("../../nvcc/course/image_blur.cu");
const CONVOLUTION: &str = include_str!("../../nvcc/course/convolution.cu");
const CH6_DERIV: &str = include_str!("../../nvcc/ch6/deriv.cu");

/// The twins, loaded on one device.
pub struct Twins<'g> {
    /// `nvcc --version`'s last line.
    pub compiler: String,
    pub stream: Kernels<'g>,
    pub vector_add: Kernels<'g>,
    pub increment_multiblock: Kernels<'g>,
    pub reduce: Kernels<'g>,
    pub transpose: Kernels<'g>,
    /// `tlp_copy_*` and `ilp_copy_*` (book §3.5).
    pub ilp_copy: Kernels<'g>,
    /// `sor_split_*` (the thesis's red-black SOR, split layout).
    pub sor: Kernels<'g>,
    /// `heat_step_*`, `heat_step_tiled_*` (course-heat's FTCS steps).
    pub heat: Kernels<'g>,
    /// `jacobi_strip_*` (the book's 9-point Laplace sweep, 8 points per thread).
    pub laplace2d: Kernels<'g>,
    /// `blur_kernel`, `blur_fast`, `blur_stream` (course-image-blur).
    pub image_blur: Kernels<'g>,
    /// `convolution_2d_basic_kernel`, `convolution_2d_tiled_kernel`, `convolution_2d_fast_m5`
    /// (course-convolution).
    pub convolution: Kernels<'g>,
    /// `deriv_{x,y,z}[_l_pencils]_*` (book §6.1), with their own constant bank.
    pub ch6_deriv: Kernels<'g>,
}

impl<'g> Twins<'g> {
    /// Compiles and loads every twin; an error when nvcc is missing or fails.
    pub fn compile(gpu: &'g Gpu) -> Result<Self> {
        let (nvcc, compiler) = nvcc_and_version()?;
        let dir = std::env::temp_dir().join(format!("ferrocuda-nvcc-{}", std::process::id()));
        let write = |rel: &str, text: &str| write_source(&dir, rel, text);
        write("common.cuh", COMMON)?;
        write("course/image_filter.cuh", IMAGE_FILTER)?;
        let arch = format!("sm_{}", gpu.properties().compute_capability_number());
        let load = |rel: &str, text: &str| -> Result<Kernels<'g>> {
            let source = write(rel, text)?;
            let ptx = compile(&nvcc, &source, &arch)?;
            gpu.load_ptx(&ptx, &format!("the nvcc twin {rel}"))
        };
        let twins = Twins {
            compiler,
            stream: load("stream.cu", STREAM)?,
            vector_add: load("course/vector_add.cu", VECTOR_ADD)?,
            increment_multiblock: load("ch1/increment_multiblock.cu", INCREMENT_MULTIBLOCK)?,
            reduce: load("reduce.cu", REDUCE)?,
            transpose: load("ch3/transpose.cu", TRANSPOSE)?,
            ilp_copy: load("ch3/ilp_copy.cu", ILP_COPY)?,
            sor: load("thesis/sor.cu", SOR)?,
            heat: load("course/heat.cu", HEAT)?,
            laplace2d: load("ch6/laplace2d.cu", LAPLACE2D)?,
            image_blur: load("course/image_blur.cu", IMAGE_BLUR)?,
            convolution: load("course/convolution.cu", CONVOLUTION)?,
            ch6_deriv: load("ch6/deriv.cu", CH6_DERIV)?,
        };
        let _ = std::fs::remove_dir_all(&dir);
        Ok(twins)
    }
}

fn compile(nvcc: &Path, source: &Path, arch: &str) -> Result<String> {
    let ptx = source.with_extension("ptx");
    let output = Command::new(nvcc)
        .args(["-ptx", "-O3", &format!("-arch={arch}"), "-o"])
        .arg(&ptx)
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
    std::fs::read_to_string(&ptx).map_err(|e| Error::Io(format!("cannot read {}: {e}", ptx.display())))
}

/// nvcc's path and the last line of its `--version` (the build); an error when it is missing.
fn nvcc_and_version() -> Result<(PathBuf, String)> {
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
fn write_source(dir: &Path, rel: &str, text: &str) -> Result<PathBuf> {
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
    let output = Command::new(&nvcc)
        .args(["-O3", "-o"])
        .arg(&exe)
        .arg(&path)
        .output()
        .map_err(|e| Error::Io(format!("cannot run nvcc: {e}")))?;
    if !output.status.success() {
        return Err(Error::Io(format!(
            "nvcc failed on {}: {}",
            path.display(),
            String::from_utf8_lossy(&output.stderr)
        )));
    }
    Ok((exe, compiler))
}
