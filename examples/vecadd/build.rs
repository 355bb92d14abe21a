//! Rust-CUDA:
//!
//! ```text
//! CudaBuilder::new("kernels").copy_to(out_path.join("kernels.ptx")).build().unwrap();
//! ```
//!
//! Here: compile `kernels/` to PTX (architectures from `FERROCUDA_ARCHS`, default sm_90) into
//! OUT_DIR, with the table `ferrocuda::include_kernels!("vecadd_kernels")` embeds. The builder
//! prints the `rerun-if-changed` lines itself, for the kernel crate and the device library.
fn main() {
    ferrocuda_builder::PtxBuilder::new("kernels")
        .embed()
        .unwrap_or_else(|e| ferrocuda_builder::fail(&e));
}
