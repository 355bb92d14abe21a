//! Compiles `gpu-kernels` to PTX (one module per architecture in `FERROCUDA_ARCHS`, default
//! sm_90) and writes `ptx_modules.rs`, which `src/ptx.rs` includes: the PTX is embedded in the
//! library, and editing a kernel rebuilds it, nothing else does.
use std::{env, fs, path::PathBuf};

fn main() {
    println!("cargo::rerun-if-changed=../gpu-kernels/src");
    println!("cargo::rerun-if-changed=../gpu-kernels/macros/src");
    println!("cargo::rerun-if-changed=../gpu-kernels/Cargo.toml");
    println!("cargo::rerun-if-env-changed=FERROCUDA_ARCHS");
    let archs: Vec<String> = match env::var("FERROCUDA_ARCHS") {
        Ok(list) if !list.trim().is_empty() => list.split(',').map(|a| a.trim().to_string()).collect(),
        _ => gpu_kernels_builder::DEFAULT_ARCHS
            .iter()
            .map(|a| a.to_string())
            .collect(),
    };
    let modules = gpu_kernels_builder::PtxBuilder::new("../gpu-kernels")
        .archs(&archs)
        .build()
        .unwrap_or_else(|e| gpu_kernels_builder::fail(&e));

    let out_dir = PathBuf::from(env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let mut table = String::from("&[\n");
    for module in &modules {
        let cc = gpu_kernels_builder::parse_arch(&module.arch).unwrap_or_else(|e| gpu_kernels_builder::fail(&e));
        let copy = out_dir.join(format!("gpu_kernels.{}.ptx", module.arch));
        fs::copy(&module.path, &copy).unwrap_or_else(|e| {
            gpu_kernels_builder::fail(&gpu_kernels_builder::BuildError::from(format!(
                "cannot copy {} into OUT_DIR: {e}",
                module.path.display()
            )))
        });
        table += &format!(
            "    PtxModule {{ arch: {:?}, compute_capability: {cc}, ptx: include_str!({:?}) }},\n",
            module.arch,
            copy.display().to_string()
        );
    }
    table += "]\n";
    fs::write(out_dir.join("ptx_modules.rs"), table).expect("OUT_DIR is writable");
}
