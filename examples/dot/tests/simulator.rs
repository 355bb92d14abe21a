//! `dot` on the CPU simulator against the CPU: sizes around the warp and block boundaries, and
//! the launches it refuses (views of different lengths, blocks of partial warps).
use dot::kernels::{DotArgs, DotPartials};
use ferrocuda::{Gpu, KernelView, LaunchShape};

/// `n` values in `[-1, 1)`: signed, so the sums cancel and the check is relative to `Σ|x y|`.
fn signed(n: usize, seed: u64) -> Vec<f32> {
    dot::sample(n, seed).into_iter().map(|v| 2.0 * v - 1.0).collect()
}

/// Checks `dot_with_block` on `n` signed elements against the CPU reference, within the bound of
/// `dot::relative_tolerance`.
fn check(gpu: &Gpu, n: usize, threads: u32) {
    let (x, y) = (signed(n, 7), signed(n, 8));
    let result = dot::dot_with_block(gpu, &x, &y, threads).unwrap();
    let (reference, scale) = dot::cpu_reference(&x, &y);
    let shape = dot::launch_shape(gpu, n, threads).unwrap();
    let bound = dot::relative_tolerance(&shape, n) * scale;
    let error = (f64::from(result) - reference).abs();
    assert!(
        error <= bound,
        "n = {n}, {threads} threads: {result} against {reference}, error {error:e} > {bound:e}"
    );
}

#[test]
fn matches_the_cpu_across_warp_and_block_boundaries() {
    let gpu = Gpu::simulator();
    for n in [1, 31, 32, 33, 255, 256, 257, 1000, 1 << 16] {
        check(&gpu, n, dot::THREADS);
    }
}

#[test]
fn matches_the_cpu_with_one_and_thirty_two_warps_per_block() {
    let gpu = Gpu::simulator();
    for threads in [32, 1024] {
        for n in [1, 33, 1000, 5000] {
            check(&gpu, n, threads);
        }
    }
}

#[test]
fn non_negative_inputs_meet_the_relative_tolerance() {
    let gpu = Gpu::simulator();
    let n = 100_000;
    let (x, y) = (dot::sample(n, 1), dot::sample(n, 2));
    let result = dot::dot(&gpu, &x, &y).unwrap();
    let (reference, scale) = dot::cpu_reference(&x, &y);
    assert_eq!(reference, scale);
    let shape = dot::launch_shape(&gpu, n, dot::THREADS).unwrap();
    assert!((f64::from(result) - reference).abs() / reference <= dot::relative_tolerance(&shape, n));
}

#[test]
fn empty_vectors_give_zero() {
    assert_eq!(dot::dot(&Gpu::simulator(), &[], &[]).unwrap(), 0.0);
}

#[test]
fn views_of_different_lengths_are_refused_naming_the_kernel_and_both_fields() {
    let gpu = Gpu::simulator();
    let x_d = gpu.upload(&[1.0f32; 100]).unwrap();
    let y_d = gpu.upload(&[1.0f32; 99]).unwrap();
    let mut partials_d = gpu.zeros::<f32>(1).unwrap();
    let args = DotArgs {
        x: x_d.view(),
        y: y_d.view(),
        partials: partials_d.view_mut(),
    };
    let shape = dot::launch_shape(&gpu, 100, 256).unwrap();
    let error = gpu
        .load(&dot::KERNELS)
        .unwrap()
        .launch(DotPartials, shape, args)
        .unwrap_err()
        .to_string();
    for part in ["dot_partials", "`x`", "`y`", "100", "99"] {
        assert!(error.contains(part), "`{part}` missing from: {error}");
    }
    // Through `dot`, the same check refuses it.
    let error = dot::dot(&gpu, &[1.0; 100], &[1.0; 99]).unwrap_err().to_string();
    assert!(error.contains("dot_partials"), "{error}");
}

#[test]
fn blocks_of_partial_warps_are_refused() {
    let gpu = Gpu::simulator();
    for threads in [0, 48, 100] {
        let error = dot::dot_with_block(&gpu, &[1.0; 64], &[1.0; 64], threads)
            .unwrap_err()
            .to_string();
        assert!(error.contains("multiple of 32"), "{threads} threads: {error}");
    }
}

/// Why `dot` refuses them: launched directly with a partial warp, `warp_sum` waits for lanes that
/// do not exist, which the simulator reports instead of hanging (on a GPU: undefined behaviour).
#[test]
fn a_partial_warp_launched_directly_faults_on_the_simulator() {
    let gpu = Gpu::simulator();
    let x_d = gpu.upload(&[1.0f32; 48]).unwrap();
    let mut partials_d = gpu.zeros::<f32>(1).unwrap();
    let args = DotArgs {
        x: x_d.view(),
        y: x_d.view(),
        partials: partials_d.view_mut(),
    };
    let shape = LaunchShape::new((1, 1, 1), (48, 1, 1)).with_shared_bytes(dot::kernels::shared_bytes(48) as u32);
    let outcome = gpu
        .load(&dot::KERNELS)
        .unwrap()
        .launch(DotPartials, shape, args)
        .and_then(|()| gpu.synchronize());
    let error = outcome.unwrap_err().to_string();
    assert!(error.contains("dot_partials"), "{error}");
}
