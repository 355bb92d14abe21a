//! Memory accesses and synchronisation as written: named state spaces, vector widths, the
//! read-only and L2-only loads, shared memory behind barriers, atomics, shuffles and votes.
use super::{kernel_ptx, modules};
use book_kernels::ch3;

#[test]
fn kernels_name_the_global_space_and_vectorise() {
    for body in kernel_ptx("stream_copy_f32") {
        assert!(
            body.contains("ld.global.f32") && body.contains("st.global.f32"),
            "stream_copy_f32 uses generic accesses"
        );
    }
    for body in kernel_ptx("stream_triad_vec4_f32") {
        assert!(
            body.contains("ld.global.v4.b32") && body.contains("st.global.v4.b32"),
            "stream_triad_vec4_f32 is not vectorised"
        );
    }
    for body in kernel_ptx("stream_triad_vec4_f64") {
        assert!(
            body.contains("ld.global.v2.b64") && body.contains("st.global.v2.b64"),
            "stream_triad_vec4_f64 is not vectorised"
        );
    }
}

/// The read-only variants of §3.2.3 read through `ld.global.nc` (the texture path), their twins
/// through plain `ld.global`; the increments of §3.2.2 name the global space.
#[test]
fn ch3_read_only_kernels_use_the_non_coherent_load() {
    for t in ["f32", "f64"] {
        for body in kernel_ptx(&format!("stride_tex_{t}")) {
            assert!(body.contains("ld.global.nc"), "stride_tex_{t} lacks ld.global.nc");
        }
        for body in kernel_ptx(&format!("stride_global_{t}")) {
            assert!(
                body.contains("ld.global.") && !body.contains("ld.global.nc"),
                "stride_global_{t} must read with plain global loads"
            );
        }
        for kernel in ["offset", "stride", "offset_out_of_place", "stride_out_of_place"] {
            for body in kernel_ptx(&format!("{kernel}_{t}")) {
                assert!(
                    body.contains(&format!("ld.global.{t}")) && body.contains(&format!("st.global.{t}")),
                    "{kernel}_{t} uses generic accesses"
                );
            }
        }
    }
    for (kernel, nc) in [
        ("average4", false),
        ("average8", false),
        ("average4_tex", true),
        ("average8_tex", true),
    ] {
        for body in kernel_ptx(kernel) {
            let loads = body.matches("ld.global.nc.b32").count();
            let needed = if kernel.starts_with("average8") { 8 } else { 4 };
            if nc {
                assert!(loads >= needed, "{kernel}: {loads} ld.global.nc loads, not {needed}");
            } else {
                assert_eq!(loads, 0, "{kernel} must read with plain global loads");
            }
        }
    }
}

/// The ILP copy issues its four loads before its first store (the book's load batching), in the
/// full-tile path that comes first in the PTX.
#[test]
fn ch3_ilp_copy_batches_its_loads() {
    for t in ["f32", "f64"] {
        for body in kernel_ptx(&format!("ilp_copy_{t}")) {
            let first_store = body.find("st.global").expect("ilp_copy stores");
            let loads_before = body[..first_store].matches(&format!("ld.global.{t}")).count();
            assert!(
                loads_before >= 4,
                "ilp_copy_{t}: {loads_before} loads before the first store"
            );
        }
    }
}

/// ch3-offset-stride: the `_cg` stride kernels load with `ld.global.cg` (L2 only), the others
/// with plain `ld.global`.
#[test]
fn stride_cg_kernels_load_past_l1() {
    for t in ["f32", "f64"] {
        for kernel in ["stride_cg", "stride_out_of_place_cg"] {
            for body in kernel_ptx(&format!("{kernel}_{t}")) {
                assert!(body.contains("ld.global.cg."), "{kernel}_{t} lacks ld.global.cg");
            }
        }
        for body in kernel_ptx(&format!("stride_{t}")) {
            assert!(!body.contains("ld.global.cg."), "stride_{t} bypasses L1");
        }
    }
}

