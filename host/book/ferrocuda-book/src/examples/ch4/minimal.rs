//! ch4-minimal: one host thread allocates, launches and copies on each device in turn (book §4.1,
//! `program minimal`, kernel `assign(a, v)`).
use super::{DevicesOption, require_two};
use crate::example::{Example, Outcome, Run};
use book_kernels::ch4::minimal::{Assign, AssignArgs};
use ferrocuda::gpu::{DeviceBuffer, Gpu, KernelView, LaunchShape, Result};
use ferrocuda::verify::{Check, Tolerance};

/// The book's array length (one block of `N` threads).
pub const N: usize = 32;

/// `a_d(threadIdx%x) = v` on `gpu`: one block of `a_d.len()` threads.
pub fn assign(gpu: &Gpu, a_d: &mut DeviceBuffer<f32>, v: f32) -> Result<()> {
    let threads = u32::try_from(a_d.len()).unwrap_or(u32::MAX);
    let args = AssignArgs { a: a_d.view_mut(), v };
    crate::kernels(gpu)?.launch(Assign, LaunchShape::new((1, 1, 1), (threads, 1, 1)), args)
}

/// ch4-minimal.
pub struct Ch4Minimal;

impl Example for Ch4Minimal {
    const ID: &'static str = "ch4-minimal";
    const DESCRIPTION: &'static str =
        "each device in turn: allocate 32 floats, assign<<<1,32>>>(a_d, 3 + device), copy back (book 4.1)";
    type Args = DevicesOption;

    /// The book's program, on every logical device in turn.
    fn run(gpu: &Gpu, run: &Run<DevicesOption>) -> Result<Outcome> {
        let gpus = run.args.open(gpu, 2)?;
        require_two(&gpus)?;
        let mut checks = Vec::new();
        for (d, device) in gpus.iter().enumerate() {
            // Allocation, launch, copy and free all on `device`, as after the book's cudaSetDevice(d).
            let v = 3.0 + d as f32;
            let mut a_d = device.zeros::<f32>(N)?;
            assign(device, &mut a_d, v)?;
            let a = device.download(&a_d)?;
            println!("Device {d}: {:.6}", a[0]);
            checks.push(Check::compare(&format!("device {d}"), &a, &[v; N], Tolerance::EXACT));
        }
        Ok(Outcome { checks })
    }
}
