//! Device enumeration and properties: every field of the book's device query (§1.4), and the
//! theoretical peak memory bandwidth of §2.3.1.
use super::error::{Error, Result};
use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdevice_attribute as Attr};

/// Loads the driver and initialises it; the one place that turns "no driver" into an error.
pub fn init_driver() -> Result<()> {
    // SAFETY: is_culib_present only tries to open the shared library.
    if !unsafe { sys::is_culib_present() } {
        return Err(Error::NoDriver);
    }
    result::init().map_err(Error::cuda("cuInit"))
}

/// Number of GPUs the driver sees (0 when there is a driver but no GPU).
pub fn device_count() -> Result<usize> {
    init_driver()?;
    match result::device::get_count() {
        Ok(n) => Ok(n as usize),
        Err(e) if e.0 == sys::CUresult::CUDA_ERROR_NO_DEVICE => Ok(0),
        Err(e) => Err(Error::cuda("cuDeviceGetCount")(e)),
    }
}

/// The driver's CUDA version, as `(major, minor)`.
pub fn driver_version() -> Result<(u32, u32)> {
    init_driver()?;
    let mut version = 0;
    // SAFETY: writes one int.
    unsafe { sys::cuDriverGetVersion(&mut version) }
        .result()
        .map_err(Error::cuda("cuDriverGetVersion"))?;
    Ok((version as u32 / 1000, (version as u32 % 1000) / 10))
}

/// A device's properties, as `cudaGetDeviceProperties` reports them.
#[derive(Clone, Debug)]
pub struct DeviceProperties {
    pub ordinal: usize,
    pub name: String,
    /// `(major, minor)`.
    pub compute_capability: (u32, u32),
    pub multiprocessor_count: u32,
    pub max_threads_per_multiprocessor: u32,
    pub max_blocks_per_multiprocessor: u32,
    pub total_global_mem_bytes: usize,
    pub max_grid_dim: [u32; 3],
    pub max_block_dim: [u32; 3],
    pub max_threads_per_block: u32,
    pub warp_size: u32,
    pub shared_mem_per_block_bytes: u32,
    pub shared_mem_per_block_optin_bytes: u32,
    pub shared_mem_per_multiprocessor_bytes: u32,
    pub registers_per_block: u32,
    pub registers_per_multiprocessor: u32,
    pub total_constant_mem_bytes: u32,
    pub l2_cache_bytes: u32,
    pub clock_rate_khz: u32,
    pub memory_clock_rate_khz: u32,
    pub memory_bus_width_bits: u32,
    pub ecc_enabled: bool,
    pub async_engine_count: u32,
    pub concurrent_kernels: bool,
    pub unified_addressing: bool,
    pub can_map_host_memory: bool,
    pub integrated: bool,
    pub pci_bus_id: u32,
}

impl DeviceProperties {
    /// Queries device `ordinal`.
    pub fn query(ordinal: usize) -> Result<Self> {
        let count = device_count()?;
        if ordinal >= count {
            return Err(if count == 0 {
                Error::NoDevice
            } else {
                Error::NoSuchDevice { ordinal, count }
            });
        }
        let dev = result::device::get(ordinal as i32).map_err(Error::cuda("cuDeviceGet"))?;
        let attr = |a: Attr| -> Result<u32> {
            // SAFETY: `dev` is a valid device handle from cuDeviceGet.
            unsafe { result::device::get_attribute(dev, a) }
                .map(|v| v as u32)
                .map_err(Error::cuda(format!("cuDeviceGetAttribute({a:?})")))
        };
        let name = result::device::get_name(dev).map_err(Error::cuda("cuDeviceGetName"))?;
        // SAFETY: `dev` is a valid device handle.
        let total_global_mem_bytes =
            unsafe { result::device::total_mem(dev) }.map_err(Error::cuda("cuDeviceTotalMem"))?;
        Ok(Self {
            ordinal,
            name,
            compute_capability: (
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            ),
            multiprocessor_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            max_threads_per_multiprocessor: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR)?,
            max_blocks_per_multiprocessor: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR)?,
            total_global_mem_bytes,
            max_grid_dim: [
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_block_dim: [
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_threads_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            warp_size: attr(Attr::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            shared_mem_per_block_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            shared_mem_per_block_optin_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)?,
            shared_mem_per_multiprocessor_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR)?,
            registers_per_block: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            registers_per_multiprocessor: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR)?,
            total_constant_mem_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY)?,
            l2_cache_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
            clock_rate_khz: attr(Attr::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
            memory_clock_rate_khz: attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?,
            memory_bus_width_bits: attr(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
            ecc_enabled: attr(Attr::CU_DEVICE_ATTRIBUTE_ECC_ENABLED)? != 0,
            async_engine_count: attr(Attr::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT)?,
            concurrent_kernels: attr(Attr::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS)? != 0,
            unified_addressing: attr(Attr::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING)? != 0,
            can_map_host_memory: attr(Attr::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY)? != 0,
            integrated: attr(Attr::CU_DEVICE_ATTRIBUTE_INTEGRATED)? != 0,
            pci_bus_id: attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
        })
    }

    /// The CPU simulator, described as a device: CUDA's limits for compute capability 9.0 (whose
    /// semantics it follows), one "multiprocessor" per host thread, no memory clock.
    pub fn simulator() -> Self {
        let host_threads = rayon::current_num_threads() as u32;
        let [gx, gy, gz] = ferrocuda_sim::MAX_GRID_DIM;
        let [bx, by, bz] = ferrocuda_sim::MAX_BLOCK_DIM;
        Self {
            ordinal: 0,
            name: format!("ferrocuda CPU simulator ({host_threads} host threads)"),
            compute_capability: (9, 0),
            multiprocessor_count: host_threads,
            max_threads_per_multiprocessor: 2048,
            max_blocks_per_multiprocessor: 32,
            total_global_mem_bytes: 0,
            max_grid_dim: [gx, gy, gz],
            max_block_dim: [bx, by, bz],
            max_threads_per_block: ferrocuda_sim::MAX_THREADS_PER_BLOCK,
            warp_size: 32,
            shared_mem_per_block_bytes: 48 * 1024,
            shared_mem_per_block_optin_bytes: ferrocuda_sim::MAX_SHARED_BYTES as u32,
            shared_mem_per_multiprocessor_bytes: 228 * 1024,
            registers_per_block: 65536,
            registers_per_multiprocessor: 65536,
            total_constant_mem_bytes: 65536,
            l2_cache_bytes: 0,
            clock_rate_khz: 0,
            memory_clock_rate_khz: 0,
            memory_bus_width_bits: 0,
            ecc_enabled: false,
            async_engine_count: 0,
            concurrent_kernels: false,
            unified_addressing: true,
            can_map_host_memory: true,
            integrated: true,
            pci_bus_id: 0,
        }
    }

    /// Compute capability as one number: 9.0 is 90.
    pub fn compute_capability_number(&self) -> u32 {
        self.compute_capability.0 * 10 + self.compute_capability.1
    }

    /// Theoretical peak memory bandwidth, GB/s (1e9 bytes): `2 * memoryClockRate(kHz) *
    /// busWidth/8 * 1e-6`, the book's §2.3.1 formula (2 for double data rate); 0 for the simulator.
    pub fn peak_bandwidth_gb_per_s(&self) -> f64 {
        2.0 * self.memory_clock_rate_khz as f64 * (self.memory_bus_width_bits as f64 / 8.0) * 1e-6
    }
}
