//! Compiles the book's kernels to PTX for `KERNELS` to embed: exactly the builder call a user's
//! build script makes. The two modules of §1.6.1's twoMinusThree (`c_m`, `d_m`) are kernel crates
//! of their own, each built to its own PTX (separate compilation), which `Gpu::link` joins.
fn main() {
    for kernels in [
        "../ferrocuda-book-kernels",
        "../ferrocuda-book-c-m",
        "../ferrocuda-book-d-m",
    ] {
        ferrocuda_builder::PtxBuilder::new(kernels)
            .embed()
            .unwrap_or_else(|e| ferrocuda_builder::fail(&e));
    }
}
