//! NCCL point-to-point transfers between the GPUs of one process (cudarc's `nccl`; `libnccl` is
//! loaded at run time): one communicator per rank, all made at once by `ncclCommInitAll`.
use super::memory::{DeviceBuffer, Element, Storage};
use super::stream::mixed;
use super::{Error, Gpu, Result, Stream};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{DevicePtr, DevicePtrMut};
use cudarc::nccl::{NcclType, result, sys};

/// An element type NCCL transfers (`f32`, `f64`, the integers).
pub trait NcclElement: Element + NcclType {}
impl<T: Element + NcclType> NcclElement for T {}

fn nccl_error(call: &str) -> impl FnOnce(result::NcclError) -> Error + '_ {
    move |e| Error::Library {
        call: call.to_string(),
        error: format!("{:?}", e.0),
    }
}

enum Direction {
    Send,
    Receive,
}

/// One rank's NCCL communicator; its transfers run on the stream it was made with.
///
/// Each rank's thread owns its communicator (it is `Send`, not `Sync`). Dropping it aborts it
/// (`ncclCommAbort`), which frees its resources without waiting for the other ranks, as
/// `ncclCommDestroy` may; wait for the stream first so that its transfers have completed.
///
/// ```no_run
/// use ferrocuda::Gpu;
/// use ferrocuda::gpu::NcclComm;
/// let (gpu0, gpu1) = (Gpu::new(0)?, Gpu::new(1)?);
/// let (s0, s1) = (gpu0.new_stream()?, gpu1.new_stream()?);
/// let comms = NcclComm::new_all(&[(&gpu0, &s0), (&gpu1, &s1)])?;
/// let (a_d, mut b_d) = (gpu0.upload(&[1.0f32; 4])?, gpu1.zeros::<f32>(4)?);
/// std::thread::scope(|scope| {
///     let mut comms = comms.into_iter();
///     let (c0, c1) = (comms.next().unwrap(), comms.next().unwrap());
///     let (a_d, b_d) = (&a_d, &mut b_d);
///     scope.spawn(move || c0.group(|c| c.send(a_d, 1)));
///     scope.spawn(move || c1.group(|c| c.recv(b_d, 0)));
/// });
/// gpu1.synchronize_stream(&s1)?;
/// # Ok::<(), ferrocuda::Error>(())
/// ```
pub struct NcclComm<'s> {
    comm: sys::ncclComm_t,
    stream: &'s Stream,
    rank: usize,
    ranks: usize,
}

// SAFETY: NCCL lets any thread use a communicator, one thread at a time; `NcclComm` is not
// `Sync`, so only the thread that owns it calls it. `&Stream` is `Send` (`Stream` is `Sync`).
unsafe impl Send for NcclComm<'_> {}

impl Drop for NcclComm<'_> {
    fn drop(&mut self) {
        // SAFETY: `comm` was made by `new_all` and is freed only here, once. Errors cannot be
        // returned from `drop`; abort frees the communicator even after a failure.
        let _ = unsafe { result::comm_abort(self.comm) };
    }
}

impl<'s> NcclComm<'s> {
    /// True when `libnccl` can be loaded on this machine.
    pub fn is_available() -> bool {
        // SAFETY: only tries to open the shared library.
        unsafe { sys::is_culib_present() }
    }

