//! Border exchange between partitions (thesis §5.5, Appendix B.2.5), one strategy per transport:
//!
//! - [`Strategy::HostSync`], the thesis's: synchronous 2-D copies device -> pageable host
//!   memory -> device, each border guarded by the thesis's write/read counters (a mutex and a
//!   condition variable): a border is not overwritten before its reader has read the previous
//!   one, nor read before its writer has written it.
//! - [`Strategy::PinnedAsync`]: the same path through pinned buffers, with asynchronous copies
//!   on a copy stream ordered by events, so the host never waits for a copy and the copies
//!   overlap the interior update.
//! - [`Strategy::Peer`]: device-to-device copies into a buffer on the receiver's GPU (peer to
//!   peer where the GPUs allow it), ordered by events.
//! - [`Strategy::Nccl`]: each border packed into a contiguous buffer on its GPU, then NCCL's
//!   send and receive, one group per phase, which pair the ranks on the device themselves (no
//!   mailboxes), then unpacked into the ghosts; all on the copy stream. One partition per GPU.
//! - `Strategy::Mpi` (cargo feature `mpi`): one partition per MPI process; each border packed
//!   into a pinned buffer as the pinned strategy does, sent with MPI's nonblocking send and
//!   receive, unpacked into the ghosts (`sor::mpi`).
//!
//! The solver sees one [`BorderExchange`] per rank: it posts its borders
//! ([`BorderExchange::send`]) and collects its ghosts ([`BorderExchange::receive`]), knowing
//! nothing of where its neighbours run. [`Exchange`] implements it between the threads of one
//! process (the first four strategies), `sor::mpi::MpiExchange` between processes.
use super::partition::{Area, Border, Partition};
use super::state::{DeviceGrid, Rect, SorReal};
use crate::gpu::{Copy2d, DeviceBuffer, Error, Event, Gpu, NcclComm, PinnedBuffer, Result, Stream};
use std::fmt;
use std::str::FromStr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// How borders travel.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// (a) The thesis's: synchronous copies through pageable host memory.
    #[default]
    HostSync,
    /// (b) Pinned host buffers and asynchronous copies, overlapped with the interior update.
    PinnedAsync,
    /// (c) Device-to-device copies between the GPUs.
    Peer,
    /// (d) NCCL send and receive between the GPUs, one partition per GPU.
    Nccl,
    /// Pinned buffers sent with MPI between processes, one partition per rank.
    #[cfg(feature = "mpi")]
    Mpi,
}

impl Strategy {
    /// Those that run everywhere (several partitions per GPU, the simulator), in the order
    /// tables print them; [`Strategy::Nccl`] runs where [`Strategy::nccl_refused`] is `None`.
    pub const ALL: [Strategy; 3] = [Strategy::HostSync, Strategy::PinnedAsync, Strategy::Peer];

    /// Why NCCL cannot exchange the borders of `partitions` partitions on `gpus`, or `None`
    /// when it can: CUDA GPUs, one partition on each, and `libnccl` present.
    pub fn nccl_refused(gpus: &[&Gpu], partitions: usize) -> Option<String> {
        if gpus.iter().any(|g| g.is_simulator()) {
            Some("the NCCL exchange needs CUDA GPUs, and this run uses the CPU simulator".into())
        } else if partitions != gpus.len() {
            Some(format!(
                "the NCCL exchange runs one partition per GPU, not {partitions} partition(s) on {} GPU(s)",
                gpus.len()
            ))
        } else if !NcclComm::is_available() {
            Some("the NCCL exchange needs NCCL, and libnccl.so could not be loaded".into())
        } else {
            None
        }
    }

    /// True when the copies are queued on a stream and ordered by events (the host does not
    /// wait for them), so they can overlap computation.
    pub fn is_async(self) -> bool {
        !matches!(self, Strategy::HostSync)
    }
}

