//! Compiles the book's kernels (`book-kernels`) to PTX for `KERNELS` to embed: exactly the
//! builder call a user's build script makes.
fn main() {
    ferrocuda_builder::PtxBuilder::new("../../gpu-kernels/book")
        .embed()
        .unwrap_or_else(|e| ferrocuda_builder::fail(&e));
}
