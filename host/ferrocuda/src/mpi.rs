//! MPI: one process per GPU, on any number of nodes (book §4.2), through the `mpi` crate (rsmpi),
//! which this module re-exports as [`rsmpi`] so that a user's own calls use the same version.
//! Built with the cargo feature `mpi`, which needs an MPI library (OpenMPI or MPICH, with `mpicc`
//! on the `PATH`) at build time; without it nothing here is compiled.
//!
//! What the book does by hand, done once:
//! - [`Mpi::init`] starts MPI (`MPI_Init_thread`) and [`Mpi::finish`] ends a rank's work: an
//!   error on one rank brings the whole job down (`MPI_Abort`) with one line naming the rank, so
//!   the others never wait forever in a send or receive whose partner has gone;
//! - [`Mpi::node`] is the book's `assignDevice`: the ranks' host names gathered and sorted, one
//!   colour per host, `MPI_Comm_split`, and the rank within its node is the device it uses, which
//!   works whatever the GPUs' compute mode; [`Mpi::assign_device`] opens that device (round-robin
//!   when a node has more ranks than GPUs, so every path runs with several ranks on one GPU);
//! - [`Mpi::cuda_aware`] says at run time whether the library accepts device buffers.
use crate::gpu::{BackendChoice, DeviceBuffer, Element, Error, Gpu, Result, device_count};
use ::mpi::Threading;
use ::mpi::collective::SystemOperation;
use ::mpi::datatype::{Equivalence, PartitionMut};
use ::mpi::environment::Universe;
use ::mpi::raw::AsRaw;
use ::mpi::topology::{Color, SimpleCommunicator};
use ::mpi::traits::*;
use std::fmt;

pub use ::mpi as rsmpi;

/// Room for one host name in the gather (MPI's `MPI_MAX_PROCESSOR_NAME` is 256 in OpenMPI and
/// MPICH).
const HOST_NAME_BYTES: usize = 256;

/// This process's place in an MPI job: `MPI_COMM_WORLD`, its rank and size, and the threading
/// level the library granted. Dropping it finalises MPI; dropping it during a panic aborts the
/// job instead, so no other rank waits for this one.
///
/// ```no_run
/// use ferrocuda::mpi::Mpi;
/// let mpi = Mpi::init()?;
/// let result = (|| {
///     let (gpu, placement) = mpi.assign_device(ferrocuda::BackendChoice::Auto)?;
///     println!("{placement}");
///     Ok(())
/// })();
/// mpi.finish(result)?; // on error: one line naming the rank, and the whole job ends
/// # Ok::<(), ferrocuda::Error>(())
/// ```
pub struct Mpi {
    world: SimpleCommunicator,
    threading: Threading,
    // Last: finalises MPI after the communicators above are freed.
    _universe: Universe,
}

/// A rank's node: its host name, its rank among the ranks of that node, and how many they are.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NodeRank {
    pub host: String,
    pub local_rank: usize,
    pub local_size: usize,
    /// The distinct hosts of the job, sorted.
    pub hosts: usize,
}

/// Where [`Mpi::assign_device`] placed a rank.
#[derive(Clone, Debug)]
pub struct Placement {
    pub rank: usize,
    pub node: NodeRank,
    /// The device ordinal on the node (`None` on the simulator).
    pub device: Option<usize>,
    /// The node's GPUs; more ranks than GPUs share them round-robin.
    pub devices_on_node: usize,
}

impl fmt::Display for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.device {
            Some(device) => write!(f, "[{}] host: {}, device: {device}", self.rank, self.node.host)?,
            None => write!(f, "[{}] host: {}, device: the CPU simulator", self.rank, self.node.host)?,
        }
        if self.device.is_some() && self.node.local_size > self.devices_on_node {
            write!(
                f,
                " ({} ranks share this node's {} GPU(s))",
                self.node.local_size, self.devices_on_node
            )?;
        }
        Ok(())
    }
}

/// Whether the MPI library takes device buffers (CUDA-aware), as it says at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CudaAware {
    Yes,
    No,
    /// The library has no query for it (OpenMPI's `MPIX_Query_cuda_support` is missing): treated
    /// as no.
    Unknown,
}

