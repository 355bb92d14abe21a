//! The CUDA C twins: `host/book/ferrocuda-book/nvcc/*.cu`, embedded here and compiled by nvcc to PTX at bench
//! time ([`crate::nvcc`]), then loaded as modules of their own.
use crate::nvcc::{compile, nvcc_and_version, write_source};
use ferrocuda::gpu::{Gpu, LoadedKernels, Result};

/// A file of `host/book/ferrocuda-book/nvcc/`: its path there and its text, embedded.
macro_rules! nvcc_file {
    ($rel:literal) => {
        ($rel, include_str!(concat!("../../nvcc/", $rel)))
    };
}

/// The twins, loaded on one device.
pub struct Twins<'g> {
    /// `nvcc --version`'s last line.
    pub compiler: String,
    pub stream: LoadedKernels<'g>,
    pub vector_add: LoadedKernels<'g>,
    pub increment_multiblock: LoadedKernels<'g>,
    pub reduce: LoadedKernels<'g>,
    pub transpose: LoadedKernels<'g>,
    /// `tlp_copy_*` and `ilp_copy_*` (book §3.5).
    pub ilp_copy: LoadedKernels<'g>,
    /// `sor_split_*` (the thesis's red-black SOR, split layout).
    pub sor: LoadedKernels<'g>,
    /// `heat_step_*`, `heat_step_tiled_*` (course-heat's FTCS steps).
    pub heat: LoadedKernels<'g>,
    /// `jacobi_strip_*` (the book's 9-point Laplace sweep, 8 points per thread).
    pub laplace2d: LoadedKernels<'g>,
    /// `blur_kernel`, `blur_fast`, `blur_stream` (course-image-blur).
    pub image_blur: LoadedKernels<'g>,
    /// `convolution_2d_basic_kernel`, `convolution_2d_tiled_kernel`, `convolution_2d_fast_m5`
    /// (course-convolution).
    pub convolution: LoadedKernels<'g>,
    /// `deriv_{x,y,z}[_l_pencils]_*` (book §6.1), with their own constant bank.
    pub ch6_deriv: LoadedKernels<'g>,
}

impl<'g> Twins<'g> {
    /// Compiles and loads every twin; an error when nvcc is missing or fails.
    pub fn compile(gpu: &'g Gpu) -> Result<Self> {
        let (nvcc, compiler) = nvcc_and_version()?;
        let dir = std::env::temp_dir().join(format!("ferrocuda-nvcc-{}", std::process::id()));
        let write = |(rel, text): (&str, &str)| write_source(&dir, rel, text);
        write(nvcc_file!("common.cuh"))?;
        write(nvcc_file!("course/image_filter.cuh"))?;
        let arch = format!("sm_{}", gpu.properties().compute_capability_number());
        let load = |(rel, text): (&str, &str)| -> Result<LoadedKernels<'g>> {
            let source = write((rel, text))?;
            let ptx = compile(&nvcc, &source, &arch)?;
            gpu.load_ptx(&ptx, &format!("the nvcc twin {rel}"))
        };
        let twins = Twins {
            compiler,
            stream: load(nvcc_file!("stream.cu"))?,
            vector_add: load(nvcc_file!("course/vector_add.cu"))?,
            increment_multiblock: load(nvcc_file!("ch1/increment_multiblock.cu"))?,
            reduce: load(nvcc_file!("reduce.cu"))?,
            transpose: load(nvcc_file!("ch3/transpose.cu"))?,
            ilp_copy: load(nvcc_file!("ch3/ilp_copy.cu"))?,
            sor: load(nvcc_file!("thesis/sor.cu"))?,
            heat: load(nvcc_file!("course/heat.cu"))?,
            laplace2d: load(nvcc_file!("ch6/laplace2d.cu"))?,
            image_blur: load(nvcc_file!("course/image_blur.cu"))?,
            convolution: load(nvcc_file!("course/convolution.cu"))?,
            ch6_deriv: load(nvcc_file!("ch6/deriv.cu"))?,
        };
        let _ = std::fs::remove_dir_all(&dir);
        Ok(twins)
    }
}