    /// One communicator per `(gpu, stream)` pair, rank `r` for pair `r`: `ncclCommInitAll`.
    ///
    /// Fails with one clear error on the simulator, when two ranks share a GPU (NCCL allows
    /// one rank per GPU), when a stream is not its GPU's, or when NCCL is not installed.
    pub fn new_all(ranks: &[(&Gpu, &'s Stream)]) -> Result<Vec<Self>> {
        if ranks.is_empty() {
            return Err(Error::InvalidArgument(
                "an NCCL communicator needs at least one rank".into(),
            ));
        }
        let mut ordinals = Vec::new();
        for (rank, (gpu, stream)) in ranks.iter().enumerate() {
            gpu.cuda("an NCCL communicator")?;
            let ordinal = gpu.properties().ordinal;
            if stream.cuda().ok_or_else(mixed)?.context().ordinal() != ordinal {
                return Err(Error::InvalidArgument(format!(
                    "rank {rank}'s stream is not on its GPU {ordinal}"
                )));
            }
            if let Some(other) = ordinals.iter().position(|&o| o == ordinal as i32) {
                return Err(Error::InvalidArgument(format!(
                    "NCCL ranks {other} and {rank} share GPU {ordinal}: NCCL needs one rank per GPU"
                )));
            }
            ordinals.push(ordinal as i32);
        }
        if !Self::is_available() {
            return Err(Error::Io(
                "NCCL (libnccl.so) was not found: install NCCL or add its lib folder to LD_LIBRARY_PATH".into(),
            ));
        }
        let mut comms = vec![std::ptr::null_mut(); ranks.len()];
        // SAFETY: `comms` has room for one communicator per device of `ordinals`, which are
        // distinct devices of this process (checked above).
        unsafe { result::comm_init_all(comms.as_mut_ptr(), ordinals.len() as i32, ordinals.as_ptr()) }
            .map_err(nccl_error("ncclCommInitAll"))?;
        let n = ranks.len();
        Ok(comms
            .into_iter()
            .zip(ranks)
            .enumerate()
            .map(|(rank, (comm, (_, stream)))| Self {
                comm,
                stream,
                rank,
                ranks: n,
            })
            .collect())
    }

    /// This communicator's rank.
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// The stream its transfers run on.
    pub fn stream(&self) -> &'s Stream {
        self.stream
    }

    /// Posts this rank's transfers in `post` as one group (`ncclGroupStart` .. `ncclGroupEnd`):
    /// NCCL starts them together, so ranks that send to and receive from each other in one
    /// exchange do not wait for each other's order (which would deadlock).
    pub fn group(&self, post: impl FnOnce(&Self) -> Result<()>) -> Result<()> {
        result::group_start().map_err(nccl_error("ncclGroupStart"))?;
        let posted = post(self);
        // Ended even when posting failed: the group depth is per thread and must return to 0.
        let ended = result::group_end().map_err(nccl_error("ncclGroupEnd"));
        posted.and(ended.map(drop))
    }

    /// `ncclSend` of all of `buf` to rank `peer`, queued on the stream; `peer` posts the matching
    /// receive (same length; sends and receives between two ranks match in posting order).
    pub fn send<T: NcclElement>(&self, buf: &DeviceBuffer<T>, peer: usize) -> Result<()> {
        let Storage::Cuda(slice) = &buf.storage else {
            return Err(mixed());
        };
        let (src, _record) = slice.device_ptr(self.cuda_stream()?);
        self.transfer::<T>(Direction::Send, src, buf.len(), peer)
    }

    /// `ncclRecv` of all of `buf` from rank `peer`, queued on the stream.
    pub fn recv<T: NcclElement>(&self, buf: &mut DeviceBuffer<T>, peer: usize) -> Result<()> {
        let len = buf.len();
        let Storage::Cuda(slice) = &mut buf.storage else {
            return Err(mixed());
        };
        let (dst, _record) = slice.device_ptr_mut(self.cuda_stream()?);
        self.transfer::<T>(Direction::Receive, dst, len, peer)
    }

    /// Queues the send or receive of `len` elements at device address `ptr` with rank `peer`.
    fn transfer<T: NcclElement>(&self, direction: Direction, ptr: CUdeviceptr, len: usize, peer: usize) -> Result<()> {
        let (peer, stream) = (self.peer(peer)?, self.cuda_stream()?.cu_stream() as sys::cudaStream_t);
        let ty = T::as_nccl_type();
        // SAFETY: `ptr` is `len` elements of a live device allocation (a `DeviceBuffer`, borrowed
        // by the caller, `&mut` for a receive), freed in stream order after this transfer
        // (blocking streams); `comm` is live, and `stream` is its rank's stream.
        let queued = unsafe {
            match direction {
                Direction::Send => result::send(ptr as _, len, ty, peer, self.comm, stream),
                Direction::Receive => result::recv(ptr as _, len, ty, peer, self.comm, stream),
            }
        };
        let call = match direction {
            Direction::Send => "ncclSend",
            Direction::Receive => "ncclRecv",
        };
        queued.map(drop).map_err(nccl_error(call))
    }

    fn peer(&self, peer: usize) -> Result<i32> {
        if peer >= self.ranks {
            return Err(Error::InvalidArgument(format!(
                "rank {} has no peer {peer}: the communicator has {} ranks",
                self.rank, self.ranks
            )));
        }
        Ok(peer as i32)
    }

    fn cuda_stream(&self) -> Result<&'s cudarc::driver::CudaStream> {
        self.stream.cuda().map(|s| &**s).ok_or_else(mixed)
    }
}