#[test]
fn device_primitives_lower_to_their_instructions() {
    let expect = |kernel: &str, patterns: &[&str]| {
        for body in kernel_ptx(kernel) {
            for p in patterns {
                assert!(body.contains(p), "`{kernel}` lacks `{p}`");
            }
        }
    };
    expect("probe_rounding_f32", &["fma.rn.f32", "mul.rn.f32", "add.rn.f32"]);
    expect("probe_rounding_f64", &["fma.rn.f64", "mul.rn.f64", "add.rn.f64"]);
    expect(
        "probe_warp",
        &[
            "shfl.sync.down.b32",
            "shfl.sync.up.b32",
            "shfl.sync.bfly.b32",
            "shfl.sync.idx.b32",
            "vote.sync.ballot.b32",
            "activemask.b32",
        ],
    );
    expect(
        "probe_atomics",
        &[
            "atom.add.s32",
            "atom.add.u32",
            "atom.add.u64",
            "atom.add.f32",
            "atom.add.f64",
            "atom.min.s32",
            "atom.max.u64",
            "atom.exch.b32",
            "atom.cas.b64",
            "bar.sync",
        ],
    );
    expect("probe_shared_reverse", &["bar.sync", "st.shared", "ld.shared"]);
    // The privatized histograms count with the shared-space atomic (a generic `atom` on shared
    // memory becomes a slower generic ATOM in SASS), all add to global memory without a reply
    // (`red`, as nvcc's unused `atomicAdd`); the 256-bin one reads 16 bytes per load.
    expect(
        "histo_privatized_kernel",
        &["atom.shared.add.u32", "red.global.add.u32"],
    );
    expect(
        "histo256_privatized",
        &["atom.shared.add.u32", "red.global.add.u32", "ld.global.v4.b32"],
    );
    expect("histo256_naive", &["red.global.add.u32", "ld.global.u8"]);
    expect("gsum1", &["bar.sync", "atom.add.f32"]);
    expect("reduction_improved", &["bar.sync", "ld.shared.b32", "st.shared.b32"]);
    expect("probe_tile_transpose", &["bar.sync", "st.shared", "ld.shared"]);
    expect(
        "probe_clock",
        &["%clock64", "%globaltimer", "membar.cta", "membar.gl", "membar.sys"],
    );
}

/// Chapter 3's shared-memory kernels (§3.3.3, §3.4): the reversals and tile transposes stage
/// through shared memory behind a barrier, the copies and naive transposes touch no shared
/// memory, every global access names the global space, and the bank-conflict loop really reads
/// shared memory on each pass (eight reads, none hoisted out of the loop); the PGI `transpose3`
/// shares its block indices through shared memory, as the article's does.
#[test]
fn ch3_shared_memory_kernels_use_shared_memory_as_written() {
    let tiled = [
        "copy_shared_mem",
        "transpose_coalesced",
        "transpose_no_bank_conflicts",
        "transpose_diagonal",
        "transpose2",
        "transpose3",
        "gtranspose2",
    ];
    for kernel in tiled {
        for body in kernel_ptx(kernel) {
            for p in [
                "bar.sync",
                "ld.shared.b32",
                "st.shared.b32",
                "ld.global.f32",
                "st.global.f32",
            ] {
                assert!(body.contains(p), "`{kernel}` lacks `{p}`");
            }
            assert!(
                !body.contains("ld.f32") && !body.contains("st.f32"),
                "`{kernel}` uses generic accesses"
            );
        }
    }
    for kernel in ["simple_copy", "transpose_naive", "transpose1"] {
        for body in kernel_ptx(kernel) {
            assert!(
                body.contains("ld.global.f32") && body.contains("st.global.f32"),
                "`{kernel}`"
            );
            assert!(
                !body.contains(".shared") && !body.contains("bar.sync"),
                "`{kernel}` uses shared memory"
            );
        }
    }
    for kernel in [
        "static_reverse",
        "dynamic_reverse1",
        "dynamic_reverse2",
        "dynamic_reverse3",
    ] {
        for body in kernel_ptx(kernel) {
            for p in ["bar.sync", "ld.shared", "st.shared"] {
                assert!(body.contains(p), "`{kernel}` lacks `{p}`");
            }
        }
    }
    // transpose3 passes the block's tile indices from thread (0, 0) through shared memory, behind
    // a barrier of its own: two barriers, where the book's diagonal kernel has one.
    for (kernel, barriers) in [("transpose3", 2), ("transpose_diagonal", 1)] {
        for body in kernel_ptx(kernel) {
            assert_eq!(body.matches("bar.sync").count(), barriers, "`{kernel}` barriers");
        }
    }
    for body in kernel_ptx("bank_conflicts") {
        assert!(
            body.matches("ld.shared.b32").count() >= ch3::bank_conflicts::READS,
            "bank_conflicts reads shared memory fewer than {} times per pass",
            ch3::bank_conflicts::READS
        );
    }
}