impl Mpi {
    /// Starts MPI, asking for `MPI_THREAD_MULTIPLE` (a rank's host threads may each call MPI); the
    /// level granted is [`Mpi::threading`]. An error when MPI was started before in this process.
    pub fn init() -> Result<Self> {
        let (universe, threading) =
            ::mpi::initialize_with_threading(Threading::Multiple).ok_or_else(|| Error::Library {
                call: "MPI_Init_thread".into(),
                error: "MPI was already initialised in this process".into(),
            })?;
        Ok(Self {
            world: universe.world(),
            threading,
            _universe: universe,
        })
    }

    /// `MPI_COMM_WORLD`.
    pub fn world(&self) -> &SimpleCommunicator {
        &self.world
    }

    /// This process's rank in `MPI_COMM_WORLD`.
    pub fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    /// The number of ranks.
    pub fn size(&self) -> usize {
        self.world.size() as usize
    }

    /// The threading level the library granted.
    pub fn threading(&self) -> Threading {
        self.threading
    }

    /// `MPI_Wtime`: seconds on a clock every rank reads alike (the book's timing of the MPI
    /// transposes).
    pub fn wtime() -> f64 {
        ::mpi::time()
    }

    /// This rank's node, found as the book's `assignDevice` finds it: every rank's host name
    /// gathered, the distinct names sorted and numbered, and `MPI_COMM_WORLD` split by that number.
    pub fn node(&self) -> Result<NodeRank> {
        let host = ::mpi::environment::processor_name().map_err(|e| Error::Library {
            call: "MPI_Get_processor_name".into(),
            error: e.to_string(),
        })?;
        let mut mine = [0u8; HOST_NAME_BYTES];
        let len = host.len().min(HOST_NAME_BYTES);
        mine[..len].copy_from_slice(&host.as_bytes()[..len]);
        let mut all = vec![0u8; HOST_NAME_BYTES * self.size()];
        self.world.all_gather_into(&mine[..], &mut all[..]);
        let mut hosts: Vec<&[u8]> = all.chunks(HOST_NAME_BYTES).collect();
        hosts.sort_unstable();
        hosts.dedup();
        let color = hosts.iter().position(|h| *h == &mine[..]).unwrap_or(0);
        let node = self
            .world
            .split_by_color(Color::with_value(color as i32))
            .ok_or_else(|| Error::Library {
                call: "MPI_Comm_split".into(),
                error: "this rank was left out of its node's communicator".into(),
            })?;
        Ok(NodeRank {
            host,
            local_rank: node.rank() as usize,
            local_size: node.size() as usize,
            hosts: hosts.len(),
        })
    }

    /// Opens this rank's device: the node-local rank's GPU (round-robin when the node has more
    /// ranks than GPUs), or the simulator when `choice` and the machine say so, as [`Gpu::open`].
    pub fn assign_device(&self, choice: BackendChoice) -> Result<(Gpu, Placement)> {
        let node = self.node()?;
        let devices_on_node = match choice {
            BackendChoice::Sim => 0,
            BackendChoice::Cuda => device_count()?,
            BackendChoice::Auto => device_count().unwrap_or(0),
        };
        let device = (devices_on_node > 0).then(|| node.local_rank % devices_on_node);
        let gpu = match device {
            Some(ordinal) => Gpu::new(ordinal)?,
            None if choice == BackendChoice::Cuda => return Err(Error::NoDevice),
            None => Gpu::simulator(),
        };
        Ok((
            gpu,
            Placement {
                rank: self.rank(),
                node,
                device,
                devices_on_node,
            },
        ))
    }

    /// Whether the MPI library accepts device pointers in its calls, asked at run time
    /// (OpenMPI's `MPIX_Query_cuda_support`, looked up in the loaded library so that an MPI
    /// without it still links).
    pub fn cuda_aware(&self) -> CudaAware {
        // SAFETY: `dlsym` with RTLD_DEFAULT searches the libraries already loaded, and the name
        // is a NUL-terminated literal.
        let query = unsafe { libc::dlsym(libc::RTLD_DEFAULT, c"MPIX_Query_cuda_support".as_ptr()) };
        if query.is_null() {
            return CudaAware::Unknown;
        }
        // SAFETY: OpenMPI declares `int MPIX_Query_cuda_support(void)`, callable after MPI_Init.
        let query: extern "C" fn() -> libc::c_int = unsafe { std::mem::transmute(query) };
        if query() == 1 { CudaAware::Yes } else { CudaAware::No }
    }

