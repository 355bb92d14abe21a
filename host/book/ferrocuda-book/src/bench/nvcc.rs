//! The CUDA C twins: `host/book/ferrocuda-book/nvcc/*.cu`, embedded here and compiled by nvcc to PTX at bench
//! time ([`crate::nvcc`]), then loaded as modules of their own.
use crate::nvcc::{compile, nvcc_and_version, write_source};
use ferrocuda::gpu::{Gpu, LoadedKernels, Result};

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
        let write = |rel: &str, text: &str| write_source(&dir, rel, text);
        write("common.cuh", COMMON)?;
        write("course/image_filter.cuh", IMAGE_FILTER)?;
        let arch = format!("sm_{}", gpu.properties().compute_capability_number());
        let load = |rel: &str, text: &str| -> Result<LoadedKernels<'g>> {
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
