//! Compiles the library's own kernels (`gpu-kernels`) to PTX, one module per architecture in
//! `FERROCUDA_ARCHS` (default sm_90), for `ptx::LIBRARY` to embed: the same builder call a user's
//! build script makes.
fn main() {
    ferrocuda_builder::PtxBuilder::new("../../gpu-kernels/gpu-kernels")
        .embed()
        .unwrap_or_else(|e| ferrocuda_builder::fail(&e));
}
