#!/usr/bin/env python3
# Writes gpu-kernels/ferrocuda-device/src/arch/nvptx/wgmma.rs: wgmma.mma_async needs its
# accumulator registers spelled out in the asm template, N/2 of them.
shapes = []
for n in (64, 128, 256):
    shapes.append((f"wgmma_bf16_m64n{n}k16", f"m64n{n}k16.f32.bf16.bf16", n, True))
    shapes.append((f"wgmma_f16_m64n{n}k16", f"m64n{n}k16.f32.f16.f16", n, True))
    shapes.append((f"wgmma_tf32_m64n{n}k8", f"m64n{n}k8.f32.tf32.tf32", n, False))
out = []
out.append('''//! Hopper's warpgroup matrix multiply-accumulate (`wgmma.mma_async`, PTX ISA §9.7.15; sm_90a):
//! 128 threads multiply a 64 x K tile of `A` by a K x N tile of `B`, both read from shared
//! memory through matrix descriptors, into a 64 x N tile of f32 that the threads hold in
//! registers, N / 2 each. The accumulator registers are written after the instruction issues, so
//! they travel through every later `wgmma` instruction of the group (and `wgmma.wait_group`) as
//! `inout` operands: the compiler cannot read them early.
//!
//! Built for sm_90a only (`FERROCUDA_ARCHS=sm_90a`): in a module for another architecture each
//! of these traps, and the host refuses to launch a kernel that uses them there.
//!
//! The templates spell out every accumulator register, as `asm!` needs: this file is written by
//! `docs/scripts/wgmma.py` (then `cargo fmt`), not by hand.
use core::arch::asm;

/// `wgmma.fence.sync.aligned`: orders this warpgroup's earlier register and shared-memory
/// writes before the `wgmma` instructions that follow.
///
/// # Safety
/// Every thread of the warpgroup executes it, convergently.
#[inline(always)]
pub unsafe fn wgmma_fence() {
    #[cfg(target_feature = "sm_90a")]
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("wgmma.fence.sync.aligned;", options(nostack))
    };
    #[cfg(not(target_feature = "sm_90a"))]
    super::trap()
}

/// `wgmma.commit_group.sync.aligned`: the `wgmma` instructions issued since the last commit
/// form a group.
///
/// # Safety
/// Every thread of the warpgroup executes it, convergently.
#[inline(always)]
pub unsafe fn wgmma_commit_group() {
    #[cfg(target_feature = "sm_90a")]
    // SAFETY: forwarded to the caller.
    unsafe {
        asm!("wgmma.commit_group.sync.aligned;", options(nostack))
    };
    #[cfg(not(target_feature = "sm_90a"))]
    super::trap()
}
''')
for pending in (0, 1):
    out.append(f'''
/// `wgmma.wait_group.sync.aligned {pending}`: waits until at most {pending} committed groups are pending.
///
/// # Safety
/// Every thread of the warpgroup executes it, convergently.
#[inline(always)]
pub unsafe fn wgmma_wait_group_{pending}() {{
    #[cfg(target_feature = "sm_90a")]
    // SAFETY: forwarded to the caller.
    unsafe {{
        asm!("wgmma.wait_group.sync.aligned {pending};", options(nostack))
    }};
    #[cfg(not(target_feature = "sm_90a"))]
    super::trap()
}}
''')
for name, ptx, n, trans in shapes:
    regs = n // 2
    dlist = ", ".join("{%d}" % i for i in range(regs)) if False else ", ".join("{d%d}" % i for i in range(regs))
    tail = "p, 1, 1, 0, 0" if trans else "p, 1, 1"
    template = '"{{ .reg .pred p; setp.ne.b32 p, {scale}, 0; ", "wgmma.mma_async.sync.aligned.%s {{%s}}, {a}, {b}, %s; }}"' % (ptx, dlist.replace("{", "{").replace("}", "}"), tail)
    operands = ",\n                ".join("d%d = inout(reg32) d[%d]" % (i, i) for i in range(regs))
    out.append(f'''
/// `wgmma.mma_async.sync.aligned.{ptx}`: `d = a b + d` (`d = a b` when `accumulate` is false),
/// `a` and `b` K-major in shared memory, named by their descriptors.
///
/// # Safety
/// Every thread of the warpgroup executes it, convergently, after a `wgmma_fence`; the
/// descriptors name shared memory of this launch holding the operands; neither they nor `d` are
/// touched until a `wgmma_wait_group` has retired its group.
#[inline(always)]
pub unsafe fn {name}(d: &mut [f32; {regs}], a: u64, b: u64, accumulate: bool) {{
    #[cfg(not(target_feature = "sm_90a"))]
    {{
        let _ = (d, a, b, accumulate);
        super::trap()
    }}
    #[cfg(target_feature = "sm_90a")]
    // SAFETY: forwarded to the caller.
    unsafe {{
        asm!(
            concat!({template.replace("{{%s}}" , "")}),
                {operands},
                a = in(reg64) a,
                b = in(reg64) b,
                scale = in(reg32) u32::from(accumulate),
                options(nostack)
        )
    }};
}}
''')
indices = " ".join(str(i) for i in range(128))
out.append('''
/// Keeps the compiler's reads of `registers` after the instruction before it (an empty `asm`
/// that takes and gives back each register: CUTLASS's `warpgroup_fence_operand`). Spelled out
/// for every register: a rolled loop over them would keep the array in local memory.
#[inline(always)]
pub fn fence_registers<const N: usize>(registers: &mut [f32; N]) {{
    macro_rules! each {{
        ($($i:literal)*) => {{$(
            if let Some(register) = registers.get_mut($i) {{
                // SAFETY: an empty template; the register is given back unchanged.
                unsafe {{ asm!("/* {{0}} */", inout(reg32) * register, options(nomem, nostack, preserves_flags)) }};
            }}
        )*}};
    }}
    each!({indices});
    const {{ assert!(N <= 128, "a wgmma accumulator holds at most 128 registers") }};
}}
'''.format(indices=indices))
open(__import__('os').path.join(__import__('os').path.dirname(__file__), '..', '..', 'gpu-kernels/ferrocuda-device/src/arch/nvptx/wgmma.rs'), 'w').write("".join(out))
