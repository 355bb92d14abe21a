//! ch3-shared-reverse: reverse a 64-element array in one block through shared memory, with the
//! tile's size fixed at compile time and three ways of sizing it at launch (book §3.3.3,
//! `program sharedExample`).
use crate::example::{Example, NoOptions, Outcome, Run, Size};
use crate::reference;
use book_kernels::ch3::shared_reverse::{
    DynamicReverse1, DynamicReverse2, DynamicReverse3, Reverse2Args, Reverse3Args, ReverseArgs, STATIC_N, StaticReverse,
};
use ferrocuda::device::shared::Tile1d;
use ferrocuda::footprint::Footprint;
use ferrocuda::gpu::{DeviceBuffer, Error, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};

/// ch3-shared-reverse.
pub struct Ch3SharedReverse;

impl Example for Ch3SharedReverse {
    const ID: &'static str = "ch3-shared-reverse";
    const DESCRIPTION: &'static str =
        "reverse 64 floats in one block through a static-size tile and three dynamic ones (book 3.3.3); --size sets n";
    const SIZE: Option<Size> = Some(
        Size::new(
            "array elements, one thread each in one block (the static tile needs 64)",
            STATIC_N,
            STATIC_N,
        )
        .at_most(crate::examples::ch1::increment_launch::MAX_THREADS_PER_BLOCK),
    );
    type Args = NoOptions;

    /// The run's peak: the array on the device; on the host the input, the reversed reference
    /// and a download; `None` on overflow.
    fn memory(run: &Run<NoOptions>, _gpu: &Gpu) -> Option<Footprint> {
        Footprint::NONE.device::<f32>(1, run.size)?.host::<f32>(3, run.size)
    }

    /// The book's program: `a(i) = i`, each kernel reverses a copy, and prints `max(abs(r - d))`.
    fn run(gpu: &Gpu, run: &Run<NoOptions>) -> Result<Outcome> {
        let n = run.size;
        let a: Vec<f32> = (1..=n).map(|i| i as f32).collect();
        let r = reference::ch3::shared_reverse::reverse(&a);
        let mut checks = Vec::new();
        for variant in Variant::ALL {
            if variant == Variant::Static && n != STATIC_N {
                println!(
                    "{} skipped: its tile holds {STATIC_N} elements, not {n}",
                    variant.label()
                );
                continue;
            }
            let mut d_d = gpu.upload(&a)?;
            reverse(gpu, variant, &mut d_d)?;
            let check = Check::compare(variant.label(), &gpu.download(&d_d)?, &r, Tolerance::EXACT);
            println!("{} max error: {}", variant.label(), check.max_abs_err);
            checks.push(check);
        }
        Ok(Outcome { checks })
    }
}

/// The four kernels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Variant {
    /// `staticReverse`: a tile of 64 elements fixed at compile time.
    Static,
    /// `dynamicReverse1`: an assumed-size tile, one element per thread.
    Dynamic1,
    /// `dynamicReverse2`: the tile's size as an argument.
    Dynamic2,
    /// `dynamicReverse3`: the tile's size read from device memory.
    Dynamic3,
}

impl Variant {
    pub const ALL: [Variant; 4] = [Variant::Static, Variant::Dynamic1, Variant::Dynamic2, Variant::Dynamic3];

    /// The PTX symbol.
    pub fn kernel(self) -> &'static str {
        [
            "static_reverse",
            "dynamic_reverse1",
            "dynamic_reverse2",
            "dynamic_reverse3",
        ][self as usize]
    }

    /// The book's label in its check line.
    pub fn label(self) -> &'static str {
        ["Static case", "Dynamic case 1", "Dynamic case 2", "Dynamic case 3"][self as usize]
    }
}

/// Reverses `d_d` in one block of `d_d.len()` threads with `variant`. The static tile takes
/// exactly [`STATIC_N`] elements; the others up to the device's block limit.
pub fn reverse(gpu: &Gpu, variant: Variant, d_d: &mut DeviceBuffer<f32>) -> Result<()> {
    let n = d_d.len();
    let limit = gpu.properties().max_threads_per_block as usize;
    if variant == Variant::Static && n != STATIC_N {
        return Err(Error::InvalidArgument(format!(
            "staticReverse's tile holds {STATIC_N} elements, not {n}"
        )));
    }
    if n == 0 || n > limit {
        return Err(Error::InvalidArgument(format!(
            "one block reverses 1 to {limit} elements, not {n}"
        )));
    }
    // The book's `sizeInBytes = sizeof(a(1))*tBlock%x`, passed by every launch (see the kernels'
    // module: the "static" tile also lives in dynamic shared memory).
    let shape = LaunchShape::new((1, 1, 1), (n as u32, 1, 1)).with_shared_bytes(Tile1d::<f32>::bytes(n) as u32);
    let d = d_d.view_mut();
    let kernels = crate::kernels(gpu)?;
    match variant {
        Variant::Static => kernels.launch(StaticReverse, shape, ReverseArgs { d }),
        Variant::Dynamic1 => kernels.launch(DynamicReverse1, shape, ReverseArgs { d }),
        Variant::Dynamic2 => kernels.launch(DynamicReverse2, shape, Reverse2Args { d, n_size: n as u32 }),
        Variant::Dynamic3 => {
            // The book's `n_d = n`: the size goes to device memory before the launch.
            let n_d = gpu.upload(&[n as u32])?;
            kernels.launch(DynamicReverse3, shape, Reverse3Args { d, n_d: n_d.view() })?;
            gpu.synchronize()
        }
    }
}
