//! Arithmetic as written: explicit roundings that ptxas never contracts, FMAs where the source
//! fuses, the fast-math approximations only where asked for, directed rounding modes and flushes.
use super::kernel_ptx;

#[test]
fn explicit_fma_is_fused_and_fast_math_is_approximate() {
    for body in kernel_ptx("precision_axpy_f32") {
        assert!(body.contains("fma.rn.f32"), "precision_axpy_f32 lost its fma");
    }
    for body in kernel_ptx("stream_triad_f64") {
        assert!(body.contains("fma.rn.f64"), "stream_triad_f64 lost its fma");
    }
    for body in kernel_ptx("base_fast") {
        assert!(body.contains("sin.approx"), "base_fast does not use the hardware sine");
    }
    for body in kernel_ptx("base") {
        assert!(!body.contains("sin.approx"), "base must use the accurate sine");
    }
}

/// The Monte Carlo kernels round as the CPU does: every multiply and add is explicitly rounded
/// (`mul.rn`, `add.rn`, `fma.rn`), which ptxas never contracts (a plain `mul.f32` followed by
/// `add.f32` it may fuse), and the exponential is the accurate one, not `ex2.approx`.
#[test]
fn bs_european_mc_rounds_explicitly() {
    for t in ["f32", "f64"] {
        for kernel in ["mc_payoffs", "mc_squared_deviations"] {
            let name = format!("{kernel}_{t}");
            for body in kernel_ptx(&name) {
                assert!(body.contains(&format!("fma.rn.{t}")), "{name} lost its fma");
                for op in ["mul", "add", "sub"] {
                    assert!(
                        !body.contains(&format!("{op}.{t}")),
                        "{name} has a contractible {op}.{t}"
                    );
                }
                assert!(!body.contains("ex2.approx"), "{name} uses the approximate exponential");
            }
        }
    }
}

/// ch3-async's kernel: the accurate `sincosf` (no hardware sine), the squares and their sum
/// rounded one by one (never fused, so the simulator's result is the GPU's), an IEEE square root.
#[test]
fn async_kernel_rounds_explicitly() {
    for body in kernel_ptx("kernel") {
        for p in ["mul.rn.f32", "add.rn.f32", "sqrt.rn.f32"] {
            assert!(body.contains(p), "`kernel` lacks `{p}`");
        }
        assert!(
            !body.contains("sin.approx") && !body.contains("cos.approx"),
            "`kernel` uses the hardware sine"
        );
    }
}

/// The pi kernels of §5.2: the CPU-faithful count rounds both squares (`mul.rn`, `add.rn`, no
/// `fma`), the FMA count fuses the second square into the sum; the written-out reductions use
/// shared memory and barriers, the lock a CAS spin, fences and volatile accesses (§5.3.1).
#[test]
fn pi_kernels_round_and_synchronise_as_written() {
    for precision in ["f32", "f64"] {
        for body in kernel_ptx(&format!("pi_count_{precision}")) {
            assert!(body.contains(&format!("mul.rn.{precision}")) && body.contains(&format!("add.rn.{precision}")));
            assert!(!body.contains("fma.rn"), "pi_count_{precision} fuses x*x + y*y");
        }
        for body in kernel_ptx(&format!("pi_count_fma_{precision}")) {
            assert!(
                body.contains(&format!("fma.rn.{precision}")),
                "pi_count_fma_{precision} lost its fma"
            );
        }
        for body in kernel_ptx(&format!("partial_sum_{precision}")) {
            assert!(body.contains("bar.sync") && body.contains("st.shared") && body.contains("ld.shared"));
        }
        for body in kernel_ptx(&format!("sum_{precision}")) {
            for p in [
                "atom.cas.b32",
                "atom.exch.b32",
                "membar.gl",
                "ld.volatile.global.b32",
                "st.volatile.global.b32",
            ] {
                assert!(body.contains(p), "`sum_{precision}` lacks `{p}`");
            }
        }
    }
}

