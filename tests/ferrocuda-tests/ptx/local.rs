//! Local memory and printing: no kernel keeps values in local memory but those that must (the
//! accurate sine's reduction, ch3-localmem's demonstrations, the printing kernels), and only the
//! kernels that print reach `vprintf` and formatting code.
use super::{kernel_ptx, modules};
use book_kernels::ch3;
use ferrocuda::ptx;

/// Kernels with the accurate sine: its argument reduction for huge arguments (Payne-Hanek, in
/// `libm`'s `rem_pio2_large`) keeps a small array in local memory, as CUDA's own `sinf` does.
/// (`kernel` is ch3-async's, with `sincosf`; `sincos_one_reduction` calls `libm` beyond 2^20;
/// `probe_float_methods_*` call `sin` and `sincos` by method syntax.)
const ACCURATE_SINE_KERNELS: [&str; 8] = [
    "base",
    "math",
    "kernel",
    "intrinsics_accurate",
    "sin_cos_separate",
    "sincos_one_reduction",
    "probe_float_methods_f32",
    "probe_float_methods_f64",
];

/// Kernels that use local memory on purpose: ch3-localmem's private array indexed at run time,
/// and its 1024-byte one (the book's `k3`).
const LOCAL_MEMORY_DEMONSTRATIONS: [&str; 2] = ["localmem_dynamic", "localmem_large_array"];

/// Kernels that print (`ferrocuda_device::println!`): the arguments of each line are gathered in
/// the kernel's stack frame (local memory) for the formatter, which runs out of line.
const PRINTING_KERNELS: [&str; 2] = ["say_hello", "probe_print"];

#[test]
fn no_kernel_uses_local_memory() {
    for module in modules() {
        for name in ptx::entry_points(module.ptx).into_iter().filter(|n| {
            !ACCURATE_SINE_KERNELS.contains(n)
                && !LOCAL_MEMORY_DEMONSTRATIONS.contains(n)
                && !PRINTING_KERNELS.contains(n)
        }) {
            let body = ptx::entry_ptx(module.ptx, name).unwrap_or_default();
            assert!(!body.contains(".local"), "`{name}` ({}) uses local memory", module.arch);
        }
    }
}

/// The functions (`.func`) an entry calls, directly or through the functions it calls.
fn reachable_functions<'a>(ptx: &'a str, entry_body: &'a str) -> Vec<&'a str> {
    let function_body = |name: &str| {
        let start = ptx.find(&format!("{name}("))?;
        let header = ptx[..start].rfind(".func")?;
        let open = ptx[header..].find('{')? + header;
        let close = ptx[open..].find("\n}")? + open;
        Some(&ptx[open..close])
    };
    let callees = |body: &'a str| -> Vec<&'a str> {
        body.match_indices("call.uni ")
            .filter_map(|(at, _)| {
                let rest = &body[at + "call.uni ".len()..];
                let rest = rest.strip_prefix("(retval0), ").unwrap_or(rest);
                rest.split([',', ';', ' ']).next()
            })
            .collect()
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut todo = callees(entry_body);
    while let Some(name) = todo.pop() {
        if !seen.contains(&name) {
            seen.push(name);
            if let Some(body) = function_body(name) {
                todo.extend(callees(body));
            }
        }
    }
    seen
}

/// Device printing is CUDA's `vprintf` system call, declared `.extern` for the driver to resolve
/// (as nvcc declares it), and reached only from the kernels that print: the others link no
/// formatting code.
#[test]
fn only_printing_kernels_call_vprintf() {
    for module in modules() {
        let declared = module.ptx.contains(".extern .func  (.param .b32 func_retval0) vprintf")
            || module.ptx.contains(".extern .func (.param .b32 func_retval0) vprintf");
        let mut printing = Vec::new();
        for name in ptx::entry_points(module.ptx) {
            let body = ptx::entry_ptx(module.ptx, name).unwrap_or_default();
            if reachable_functions(module.ptx, body).contains(&"vprintf") {
                printing.push(name);
            }
        }
        printing.sort_unstable();
        let mut expected: Vec<&str> = PRINTING_KERNELS
            .into_iter()
            .filter(|k| ptx::entry_points(module.ptx).contains(k))
            .collect();
        expected.sort_unstable();
        assert_eq!(printing, expected, "{} kernels that reach vprintf", module.arch);
        assert_eq!(
            declared,
            !expected.is_empty(),
            "{}: the vprintf declaration",
            module.arch
        );
    }
}

/// A panic traps without formatting a message, so only the kernels that print reach
/// formatting code (`core::fmt`, through the device library's out-of-line `_print`).
#[test]
fn only_printing_kernels_link_formatting_code() {
    for module in modules() {
        for name in ptx::entry_points(module.ptx) {
            let body = ptx::entry_ptx(module.ptx, name).unwrap_or_default();
            let formats =
                body.contains("fmt") || reachable_functions(module.ptx, body).iter().any(|f| f.contains("fmt"));
            assert_eq!(
                formats,
                PRINTING_KERNELS.contains(&name),
                "`{name}` ({}): reaches formatting code",
                module.arch
            );
        }
    }
}

/// ch3-localmem: the private array indexed at run time lives in a `.local` depot, the one with
/// constant indices in registers.
#[test]
fn localmem_large_array_keeps_its_1024_bytes_in_local_memory() {
    let bytes = ch3::localmem::LARGE_LEN * size_of::<f32>();
    for body in kernel_ptx("localmem_large_array") {
        let line = body
            .lines()
            .find(|l| l.contains("__local_depot") && l.contains(".local"));
        assert!(
            line.is_some_and(|l| l.contains(&format!("[{bytes}]"))),
            "localmem_large_array: no {bytes}-byte local depot ({line:?})"
        );
        assert!(body.contains("st.volatile.local") || body.contains("st.local"));
    }
}

#[test]
fn localmem_dynamic_uses_local_memory_and_registers_variant_does_not() {
    for body in kernel_ptx("localmem_dynamic") {
        assert!(
            body.contains(".local") && body.contains("ld.local"),
            "localmem_dynamic has no local array"
        );
    }
    for body in kernel_ptx("localmem_registers") {
        assert!(!body.contains(".local"), "localmem_registers uses local memory");
    }
}
