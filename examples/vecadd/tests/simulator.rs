//! The port on the CPU simulator: the kernel's sums against the CPU's, and the length check the
//! typed launch adds to Rust-CUDA's raw pointer.
use ferrocuda::{Gpu, KernelSet, KernelView, LaunchShape};
use vecadd_kernels::{Vecadd, VecaddArgs};

static KERNELS: KernelSet = ferrocuda::include_kernels!("vecadd_kernels");

#[test]
fn vecadd_matches_the_cpu_and_refuses_unequal_lengths() {
    let gpu = Gpu::simulator();
    let n = 100_000;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let b: Vec<f32> = (0..n).map(|i| 1.0 / (i + 1) as f32).collect();
    let (a_d, b_d) = (gpu.upload(&a).unwrap(), gpu.upload(&b).unwrap());
    let mut c_d = gpu.zeros::<f32>(n).unwrap();
    let kernels = gpu.load(&KERNELS).unwrap();
    let args = VecaddArgs {
        a: a_d.view(),
        b: b_d.view(),
        c: c_d.view_mut(),
    };
    kernels
        .launch(Vecadd, LaunchShape::cover_1d(n, 256).unwrap(), args)
        .unwrap();
    let c = gpu.download(&c_d).unwrap();
    assert!((0..n).all(|i| c[i] == a[i] + b[i]));

    let mut short_d = gpu.zeros::<f32>(n - 1).unwrap();
    let args = VecaddArgs {
        a: a_d.view(),
        b: b_d.view(),
        c: short_d.view_mut(),
    };
    let error = kernels
        .launch(Vecadd, LaunchShape::cover_1d(n, 256).unwrap(), args)
        .unwrap_err()
        .to_string();
    assert!(error.contains("vecadd") && error.contains("`c`"), "{error}");
}
