//! ch1-separate-compilation: device data and device functions shared across modules (book
//! §1.6.1, programs twoPlusThree and twoMinusThree).
//!
//! twoPlusThree: the kernel `aPlusB` of module `a_m` adds `b_d`, a device variable of module
//! `b_m`, to its own `a_d`; the host writes both variables and reads `a_d` back. Both modules are
//! Rust modules of the book's kernel crate (`book_kernels::ch1::separate_compilation`).
//!
//! twoMinusThree: the kernel `cMinusD` of module `c_m` calls `negateD`, a device function of
//! module `d_m`, and reads its `d_d`. CUDA Fortran refuses that call without relocatable device
//! code (`-Mcuda=rdc`). Here `c_m` and `d_m` are two kernel crates, compiled to two PTX modules;
//! `c_m`'s PTX only declares `negate_d` and `D_D` (`.extern`), and `Gpu::link` has the driver's
//! JIT linker join the two, as `nvcc -rdc=true` and `nvlink` do. Loaded alone, `c_m` is refused
//! with a sentence naming what it lacks: the book's "Illegal call of a device routine from
//! another module". On the simulator each kernel crate is a Rust library, so the host's linker
//! resolved the declarations when the program was built.
use crate::example::{Example, NoOptions, Outcome, Run};
use book_kernels::ch1::separate_compilation::a_m::{A_D, APlusB, APlusBArgs};
use book_kernels::ch1::separate_compilation::b_m::B_D;
use c_m::{C_D, CMinusD, CMinusDArgs};
use d_m::D_D;
use ferrocuda::device::constant::CONSTANT_BANK_SYMBOL;
use ferrocuda::gpu::{Gpu, LaunchShape, Result};
use ferrocuda::verify::Check;
use ferrocuda::{Error, KernelSet};

/// The device function and variable `c_m` takes from `d_m`, by their PTX symbols.
pub const D_M_SYMBOLS: [&str; 2] = ["negate_d", "D_D"];

/// One thread: the book's `<<<1,1>>>`.
fn one_thread() -> LaunchShape {
    LaunchShape::new((1, 1, 1), (1, 1, 1))
}

/// twoPlusThree: `a_d = a; b_d = b`, `aPlusB<<<1,1>>>`, returns `a_d`.
pub fn two_plus_three(gpu: &Gpu, a: i32, b: i32) -> Result<i32> {
    let kernels = crate::kernels(gpu)?;
    kernels.write_variable::<A_D>(a)?;
    kernels.write_variable::<B_D>(b)?;
    kernels.launch(APlusB, one_thread(), APlusBArgs::default())?;
    kernels.read_variable::<A_D>()
}

/// twoMinusThree: links `c_m` with `d_m`, `c_d = c; d_d = d`, `cMinusD<<<1,1>>>`; returns
/// `(c_d, d_d)` (d_d negated by `negateD`).
pub fn two_minus_three(gpu: &Gpu, c: i32, d: i32) -> Result<(i32, i32)> {
    let kernels = gpu.link(&[&crate::C_M, &crate::D_M])?;
    kernels.write_variable::<C_D>(c)?;
    kernels.write_variable::<D_D>(d)?;
    kernels.launch(CMinusD, one_thread(), CMinusDArgs::default())?;
    Ok((kernels.read_variable::<C_D>()?, kernels.read_variable::<D_D>()?))
}

/// True when the PTX text holds a body of function `name` (a `.func` definition, exported or not).
pub fn defines_function(ptx: &str, name: &str) -> bool {
    ptx.lines().any(|line| {
        let line = line.strip_prefix(".visible ").unwrap_or(line);
        line.strip_prefix(".func ")
            .is_some_and(|rest| rest.trim_start().split(['(', ' ']).next() == Some(name))
    })
}

