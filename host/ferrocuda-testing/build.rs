//! Compiles the probe kernels (`ferrocuda-probes`) to PTX for `PROBES` to embed (sm_90a beside
//! sm_90, for the Hopper probes): the same builder call a user's build script makes.
fn main() {
    ferrocuda_builder::PtxBuilder::new("../../gpu-kernels/ferrocuda-probes")
        .with_hopper_specific()
        .embed()
        .unwrap_or_else(|e| ferrocuda_builder::fail(&e));
}