    /// `MPI_Barrier` on `MPI_COMM_WORLD`: returns once every rank has called it.
    pub fn barrier(&self) {
        self.world.barrier();
    }

    /// True on every rank when every rank passed the same `value` (`MPI_Allreduce` of the
    /// minimum and the maximum): for options that must agree, such as a problem size.
    pub fn all_same(&self, value: u64) -> bool {
        let (mut least, mut most) = (0u64, 0u64);
        self.world.all_reduce_into(&value, &mut least, SystemOperation::min());
        self.world.all_reduce_into(&value, &mut most, SystemOperation::max());
        least == most
    }

    /// `MPI_Sendrecv` on device buffers, for a CUDA-aware MPI only (ask [`Mpi::cuda_aware`]
    /// first; any other MPI reads device addresses as host memory and crashes): `send` to rank
    /// `dest` with tag `send_tag`, while `recv` is filled from rank `source` with tag
    /// `recv_tag`. Waits for the work queued on `send`'s stream first, so the data is complete,
    /// and returns once both transfers are done. CUDA buffers only: the simulator's are host
    /// memory, which the host-memory calls of [`rsmpi`] take.
    pub fn sendrecv_device<T: Element + Equivalence>(
        &self,
        send: &DeviceBuffer<T>,
        dest: usize,
        send_tag: i32,
        recv: &mut DeviceBuffer<T>,
        source: usize,
        recv_tag: i32,
    ) -> Result<()> {
        use cudarc::driver::{DevicePtr, DevicePtrMut};
        let (Some(from), Some(into)) = (send.as_cuda(), recv.as_cuda_mut()) else {
            return Err(Error::InvalidArgument(
                "MPI on device buffers needs CUDA buffers; the simulator's device memory is host memory".into(),
            ));
        };
        let count = |len: usize| {
            i32::try_from(len).map_err(|_| {
                Error::InvalidArgument(format!("MPI_Sendrecv counts are 32-bit; {len} elements is too many"))
            })
        };
        let (send_count, recv_count) = (count(from.len())?, count(into.len())?);
        let rank = |r: usize| i32::try_from(r).map_err(|_| Error::InvalidArgument(format!("there is no MPI rank {r}")));
        let (dest, source) = (rank(dest)?, rank(source)?);
        let stream = from.stream().clone();
        stream
            .synchronize()
            .map_err(Error::cuda("synchronizing before MPI_Sendrecv on device buffers"))?;
        let datatype = T::equivalent_datatype();
        let (send_ptr, _read) = from.device_ptr(&stream);
        let (recv_ptr, _write) = into.device_ptr_mut(&stream);
        let mut status = std::mem::MaybeUninit::<::mpi::ffi::MPI_Status>::uninit();
        // SAFETY: the pointers are `send_count` and `recv_count` elements of live device
        // allocations of `T` (borrowed for this call), with no queued work left on them; a
        // CUDA-aware MPI (the caller's check) reads and writes device memory; the datatype is
        // `T`'s, the communicator MPI_COMM_WORLD, and `status` one MPI_Status to write.
        let code = unsafe {
            ::mpi::ffi::MPI_Sendrecv(
                send_ptr as usize as *const libc::c_void,
                send_count,
                datatype.as_raw(),
                dest,
                send_tag,
                recv_ptr as usize as *mut libc::c_void,
                recv_count,
                datatype.as_raw(),
                source,
                recv_tag,
                self.world.as_raw(),
                status.as_mut_ptr(),
            )
        };
        if code != ::mpi::ffi::MPI_SUCCESS as i32 {
            return Err(Error::Library {
                call: "MPI_Sendrecv on device buffers".into(),
                error: format!("error code {code}"),
            });
        }
        Ok(())
    }

    /// True on every rank when `holds` is true on every rank (`MPI_Allreduce` with `MPI_MIN`):
    /// one verdict for the job.
    pub fn all_true(&self, holds: bool) -> bool {
        let mut all = 0i32;
        self.world
            .all_reduce_into(&i32::from(holds), &mut all, SystemOperation::min());
        all == 1
    }