impl FromStr for Strategy {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s {
            "host" | "host-sync" | "a" => Ok(Self::HostSync),
            "pinned" | "pinned-async" | "b" => Ok(Self::PinnedAsync),
            "peer" | "p2p" | "c" => Ok(Self::Peer),
            "nccl" | "d" => Ok(Self::Nccl),
            #[cfg(feature = "mpi")]
            "mpi" => Ok(Self::Mpi),
            #[cfg(not(feature = "mpi"))]
            "mpi" => Err(Error::InvalidArgument(
                "the MPI exchange needs ferrocuda built with its `mpi` feature (the runner: cargo build --release -p ferrocuda-runner --features mpi), and this one has none".into(),
            )),
            other => Err(Error::InvalidArgument(format!(
                "the exchange is host, pinned, peer, nccl or mpi, not `{other}`"
            ))),
        }
    }
}

impl fmt::Display for Strategy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::HostSync => "host",
            Self::PinnedAsync => "pinned",
            Self::Peer => "peer",
            Self::Nccl => "nccl",
            #[cfg(feature = "mpi")]
            Self::Mpi => "mpi",
        })
    }
}

/// Where a border waits between its writer and its reader.
enum Payload<T> {
    /// Not allocated yet: the first writer or reader allocates it on its GPU.
    Empty,
    Pageable(Vec<T>),
    Pinned(PinnedBuffer<T>),
    /// On the receiver's GPU.
    Device(DeviceBuffer<T>),
}

/// One border's mailbox: the thesis's `wAcc`/`rAcc` counters with their mutex and condition
/// variable, and the data.
struct MailboxState<T> {
    written: u64,
    read: u64,
    payload: Payload<T>,
    /// Asynchronous strategies: the writer's copy-out has happened.
    ready: Option<Event>,
    /// Asynchronous strategies: the reader's copy-in has happened (the payload may be reused).
    consumed: Option<Event>,
}

struct Mailbox<T> {
    state: Mutex<MailboxState<T>>,
    changed: Condvar,
}

impl<T> Mailbox<T> {
    fn new() -> Self {
        Self {
            state: Mutex::new(MailboxState {
                written: 0,
                read: 0,
                payload: Payload::Empty,
                ready: None,
                consumed: None,
            }),
            changed: Condvar::new(),
        }
    }

    /// Locks the mailbox once `until` holds, adding the time waited to `waited`.
    fn wait_for(
        &self,
        waited: &mut Duration,
        until: impl Fn(&MailboxState<T>) -> bool,
    ) -> Result<MutexGuard<'_, MailboxState<T>>> {
        let start = Instant::now();
        let poisoned = |_| Error::InvalidArgument("a partition's thread failed while holding a border".into());
        let guard = self.state.lock().map_err(poisoned)?;
        let guard = self.changed.wait_while(guard, |s| !until(s)).map_err(poisoned)?;
        *waited += start.elapsed();
        Ok(guard)
    }
}

/// Every border's mailbox, shared by the ranks of one process.
pub struct Mailboxes<T> {
    boxes: Vec<Arc<Mailbox<T>>>,
}

impl<T> Mailboxes<T> {
    /// One mailbox per border.
    pub fn new(borders: &[Border]) -> Self {
        Self {
            boxes: borders.iter().map(|_| Arc::new(Mailbox::new())).collect(),
        }
    }
}

/// Time one rank spent exchanging, summed over exchanges.
#[derive(Clone, Copy, Debug, Default)]
pub struct ExchangeTimes {
    /// Waiting for neighbours (the thesis's synchronisation time).
    pub sync: Duration,
    /// Issuing and, for the synchronous strategy, performing the copies.
    pub transfer: Duration,
}

/// One rank's side of the border exchange, whatever carries the borders: the solver's loop
/// (`multi`) calls these, in this order, for each exchange `step` (1, 2, ...) and each phase.
pub trait BorderExchange<T: SorReal> {
    /// Allocates what must exist before the first exchange; call once, before it.
    fn prepare(&mut self, gpu: &Gpu) -> Result<()>;
    /// True when the rank has neighbours.
    fn has_borders(&self) -> bool;
    /// Posts this rank's borders of `phase` for exchange `step`. Asynchronous strategies queue
    /// the copies on `copy` after `after` (the event that the border's points are final) and
    /// return; the synchronous one copies now.
    fn send(
        &mut self,
        gpu: &Gpu,
        copy: &Stream,
        grid: &DeviceGrid<T>,
        phase: usize,
        step: u64,
        after: Option<&Event>,
    ) -> Result<()>;
    /// Collects this rank's ghosts of `phase` for exchange `step` into `grid`. Asynchronous
    /// strategies queue the last copies on `copy`; the caller orders its next kernels after
    /// them with an event recorded on `copy`.
    fn receive(&mut self, gpu: &Gpu, copy: &Stream, grid: &mut DeviceGrid<T>, phase: usize, step: u64) -> Result<()>;
    /// The time spent so far.
    fn times(&self) -> ExchangeTimes;
}