/// The Philox kernels: 32-bit multiplies (`mul.hi.u32`, not a 64-bit product), 16-byte stores,
/// and normals whose every multiply and add is explicitly rounded (`fma.rn`, `mul.rn`,
/// `add.rn`, which ptxas never contracts), with IEEE `sqrt.rn`, no approximate function, and,
/// in `f32`, no division (the logarithm is a polynomial).
#[test]
fn philox_kernels_multiply_in_32_bits_and_round_explicitly() {
    for (t, store) in [("f32", "st.global.v4.b32"), ("f64", "st.global.v2.b64")] {
        for kernel in ["philox_uniform", "philox_normal"] {
            let name = format!("{kernel}_{t}");
            for body in kernel_ptx(&name) {
                for p in ["mul.hi.u32", store] {
                    assert!(body.contains(p), "`{name}` lacks `{p}`");
                }
                for op in ["mul", "add", "sub"] {
                    assert!(
                        !body.contains(&format!("{op}.{t}")),
                        "{name} has a contractible {op}.{t}"
                    );
                }
                assert!(!body.contains(".approx"), "{name} uses an approximate function");
            }
        }
        for body in kernel_ptx(&format!("philox_normal_{t}")) {
            for p in [format!("fma.rn.{t}"), format!("sqrt.rn.{t}")] {
                assert!(body.contains(&p), "`philox_normal_{t}` lacks `{p}`");
            }
        }
    }
    for body in kernel_ptx("philox_normal_f32") {
        assert!(!body.contains("div."), "philox_normal_f32 divides");
    }
}

/// ch3-intrinsics: the fast kernel uses the approximate instructions, the accurate one none of
/// them; the fused Horner has fma.rn and no separate mul/add, the unfused the reverse.
#[test]
fn intrinsics_lower_to_fast_or_accurate_instructions() {
    for body in kernel_ptx("intrinsics_fast") {
        for p in ["sin.approx", "ex2.approx", "div.approx"] {
            assert!(body.contains(p), "intrinsics_fast lacks `{p}`");
        }
    }
    for body in kernel_ptx("intrinsics_accurate") {
        for p in ["sin.approx", "ex2.approx", "div.approx"] {
            assert!(!body.contains(p), "intrinsics_accurate has `{p}`");
        }
        assert!(
            body.contains("div.rn.f32"),
            "intrinsics_accurate lost its IEEE division"
        );
    }
    for body in kernel_ptx("horner_fused") {
        assert!(body.contains("fma.rn.f32"), "horner_fused lost its fma");
        assert!(!body.contains("mul.rn.f32") && !body.contains("add.rn.f32"));
    }
    for body in kernel_ptx("horner_unfused") {
        assert!(!body.contains("fma.rn.f32"), "horner_unfused fuses");
        assert!(body.contains("mul.rn.f32") && body.contains("add.rn.f32"));
    }
}

/// ch3-intrinsics: each rounding mode is its own instruction (`.rp` is CUDA's `_ru`, `.rm` its
/// `_rd`), and the flushing kernel has both the IEEE and the `.ftz` forms.
#[test]
fn directed_rounding_and_flush_use_their_instructions() {
    for t in ["f32", "f64"] {
        for body in kernel_ptx(&format!("directed_rounding_{t}")) {
            for op in ["add", "mul"] {
                for mode in ["rn", "rz", "rp", "rm"] {
                    let p = format!("{op}.{mode}.{t}");
                    assert!(body.contains(&p), "directed_rounding_{t} lacks `{p}`");
                }
            }
        }
    }
    for body in kernel_ptx("flush_to_zero") {
        for p in ["add.rn.f32", "add.rn.ftz.f32", "mul.rn.f32", "mul.rn.ftz.f32"] {
            assert!(body.contains(p), "flush_to_zero lacks `{p}`");
        }
    }
}
