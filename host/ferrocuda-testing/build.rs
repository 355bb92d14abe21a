//! Compiles the probe kernels (`ferrocuda-probes`) to PTX for `PROBES` to embed: the same builder
//! call a user's build script makes.
fn main() {
    ferrocuda_builder::PtxBuilder::new("../../gpu-kernels/ferrocuda-probes")
        .embed()
        .unwrap_or_else(|e| ferrocuda_builder::fail(&e));
}
