//! A newcomer's measurement: one 4096^2 Jacobi step on the simulator, timed.
use ferrocuda::{Gpu, KernelView, LaunchShape};
use stencil::kernels::{JacobiArgs, JacobiStep};

#[test]
fn one_jacobi_step_of_4096_squared() {
    let gpu = Gpu::simulator();
    let n = 4096usize;
    let a: Vec<f32> = (0..n * n).map(|i| (i % 97) as f32).collect();
    let a_d = gpu.upload(&a).unwrap();
    let mut out_d = gpu.zeros::<f32>(n * n).unwrap();
    let kernels = gpu.load(&stencil::KERNELS).unwrap();
    let shape = LaunchShape::new(((n / 32) as u32, (n / 8) as u32, 1), (32, 8, 1));
    let start = std::time::Instant::now();
    let args = JacobiArgs { a: a_d.view(), out: out_d.view_mut(), nx: n as u32, ny: n as u32 };
    kernels.launch(JacobiStep, shape, args).unwrap();
    let seconds = start.elapsed().as_secs_f64();
    let out = gpu.download(&out_d).unwrap();
    let k = 100 * n + 200;
    assert_eq!(out[k], 0.25 * (a[k - 1] + a[k + 1] + a[k - n] + a[k + n]));
    eprintln!("MEASURE jacobi 4096^2 step on the simulator: {seconds:.2} s");
}