/// Elements of a border packed contiguously: its rectangle in each stored plane, in turn.
pub(super) fn packed_len(rect: &Rect, planes: usize) -> usize {
    rect.len() * planes
}

/// The 2-D copies of `rect` of each of `planes` planes of `pitch` into a packed buffer, plane
/// after plane.
pub(super) fn packs(rect: &Rect, pitch: usize, planes: usize) -> impl Iterator<Item = Copy2d> + use<> {
    let rect = rect.clone();
    (0..planes).map(move |p| rect.pack(pitch, p * rect.len()))
}

/// The 2-D copies from a packed buffer into `rect` of each of `planes` planes of `pitch`.
pub(super) fn unpacks(rect: &Rect, pitch: usize, planes: usize) -> impl Iterator<Item = Copy2d> + use<> {
    let rect = rect.clone();
    (0..planes).map(move |p| rect.unpack(pitch, p * rect.len()))
}

/// Queues on `copy` the 2-D copies of `grid`'s planes' `rect` into `packed`, one after another.
fn pack_device<T: SorReal>(
    gpu: &Gpu,
    copy: &Stream,
    grid: &DeviceGrid<T>,
    rect: &Rect,
    packed: &mut DeviceBuffer<T>,
) -> Result<()> {
    for (plane, c) in grid.planes().iter().zip(packs(rect, grid.pitch(), grid.planes().len())) {
        gpu.copy_2d_async(copy, plane, packed, c)?;
    }
    Ok(())
}

/// One end of a border: the border, its mailbox, and the border in local stored coordinates
/// (the same rectangle in every plane).
type BorderEnd<T> = (Border, Arc<Mailbox<T>>, Rect);

/// One rank's border exchange.
pub struct Exchange<'s, T> {
    strategy: Strategy,
    partition: Partition,
    sends: Vec<BorderEnd<T>>,
    receives: Vec<BorderEnd<T>>,
    /// Stored planes of the local grid (two for the split layout).
    planes: usize,
    /// The NCCL strategy's communicator, on the copy stream.
    nccl: Option<NcclComm<'s>>,
    /// The NCCL strategy's packed borders: one buffer per send, one per receive, in order.
    packed: (Vec<DeviceBuffer<T>>, Vec<DeviceBuffer<T>>),
    pub times: ExchangeTimes,
}

impl<'s, T: SorReal> Exchange<'s, T> {
    /// Rank `partition.rank`'s side of every border in `borders`; `nccl` is the rank's
    /// communicator, for the NCCL strategy only.
    pub fn new(
        strategy: Strategy,
        partition: &Partition,
        borders: &[Border],
        mailboxes: &Mailboxes<T>,
        grid: &DeviceGrid<T>,
        nccl: Option<NcclComm<'s>>,
    ) -> Result<Self> {
        if (strategy == Strategy::Nccl) != nccl.as_ref().is_some_and(|c| c.rank() == partition.rank) {
            return Err(Error::InvalidArgument(format!(
                "the NCCL exchange, and only it, needs partition {}'s communicator",
                partition.rank
            )));
        }
        #[cfg(feature = "mpi")]
        if strategy == Strategy::Mpi {
            return Err(Error::InvalidArgument(
                "the MPI exchange runs between processes, one partition each: use sor::multi::solve_mpi in every rank"
                    .into(),
            ));
        }
        let (_, cols) = grid.extents();
        let rect = |area: &Area| -> Result<Rect> {
            let local = partition.to_local(area);
            grid.layout().plane_rect(local.rows, local.cols, cols)
        };
        let mut sends = Vec::new();
        let mut receives = Vec::new();
        for (border, mailbox) in borders.iter().zip(&mailboxes.boxes) {
            if border.from == partition.rank {
                sends.push((border.clone(), mailbox.clone(), rect(&border.area)?));
            }
            if border.to == partition.rank {
                receives.push((border.clone(), mailbox.clone(), rect(&border.area)?));
            }
        }
        Ok(Self {
            strategy,
            partition: partition.clone(),
            sends,
            receives,
            planes: grid.planes().len(),
            nccl,
            packed: (Vec::new(), Vec::new()),
            times: ExchangeTimes::default(),
        })
    }

