//! Chapter 4: multi-GPU programming (book §4), with MPI (§4.2): one process per GPU.
pub mod mpi;
pub mod mpi_assign_device;