    /// Every rank's `text`, in rank order, on rank 0 (`MPI_Gather` of the lengths, then
    /// `MPI_Gatherv`); `None` on the other ranks. For printing per-rank lines in order, where
    /// lines the ranks print themselves would interleave at random.
    pub fn gather_text(&self, text: &str) -> Option<Vec<String>> {
        let root = self.world.process_at_rank(0);
        // A rank's text longer than 2 GiB is cut there (MPI counts are 32-bit).
        let bytes = &text.as_bytes()[..text.len().min(i32::MAX as usize)];
        let len = bytes.len() as i32;
        if self.rank() != 0 {
            root.gather_into(&len);
            root.gather_varcount_into(bytes);
            return None;
        }
        let mut lens = vec![0i32; self.size()];
        root.gather_into_root(&len, &mut lens[..]);
        let mut displs = Vec::with_capacity(lens.len());
        let mut total = 0usize;
        for &l in &lens {
            displs.push(i32::try_from(total).unwrap_or(i32::MAX));
            total += l as usize;
        }
        let mut all = vec![0u8; total];
        {
            let mut partition = PartitionMut::new(&mut all[..], &lens[..], &displs[..]);
            root.gather_varcount_into_root(bytes, &mut partition);
        }
        let mut start = 0;
        Some(
            lens.iter()
                .map(|&l| {
                    let piece = String::from_utf8_lossy(&all[start..start + l as usize]).into_owned();
                    start += l as usize;
                    piece
                })
                .collect(),
        )
    }

    /// Ends this rank's part: `result` as it is when it is `Ok`, or when the job has one rank;
    /// otherwise one line on stderr naming the rank and the error, then `MPI_Abort`, which ends
    /// every rank (the other ranks may be waiting for this one).
    pub fn finish<T>(&self, result: Result<T>) -> Result<T> {
        match result {
            Err(error) if self.size() > 1 => self.abort(&error),
            other => other,
        }
    }

    /// Prints `error` naming this rank, and ends the whole job with exit code 2.
    pub fn abort(&self, error: &dyn fmt::Display) -> ! {
        print_line_to_stderr(&format!(
            "error: rank {} of {}: {error}; ending all {} ranks (MPI_Abort)",
            self.rank(),
            self.size(),
            self.size()
        ));
        self.world.abort(2)
    }
}

impl Drop for Mpi {
    fn drop(&mut self) {
        if std::thread::panicking() && self.size() > 1 {
            self.abort(&"this rank panicked");
        }
    }
}

/// The compute mode of `gpu`'s device (`CU_DEVICE_ATTRIBUTE_COMPUTE_MODE`: 0 default, 1
/// exclusive thread (gone since CUDA 8), 2 prohibited, 3 exclusive process), as the book's
/// `mpiDevices` prints it; `None` on the simulator.
pub fn compute_mode(gpu: &Gpu) -> Result<Option<u32>> {
    use cudarc::driver::{result, sys::CUdevice_attribute};
    if gpu.is_simulator() {
        return Ok(None);
    }
    let ordinal = gpu.properties().ordinal;
    let device = result::device::get(ordinal as i32).map_err(Error::cuda("cuDeviceGet"))?;
    // SAFETY: `device` is a valid handle from cuDeviceGet, and the attribute is one int.
    unsafe { result::device::get_attribute(device, CUdevice_attribute::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE) }
        .map(|mode| Some(mode as u32))
        .map_err(Error::cuda("cuDeviceGetAttribute(CU_DEVICE_ATTRIBUTE_COMPUTE_MODE)"))
}

/// Writes `line` and a newline to stderr in one `write`, so that mpirun, which forwards each
/// rank's output as it reads it, never splits it among its own messages (`eprintln!` writes a
/// formatted line piece by piece).
pub fn print_line_to_stderr(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(format!("{line}\n").as_bytes());
}

/// This process's rank as the MPI launcher set it in the environment (OpenMPI, MPICH, Slurm),
/// before or without `MPI_Init`: for naming the rank in an error that comes before MPI starts.
pub fn launcher_rank() -> Option<usize> {
    ["OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"]
        .iter()
        .find_map(|name| std::env::var(name).ok()?.parse().ok())
}
