//! Rust-CUDA's `examples/cuda/vecadd`, ported: adds two vectors of 100 000 random f32 on GPU 0,
//! or on the CPU simulator without a GPU (`FERROCUDA_BACKEND=auto|cuda|sim`), and checks the sum
//! on the CPU. Each step names the Rust-CUDA call it replaces.
use ferrocuda::{Gpu, KernelSet, KernelView, LaunchShape};
use std::process::ExitCode;
use vecadd_kernels::{Vecadd, VecaddArgs};

/// How many numbers to generate and add together.
const NUMBERS_LEN: usize = 100_000;

/// Threads per block.
const BLOCK_SIZE: u32 = 256;

// Rust-CUDA: `static PTX: &str = include_str!(concat!(env!("OUT_DIR"), "/kernels.ptx"));`
// Here: every architecture the build script compiled, the right one picked at load time.
static KERNELS: KernelSet = ferrocuda::include_kernels!("vecadd_kernels");

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::FAILURE,
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> ferrocuda::Result<bool> {
    // Rust-CUDA: `WyRand::new()` and `wyrand.fill(&mut lhs)`. Here a deterministic generator, so
    // the only dependency is ferrocuda.
    let mut rng = Lcg(0x5EED);
    let lhs: Vec<f32> = (0..NUMBERS_LEN).map(|_| rng.next_f32()).collect();
    let rhs: Vec<f32> = (0..NUMBERS_LEN).map(|_| rng.next_f32()).collect();

    // Rust-CUDA: `let _ctx = cust::quick_init()?;` (device 0, a context kept alive). Here the
    // device and its stream, or the simulator when there is no GPU.
    let gpu = Gpu::from_env(0)?;
    println!("device: {}", gpu.properties().name);

    // Rust-CUDA: `Module::from_ptx(PTX, &[])?` and `module.get_function("vecadd")?`. Here the
    // module for the device's architecture; the kernel is named by its typed handle at launch.
    let kernels = gpu.load(&KERNELS)?;

    // Rust-CUDA: `Stream::new(StreamFlags::NON_BLOCKING, None)?`. Here `gpu` has its own stream;
    // `gpu.new_stream()?` and `kernels.launch_on(&stream, ..)` make and use others.

    // Rust-CUDA: `lhs.as_slice().as_dbuf()?`, and `out.as_slice().as_dbuf()?` for the output.
    let lhs_gpu = gpu.upload(&lhs)?;
    let rhs_gpu = gpu.upload(&rhs)?;
    let mut out_gpu = gpu.zeros::<f32>(NUMBERS_LEN)?;

    // Rust-CUDA: `vecadd.suggested_launch_configuration(0, 0.into())?` (the occupancy API) for
    // the block size. Here a fixed block of 256 threads; `kernels.max_active_blocks_per_multiprocessor`
    // is the occupancy query.
    let shape = LaunchShape::cover_1d(NUMBERS_LEN, BLOCK_SIZE)?;
    println!("using {} blocks and {} threads per block", shape.grid.0, shape.block.0);

    // Rust-CUDA:
    //     unsafe { launch!(vecadd<<<grid_size, block_size, 0, stream>>>(
    //         lhs_gpu.as_device_ptr(), lhs_gpu.len(), rhs_gpu.as_device_ptr(), rhs_gpu.len(),
    //         out_buf.as_device_ptr()))?; }
    // Here a safe call: the handle `Vecadd` only takes `VecaddArgs` (anything else does not
    // compile), and views of different lengths are refused before the launch.
    let args = VecaddArgs {
        a: lhs_gpu.view(),
        b: rhs_gpu.view(),
        c: out_gpu.view_mut(),
    };
    kernels.launch(Vecadd, shape, args)?;

    // Rust-CUDA: `stream.synchronize()?` (a kernel's fault surfaces here, in both).
    gpu.synchronize()?;

    // Rust-CUDA: `out_buf.copy_to(&mut out)?`.
    let out = gpu.download(&out_gpu)?;

    for i in 0..3 {
        println!("{} + {} = {}", lhs[i], rhs[i], out[i]);
    }
    // Not in Rust-CUDA's sample: every element against the CPU. One f32 addition is correctly
    // rounded on the GPU and on the CPU alike, so the results must be identical.
    let mismatches = (0..NUMBERS_LEN).filter(|&i| out[i] != lhs[i] + rhs[i]).count();
    let passed = mismatches == 0;
    if passed {
        println!("PASSED: all {NUMBERS_LEN} sums equal the CPU's");
    } else {
        println!("FAILED: {mismatches} of {NUMBERS_LEN} sums differ from the CPU's");
    }
    Ok(passed)
}

/// A 64-bit linear congruential generator (Knuth's MMIX constants), standing in for `nanorand`.
struct Lcg(u64);

impl Lcg {
    /// The next value in `[0, 1)`, from the top 24 bits of the state.
    fn next_f32(&mut self) -> f32 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }
}