/// ch3-constant-increment: each variant reads from its state space; the constant bank is a
/// visible `.const` variable the host can look up.
#[test]
fn constant_increment_reads_its_state_space() {
    for module in modules() {
        assert!(
            module
                .ptx
                .contains(".visible .const .align 16 .b8 ferrocuda_constant_bank[65536]"),
            "{}: no constant bank",
            module.arch
        );
    }
    let expect = |kernel: &str, present: &str, absent: &str| {
        for body in kernel_ptx(kernel) {
            assert!(body.contains(present), "`{kernel}` lacks `{present}`");
            assert!(!body.contains(absent), "`{kernel}` has `{absent}`");
        }
    };
    expect("increment_constant", "ld.const.b32", "ld.param.b32");
    expect("poly_constant", "ld.const.b32", ".local");
    expect("poly_param", "ld.param", ".local");
    expect("poly_global", "ld.global.f32", "ld.const");
    expect("increment_global", "ld.global.b32", "ld.const");
}

/// ch3-cuf-*: the CUF loop bodies stride over the grid (they read the grid's extent, so a fixed
/// or capped grid covers the range), the 2-D one along y as well, with no local memory.
#[test]
fn cuf_kernels_stride_over_the_grid() {
    for (kernel, extents) in [
        ("cuf_increment", &["%nctaid.x"][..]),
        ("cuf_increment_2d", &["%nctaid.x", "%nctaid.y"][..]),
    ] {
        for body in kernel_ptx(kernel) {
            for extent in extents {
                assert!(body.contains(extent), "`{kernel}` does not read `{extent}`");
            }
            assert!(
                body.contains("ld.global.b32") && body.contains("st.global.b32"),
                "`{kernel}`: no global access"
            );
            assert!(!body.contains(".local"), "`{kernel}` uses local memory");
        }
    }
}

/// course-matmul-tiled: the tiled kernels use shared memory and barriers, the register-tiled
/// one 16-byte shared and global accesses, and every multiply-add is an fma.
#[test]
fn matmul_kernels_tile_and_vectorise() {
    for body in ["matmul_tiled", "matmul_tiled_32"].into_iter().flat_map(kernel_ptx) {
        assert!(body.contains("bar.sync") && body.contains("ld.shared.b32") && body.contains("st.shared.b32"));
        assert!(body.contains("fma.rn.f32"));
    }
    for name in ["matmul_register_tiled", "matmul_register_tiled_unrolled"] {
        for body in kernel_ptx(name) {
            for p in [
                "bar.sync",
                "ld.shared.v4",
                "st.shared.v4",
                "ld.global.v4.b32",
                "st.global.v4.b32",
            ] {
                assert!(body.contains(p), "`{name}` lacks `{p}`");
            }
            // The 8 x 8 block: 64 fmas per k step; all 8 steps of a tile when unrolled.
            let fmas = if name.ends_with("unrolled") { 8 * 64 } else { 64 };
            assert!(
                body.matches("fma.rn.f32").count() >= fmas,
                "`{name}` has fewer than {fmas} fmas"
            );
        }
    }
}