/// What separate compilation needs of the two modules, in every architecture built: `c_m`'s PTX
/// declares `negate_d` and `D_D` and holds no body of `negate_d`; `d_m`'s defines both and needs
/// nothing. `Err` names the first module that differs.
pub fn check_ptx(c_m: &KernelSet, d_m: &KernelSet) -> std::result::Result<(), String> {
    for module in c_m.modules() {
        let linkage = ferrocuda::ptx::linkage(module.ptx);
        for symbol in D_M_SYMBOLS {
            if !linkage.declared.contains(&symbol) || linkage.defined.contains(&symbol) {
                return Err(format!("c_m's {} PTX does not only declare `{symbol}`", module.arch));
            }
        }
        if !module.ptx.contains(".extern .func negate_d") || defines_function(module.ptx, "negate_d") {
            return Err(format!("c_m's {} PTX holds a body of negate_d", module.arch));
        }
    }
    for module in d_m.modules() {
        let linkage = ferrocuda::ptx::linkage(module.ptx);
        if !D_M_SYMBOLS.iter().all(|s| linkage.defined.contains(s)) || !linkage.declared.is_empty() {
            return Err(format!(
                "d_m's {} PTX does not define exactly what c_m needs: defines {:?}, declares {:?}",
                module.arch, linkage.defined, linkage.declared
            ));
        }
        if !module.ptx.contains(".visible .func negate_d") {
            return Err(format!("d_m's {} PTX lacks `.visible .func negate_d`", module.arch));
        }
    }
    Ok(())
}

/// `name`'s PTX symbols: what it defines and what it declares (`.extern`), the constant bank
/// (which every kernel crate of the device library defines) left out.
fn print_linkage(name: &str, set: &KernelSet) {
    let listed = |symbols: &[&str]| {
        let shown: Vec<&str> = symbols.iter().copied().filter(|s| *s != CONSTANT_BANK_SYMBOL).collect();
        if shown.is_empty() {
            "nothing".into()
        } else {
            shown.join(", ")
        }
    };
    let (linkage, archs) = (set.linkage(), set.archs());
    let (defined, declared) = (listed(&linkage.defined), listed(&linkage.declared));
    println!("   {name}'s PTX ({archs}): defines {defined}; declares (.extern) {declared}");
}

/// ch1-separate-compilation.
pub struct Ch1SeparateCompilation;

impl Example for Ch1SeparateCompilation {
    const ID: &'static str = "ch1-separate-compilation";
    const DESCRIPTION: &'static str = "device variables shared across modules (2+3=5) and a device function of another kernel crate, linked by the driver's JIT linker (2-3=-1) (book 1.6.1)";
    type Args = NoOptions;

    /// Both programs, the PTX facts that make twoMinusThree separate compilation, and `c_m` refused
    /// when loaded alone.
    fn run(gpu: &Gpu, _run: &Run<NoOptions>) -> Result<Outcome> {
        println!(" twoPlusThree (modules a_m and b_m of one kernel crate):");
        let a = two_plus_three(gpu, 2, 3)?;
        println!(" 2+3={a}");

        println!(" twoMinusThree (modules c_m and d_m: two kernel crates, two PTX modules):");
        let (c_m, d_m) = (&crate::C_M, &crate::D_M);
        print_linkage("c_m", c_m);
        print_linkage("d_m", d_m);
        let ptx = check_ptx(c_m, d_m);
        if let Err(why) = &ptx {
            println!("   {why}");
        }
        let alone = gpu.load(c_m).map(|_| ());
        match &alone {
            Ok(()) => println!("   c_m loaded alone: accepted (it should not be)"),
            Err(e) => println!("   c_m loaded alone: {e}"),
        }
        let refused =
            matches!(&alone, Err(Error::Link(why)) if D_M_SYMBOLS.iter().all(|s| why.contains(&format!("`{s}`"))));
        let (c, d) = two_minus_three(gpu, 2, 3)?;
        if gpu.is_simulator() {
            println!(
                "   linked: by the host's linker when this program was built (the simulator runs the kernels directly)"
            );
        } else {
            let arch = c_m
                .for_compute_capability(gpu.properties().compute_capability_number())
                .map_or("?", |m| m.arch);
            println!(
                "   linked: by the driver's JIT linker, c_m's and d_m's {arch} PTX into one cubin (cuLinkCreate, cuLinkAddData, cuLinkComplete)"
            );
        }
        println!(" 2-3={c}");
        Ok(Outcome {
            checks: vec![
                Check::condition("2+3=5 (a_d + b_d of another module)", a == 5),
                Check::condition("2-3=-1 (negateD of another kernel crate)", c == -1),
                Check::condition("d_d negated in d_m's variable", d == -3),
                Check::condition(
                    "c_m's PTX declares negate_d and D_D only; d_m's defines them",
                    ptx.is_ok(),
                ),
                Check::condition("c_m alone is refused, naming negate_d and D_D", refused),
            ],
        })
    }
}
