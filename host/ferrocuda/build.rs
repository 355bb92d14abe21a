//! Compiles the library's own kernels (`gpu-kernels`) to PTX, one module per architecture in
//! `FERROCUDA_ARCHS` (default sm_90), and sm_90a beside sm_90 for the Hopper GEMM
//! (`gpu_kernels::gemm`), for `ptx::LIBRARY` to embed: the same builder call a user's build script
//! makes.
fn main() {
    ferrocuda_builder::PtxBuilder::new("../../gpu-kernels/gpu-kernels")
        .with_hopper_specific()
        .embed()
        .unwrap_or_else(|e| ferrocuda_builder::fail(&e));
}