    /// The partition this exchange serves.
    pub fn partition(&self) -> &Partition {
        &self.partition
    }
}

impl<T: SorReal> BorderExchange<T> for Exchange<'_, T> {
    /// True when the rank has neighbours.
    fn has_borders(&self) -> bool {
        !self.sends.is_empty()
    }

    /// Posts this rank's borders of `phase` for exchange `step` (1, 2, ...). Asynchronous
    /// strategies queue the copies on `copy` after `after` (the event that the border's points
    /// are final); the synchronous one copies now.
    fn send(
        &mut self,
        gpu: &Gpu,
        copy: &Stream,
        grid: &DeviceGrid<T>,
        phase: usize,
        step: u64,
        after: Option<&Event>,
    ) -> Result<()> {
        if let (Some(event), true) = (after, self.strategy.is_async()) {
            gpu.stream_wait_event(copy, event)?;
        }
        if let Some(comm) = &self.nccl {
            // The transfers wait for the packing: both on the communicator's stream.
            if !std::ptr::eq(copy, comm.stream()) {
                return Err(Error::InvalidArgument(
                    "the NCCL exchange must copy on its communicator's stream".into(),
                ));
            }
            let started = Instant::now();
            let sends = self.sends.iter().zip(&mut self.packed.0);
            for ((_, _, rect), packed) in sends.filter(|((b, ..), _)| b.phase == phase) {
                pack_device(gpu, copy, grid, rect, packed)?;
            }
            self.times.transfer += started.elapsed();
            return Ok(());
        }
        for (_, mailbox, rect) in self.sends.iter().filter(|(b, ..)| b.phase == phase) {
            let mut state = mailbox.wait_for(&mut self.times.sync, |s| s.read + 1 >= step)?;
            let started = Instant::now();
            let len = packed_len(rect, self.planes);
            if let Some(consumed) = state.consumed.take() {
                gpu.stream_wait_event(copy, &consumed)?;
            }
            match self.strategy {
                Strategy::HostSync => {
                    if !matches!(state.payload, Payload::Pageable(_)) {
                        state.payload = Payload::Pageable(vec![T::default(); len]);
                    }
                    let Payload::Pageable(host) = &mut state.payload else {
                        unreachable!()
                    };
                    for (plane, c) in grid.planes().iter().zip(packs(rect, grid.pitch(), self.planes)) {
                        gpu.download_2d(plane, host, c)?;
                    }
                }
                Strategy::PinnedAsync => {
                    if !matches!(state.payload, Payload::Pinned(_)) {
                        state.payload = Payload::Pinned(gpu.pinned(len)?);
                    }
                    let Payload::Pinned(host) = &mut state.payload else {
                        unreachable!()
                    };
                    for (plane, c) in grid.planes().iter().zip(packs(rect, grid.pitch(), self.planes)) {
                        gpu.download_2d_async(copy, plane, host, c)?;
                    }
                    state.ready = Some(gpu.record_event(Some(copy))?);
                }
                Strategy::Peer => {
                    // The receiver allocates the buffer on its GPU; wait for it on first use.
                    drop(state);
                    state = mailbox.wait_for(&mut self.times.sync, |s| matches!(s.payload, Payload::Device(_)))?;
                    let Payload::Device(remote) = &mut state.payload else {
                        unreachable!()
                    };
                    pack_device(gpu, copy, grid, rect, remote)?;
                    state.ready = Some(gpu.record_event(Some(copy))?);
                }
                Strategy::Nccl => unreachable!("the NCCL exchange packed its borders above"),
                #[cfg(feature = "mpi")]
                Strategy::Mpi => unreachable!("`Exchange::new` refuses the MPI exchange"),
            }
            state.written = step;
            self.times.transfer += started.elapsed();
            drop(state);
            mailbox.changed.notify_all();
        }
        Ok(())
    }

    /// Allocates the buffers that live on this rank's GPU (the peer strategy's receive
    /// buffers, so that writers can copy into them; the NCCL strategy's packed borders); call
    /// once before the first exchange.
    fn prepare(&mut self, gpu: &Gpu) -> Result<()> {
        if self.strategy == Strategy::Nccl {
            let alloc = |list: &[BorderEnd<T>]| -> Result<Vec<DeviceBuffer<T>>> {
                list.iter()
                    .map(|(.., rect)| gpu.zeros(packed_len(rect, self.planes)))
                    .collect()
            };
            self.packed = (alloc(&self.sends)?, alloc(&self.receives)?);
        }
        if self.strategy != Strategy::Peer {
            return Ok(());
        }
        for (_, mailbox, rect) in &self.receives {
            let mut state = mailbox.wait_for(&mut self.times.sync, |_| true)?;
            state.payload = Payload::Device(gpu.zeros(packed_len(rect, self.planes))?);
            drop(state);
            mailbox.changed.notify_all();
        }
        Ok(())
    }

    /// Collects this rank's ghosts of `phase` for exchange `step` into `grid`. Asynchronous
    /// strategies queue the copies on `copy` and return; the caller orders its next kernels
    /// after them with an event recorded on `copy`.
    fn receive(&mut self, gpu: &Gpu, copy: &Stream, grid: &mut DeviceGrid<T>, phase: usize, step: u64) -> Result<()> {
        if let Some(comm) = &self.nccl {
            // One group per phase: every rank posts all its sends and receives of the phase,
            // which pair up between two ranks in border order (both sides list `borders`).
            let started = Instant::now();
            let (sends, receives) = &mut self.packed;
            let of_phase = |b: &Border| b.phase == phase;
            comm.group(|c| {
                for ((border, ..), packed) in self.sends.iter().zip(sends.iter()) {
                    if of_phase(border) {
                        c.send(packed, border.to)?;
                    }
                }
                for ((border, ..), packed) in self.receives.iter().zip(receives.iter_mut()) {
                    if of_phase(border) {
                        c.recv(packed, border.from)?;
                    }
                }
                Ok(())
            })?;
            let received = self.receives.iter().zip(receives.iter());
            for ((_, _, rect), packed) in received.filter(|((b, ..), _)| of_phase(b)) {
                for (c, plane) in unpacks(rect, grid.pitch(), self.planes).zip(grid.planes_mut()) {
                    gpu.copy_2d_async(copy, packed, plane, c)?;
                }
            }
            self.times.transfer += started.elapsed();
            return Ok(());
        }
        for (_, mailbox, rect) in self.receives.iter().filter(|(b, ..)| b.phase == phase) {
            let mut state = mailbox.wait_for(&mut self.times.sync, |s| s.written >= step)?;
            let started = Instant::now();
            if let Some(ready) = state.ready.take() {
                gpu.stream_wait_event(copy, &ready)?;
            }
            for (unpack, plane) in unpacks(rect, grid.pitch(), self.planes).zip(grid.planes_mut()) {
                match &state.payload {
                    Payload::Pageable(host) => gpu.upload_2d(host, plane, unpack)?,
                    Payload::Pinned(host) => gpu.upload_2d_async(copy, host, plane, unpack)?,
                    Payload::Device(local) => gpu.copy_2d_async(copy, local, plane, unpack)?,
                    Payload::Empty => unreachable!("a border is read only after it was written"),
                }
            }
            if self.strategy.is_async() {
                state.consumed = Some(gpu.record_event(Some(copy))?);
            }
            state.read = step;
            self.times.transfer += started.elapsed();
            drop(state);
            mailbox.changed.notify_all();
        }
        Ok(())
    }

    fn times(&self) -> ExchangeTimes {
        self.times
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strategies_parse_what_they_print() {
        for strategy in Strategy::ALL.into_iter().chain([Strategy::Nccl]) {
            assert_eq!(strategy.to_string().parse::<Strategy>().unwrap(), strategy);
        }
        #[cfg(feature = "mpi")]
        assert_eq!("mpi".parse::<Strategy>().unwrap().to_string(), "mpi");
        // Without the feature, the refusal names the build that has it.
        #[cfg(not(feature = "mpi"))]
        assert!(
            "mpi"
                .parse::<Strategy>()
                .unwrap_err()
                .to_string()
                .contains("--features mpi")
        );
    }
}
