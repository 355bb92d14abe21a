//! The table of every example ([`EXAMPLES`], in the order of the sources) and the lookup by id:
//! the one place that names each example, a floor above them all.
use crate::entry::{Entry, F32, Generic};

/// The registration of an example generic over precision: its f32 and f64 instances, and the
/// precision a run takes by default (`f32_default` or `f64_default`).
macro_rules! generic {
    ($($path:ident)::+, $default:ident) => {
        &Generic::<$($path)::+<f32>, $($path)::+<f64>>::$default()
    };
}
use crate::examples::{appc, ch1, ch2, ch3, ch4, ch5, ch6, ch7, course, racecheck, stream, thesis, tutorial};

/// Every example, in the order of the sources.
pub static EXAMPLES: &[&dyn Entry] = &[
    &F32::<ch1::increment::Ch1Increment>::new(),
    &ch1::increment_multiblock::EXAMPLE,
    &ch1::increment_2d::EXAMPLE,
    &ch1::devicequery::EXAMPLE,
    &ch1::precision::EXAMPLE,
    &ch1::error_handling::EXAMPLE,
    &ch1::separate_compilation::EXAMPLE,
    &ch2::timing::EXAMPLE,
    &ch2::limiting_factor::EXAMPLE,
    &ch2::effective_bandwidth::EXAMPLE,
    &ch3::bandwidth_test::EXAMPLE,
    &ch3::batching::EXAMPLE,
    &ch3::async_overlap::EXAMPLE,
    &ch3::offset_stride::EXAMPLE,
    &ch3::stride_texture::EXAMPLE,
    &ch3::texture_average::EXAMPLE,
    &ch3::localmem::EXAMPLE,
    &ch3::cache_config::EXAMPLE,
    &ch3::constant_increment::EXAMPLE,
    &ch3::shared_reverse::EXAMPLE,
    &ch3::bank_conflicts::EXAMPLE,
    &ch3::transpose::EXAMPLE,
    generic!(ch3::tlp_copy::Ch3TlpCopy, f64_default),
    generic!(ch3::ilp_copy::Ch3IlpCopy, f64_default),
    &ch3::intrinsics::EXAMPLE,
    &ch3::divergence::EXAMPLE,
    &ch3::cuf_increment::EXAMPLE,
    &ch3::cuf_increment_2d::EXAMPLE,
    &ch3::cuf_reduce::EXAMPLE,
    &ch3::cuf_increment::STREAMS_EXAMPLE,
    &ch3::cuf_increment::ILP_EXAMPLE,
    &stream::EXAMPLE,
    &course::hello_world::EXAMPLE,
    &course::vector_add::EXAMPLE,
    &course::vector_add_managed::EXAMPLE,
    &course::vector_add_streams::EXAMPLE,
    &course::vector_add_multi::EXAMPLE,
    &tutorial::vector_copy::EXAMPLE,
    &ch5::pi_cuf::EXAMPLE,
    &ch5::pi_fma::EXAMPLE,
    &ch5::pi_reduction_twopass::EXAMPLE,
    &ch5::pi_reduction_atomiclock::EXAMPLE,
    &ch5::curand_basic::EXAMPLE,
    &ch5::sum_accuracy::EXAMPLE,
    &ch5::bs_european_mc::EXAMPLE,
    &ch6::laplace2d::EXAMPLE,
    &tutorial::sum_reduction::EXAMPLE,
    &course::reduction::EXAMPLE,
    &course::histogram::EXAMPLE,
    &course::matmul_tiled::EXAMPLE,
    &course::heat::EXAMPLE,
    &course::picture_kernel::EXAMPLE,
    &course::color_convert::EXAMPLE,
    &course::image_blur::EXAMPLE,
    &course::matrix_sum::EXAMPLE,
    &course::convolution::EXAMPLE,
    &thesis::sor::EXAMPLE,
    &thesis::sor_multi::EXAMPLE,
    &thesis::comm_model::EXAMPLE,
    &ch6::deriv::EXAMPLE,
    &ch7::fft_c2c_test::EXAMPLE,
    &ch7::fft_r2c_test::EXAMPLE,
    &ch7::fftshift::EXAMPLE,
    &ch7::spectral_deriv::EXAMPLE,
    &ch7::poisson::EXAMPLE,
    &ch7::fft_convolution::EXAMPLE,
    &ch4::minimal::EXAMPLE,
    &ch4::p2p_access::EXAMPLE,
    &ch4::direct_transfer::EXAMPLE,
    &ch4::p2p_bandwidth::EXAMPLE,
    &ch4::transpose_p2p::EXAMPLE,
    &ch4::mpi_devices::EXAMPLE,
    &ch4::mpi_assign_device::EXAMPLE,
    &ch4::transpose_mpi::EXAMPLE,
    &ch4::transpose_mpi::GPUAWARE_EXAMPLE,
    &appc::sgemm::EXAMPLE,
    &appc::fcallingc::EXAMPLE,
    &racecheck::gallery::EXAMPLE,
];

/// The example with this id.
pub fn find(id: &str) -> Option<&'static dyn Entry> {
    EXAMPLES.iter().copied().find(|e| e.id() == id)
}
