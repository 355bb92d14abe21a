//! Compiles the kernel crate in `kernels/` to PTX (for the architectures in `FERROCUDA_ARCHS`,
//! default sm_90) and writes what `ferrocuda::include_kernels!("dot_kernels")` embeds.
fn main() {
    ferrocuda_builder::PtxBuilder::new("kernels")
        .embed()
        .unwrap_or_else(|e| ferrocuda_builder::fail(&e));
}
