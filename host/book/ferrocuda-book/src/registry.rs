//! The table of every example ([`EXAMPLES`], in the order of the sources) and the lookup by id:
//! the one place that names each example, a floor above them all.
use crate::entry::{Entry, F32, Generic, MpiRanks};
use crate::examples::{appc, ch1, ch2, ch3, ch4, ch5, ch6, ch7, course, racecheck, stream, thesis, tutorial};

/// The registration of an example generic over precision: its f32 and f64 instances, and the
/// precision a run takes by default (`f32_default` or `f64_default`).
macro_rules! generic {
    ($($path:ident)::+, $default:ident) => {
        &Generic::<$($path)::+<f32>, $($path)::+<f64>>::$default()
    };
}

/// Every example, in the order of the sources.
pub static EXAMPLES: &[&dyn Entry] = &[
    &F32::<ch1::increment::Ch1Increment>::new(),
    &F32::<ch1::increment_multiblock::Ch1IncrementMultiblock>::new(),
    &F32::<ch1::increment_2d::Ch1Increment2d>::new(),
    &F32::<ch1::devicequery::Ch1Devicequery>::new(),
    generic!(ch1::precision::Ch1Precision, f32_default),
    &F32::<ch1::error_handling::Ch1ErrorHandling>::new(),
    &F32::<ch1::separate_compilation::Ch1SeparateCompilation>::new(),
    &F32::<ch2::timing::Ch2Timing>::new(),
    &F32::<ch2::limiting_factor::Ch2LimitingFactor>::new(),
    &F32::<ch2::effective_bandwidth::Ch2EffectiveBandwidth>::new(),
    &F32::<ch3::bandwidth_test::Ch3BandwidthTest>::new(),
    &F32::<ch3::batching::Ch3Batching>::new(),
    &F32::<ch3::async_overlap::Ch3Async>::new(),
    generic!(ch3::offset_stride::Ch3OffsetStride, f32_default),
    generic!(ch3::stride_texture::Ch3StrideTexture, f32_default),
    &F32::<ch3::texture_average::Ch3TextureAverage>::new(),
    &F32::<ch3::localmem::Ch3Localmem>::new(),
    &F32::<ch3::cache_config::Ch3CacheConfig>::new(),
    &F32::<ch3::constant_increment::Ch3ConstantIncrement>::new(),
    &F32::<ch3::shared_reverse::Ch3SharedReverse>::new(),
    &F32::<ch3::bank_conflicts::Ch3BankConflicts>::new(),
    &F32::<ch3::transpose::Ch3Transpose>::new(),
    generic!(ch3::tlp_copy::Ch3TlpCopy, f64_default),
    generic!(ch3::ilp_copy::Ch3IlpCopy, f64_default),
    &F32::<ch3::intrinsics::Ch3Intrinsics>::new(),
    &F32::<ch3::divergence::Ch3Divergence>::new(),
    &F32::<ch3::cuf_increment::Ch3CufIncrement>::new(),
    &F32::<ch3::cuf_increment_2d::Ch3CufIncrement2d>::new(),
    &F32::<ch3::cuf_reduce::Ch3CufReduce>::new(),
    &F32::<ch3::cuf_increment::Ch3CufStreams>::new(),
    &F32::<ch3::cuf_increment::Ch3CufIlp>::new(),
    generic!(stream::Stream, f64_default),
    &F32::<course::hello_world::CourseHelloWorld>::new(),
    &F32::<course::vector_add::CourseVectorAdd>::new(),
    &F32::<course::vector_add_managed::CourseVectorAddManaged>::new(),
    &F32::<course::vector_add_streams::CourseVectorAddStreams>::new(),
    &F32::<course::vector_add_multi::CourseVectorAddMulti>::new(),
    &F32::<tutorial::vector_copy::TutorialVectorCopy>::new(),
    generic!(ch5::pi_cuf::Ch5PiCuf, f32_default),
    generic!(ch5::pi_fma::Ch5PiFma, f32_default),
    generic!(ch5::pi_reduction_twopass::Ch5PiReductionTwopass, f32_default),
    generic!(ch5::pi_reduction_atomiclock::Ch5PiReductionAtomiclock, f32_default),
    generic!(ch5::curand_basic::Ch5CurandBasic, f32_default),
    &F32::<ch5::sum_accuracy::Ch5SumAccuracy>::new(),
    generic!(ch5::bs_european_mc::Ch5BsEuropeanMc, f32_default),
    generic!(ch6::laplace2d::Ch6Laplace2d, f32_default),
    &F32::<tutorial::sum_reduction::TutorialSumReduction>::new(),
    &F32::<course::reduction::CourseReduction>::new(),
    &F32::<course::histogram::CourseHistogram>::new(),
    &F32::<course::matmul_tiled::CourseMatmulTiled>::new(),
    generic!(course::heat::CourseHeat, f32_default),
    &F32::<course::picture_kernel::CoursePictureKernel>::new(),
    &F32::<course::color_convert::CourseColorConvert>::new(),
    &F32::<course::equalise::CourseEqualise>::new(),
    &F32::<course::image_blur::CourseImageBlur>::new(),
    &F32::<course::matrix_sum::CourseMatrixSum>::new(),
    &F32::<course::convolution::CourseConvolution>::new(),
    generic!(thesis::sor::ThesisSor, f32_default),
    generic!(thesis::sor_multi::ThesisSorMulti, f32_default),
    &F32::<thesis::comm_model::ThesisCommModel>::new(),
    generic!(ch6::deriv::Ch6Deriv, f32_default),
    generic!(ch7::fft_c2c_test::Ch7FftC2cTest, f32_default),
    generic!(ch7::fft_r2c_test::Ch7FftR2cTest, f32_default),
    generic!(ch7::fftshift::Ch7Fftshift, f32_default),
    generic!(ch7::spectral_deriv::Ch7SpectralDeriv, f32_default),
    generic!(ch7::poisson::Ch7Poisson, f32_default),
    &F32::<ch7::fft_convolution::Ch7FftConvolution>::new(),
    &F32::<ch4::minimal::Ch4Minimal>::new(),
    &F32::<ch4::p2p_access::Ch4P2pAccess>::new(),
    &F32::<ch4::direct_transfer::Ch4DirectTransfer>::new(),
    &F32::<ch4::p2p_bandwidth::Ch4P2pBandwidth>::new(),
    &F32::<ch4::transpose_p2p::Ch4TransposeP2p>::new(),
    &MpiRanks::<ch4::mpi_devices::Ch4MpiDevices>::new(),
    &MpiRanks::<ch4::mpi_assign_device::Ch4MpiAssignDevice>::new(),
    &MpiRanks::<ch4::transpose_mpi::Ch4TransposeMpi>::new(),
    &MpiRanks::<ch4::transpose_mpi::Ch4TransposeMpiGpuaware>::new(),
    &F32::<appc::sgemm::AppcSgemm>::new(),
    &F32::<appc::fcallingc::AppcFcallingc>::new(),
    &F32::<racecheck::gallery::RacecheckGallery>::new(),
];

/// The example with this id.
pub fn find(id: &str) -> Option<&'static dyn Entry> {
    EXAMPLES.iter().copied().find(|e| e.id() == id)
}