/// course-matmul-tiled's pipelined tensor-core kernels: operands reach shared memory only by
/// `cp.async` (6 copies per step, in the prologue and in the loop; 4 stages: 2 groups in flight
/// at each wait), fragments only by `ldmatrix.x4` (8 per half step, in the loop and before it),
/// 64 `mma.sync` per step, TF32 rounding once per element, no local memory.
#[test]
fn matmul_pipelined_kernels_copy_asynchronously_and_load_fragments_by_ldmatrix() {
    for (name, mma) in [
        (
            "matmul_bf16_mma_pipelined",
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32",
        ),
        (
            "matmul_tf32_mma_pipelined",
            "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
        ),
    ] {
        for body in kernel_ptx(name) {
            for (pattern, count) in [
                ("cp.async.cg.shared.global", 2 * 6),
                ("cp.async.commit_group", 2),
                ("cp.async.wait_group 2", 2),
                ("ldmatrix.sync.aligned.m8n8.x4.shared.b16", 3 * 8),
                (mma, 64),
            ] {
                assert!(
                    body.matches(pattern).count() >= count,
                    "`{name}` has fewer than {count} `{pattern}`"
                );
            }
            if name.contains("bf16") {
                assert!(
                    !body.contains("st.shared") && !body.contains("ld.shared"),
                    "`{name}` moves words through registers"
                );
            } else {
                // TF32: each thread rounds the 24 words it copied, in shared memory (16-byte
                // accesses), before the first step and once per step: 48 `cvt.rna`, not the
                // 64 per step that rounding every fragment would take.
                let cvts = body.matches("cvt.rna.tf32.f32").count();
                assert!(
                    (1..=2 * 24).contains(&cvts) && body.contains("ld.shared.v4") && body.contains("st.shared.v4"),
                    "`{name}` rounds {cvts} times, or not in shared memory"
                );
            }
            assert!(!body.contains(".local"), "`{name}` uses local memory");
        }
    }
}

#[test]
fn fft_kernels_keep_their_values_in_registers_and_read_twiddles_non_coherently() {
    for name in ["fft_rows_f32", "fft_rows_f64"] {
        for body in kernel_ptx(name) {
            // The eight values of a thread stay in registers (`unroll!`), the passes meet at
            // barriers, the twiddle tables come through the read-only path, and each complex
            // element moves in one access (`b64` for f32 pairs, `v2.b64` for f64 pairs).
            assert!(!body.contains(".local"), "{name}: local memory");
            assert!(body.contains("bar.sync"), "{name}: no barrier");
            assert!(
                body.contains("ld.global.nc"),
                "{name}: twiddles not read through ld.global.nc"
            );
            let pair = if name.ends_with("f32") {
                "ld.global.b64"
            } else {
                "ld.global.v2.b64"
            };
            assert!(body.contains(pair), "{name}: no {pair}");
        }
    }
}

/// Every atomic operation at each scope is its own instruction: `.cta` and `.sys` spelled out,
/// the device scope the instruction's default.
#[test]
fn atomics_lower_to_their_scoped_instructions() {
    for body in kernel_ptx("probe_atomic_ops") {
        for op in [
            "add.u32", "add.f64", "min.s64", "max.u64", "and.b32", "or.b64", "xor.b32", "exch.b64", "cas.b32",
        ] {
            for scope in ["atom.relaxed.cta.", "atom.", "atom.relaxed.sys."] {
                assert!(
                    body.contains(&format!("{scope}{op}")),
                    "probe_atomic_ops lacks {scope}{op}"
                );
            }
        }
    }
}
