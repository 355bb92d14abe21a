//! Checks of the embedded PTX that need no GPU: every kernel's parameter block has the size of
//! its host-side `*Args` struct, and the instructions each kernel was written to use are there
//! (patterns, like CUDA.jl's intrinsics tests, not whole-file snapshots).
use book_kernels::{appc, ch1, ch2, ch3, ch5, course, racecheck, stream, tutorial};
use ferrocuda::kernels::{probe, random, reduce, sor, transpose};
use ferrocuda::ptx::{self, PtxModule, ResourceReport};
use ferrocuda::{Kernel, KernelArgs};

/// `(kernel crate, PTX symbol, size_of::<Args>())` for a launch handle and its argument type.
fn entry<K: Kernel<A>, A: KernelArgs>(_kernel: K) -> (&'static str, &'static str, usize) {
    (K::CRATE, K::NAME, size_of::<A>())
}

/// Every embedded module, of every set.
fn modules() -> Vec<PtxModule> {
    ferrocuda_book::KERNEL_SETS
        .iter()
        .flat_map(|set| set.modules())
        .collect()
}

/// Every kernel the host can launch.
fn host_entries() -> Vec<(&'static str, &'static str, usize)> {
    use ch1::increment::IncrementArgs;
    use ch2::limiting_factor::{LimitingFactorArgs, MathArgs};
    use stream::{BinaryArgs, UnaryArgs};
    let mut entries = vec![
        entry::<_, IncrementArgs>(ch1::increment::Increment),
        entry::<_, IncrementArgs>(ch1::increment_multiblock::IncrementMultiblock),
        entry::<_, ch1::increment_2d::Increment2dArgs>(ch1::increment_2d::Increment2d),
        entry::<_, ch1::precision::PrecisionAxpyArgs<f32>>(ch1::precision::PrecisionAxpy),
        entry::<_, ch1::precision::PrecisionAxpyArgs<f64>>(ch1::precision::PrecisionAxpy),
        entry::<_, ch1::separate_compilation::a_m::APlusBArgs>(ch1::separate_compilation::a_m::APlusB),
        entry::<_, c_m::CMinusDArgs>(c_m::CMinusD),
        entry::<_, LimitingFactorArgs>(ch2::limiting_factor::Base),
        entry::<_, LimitingFactorArgs>(ch2::limiting_factor::BaseFast),
        entry::<_, LimitingFactorArgs>(ch2::limiting_factor::Memory),
        entry::<_, MathArgs>(ch2::limiting_factor::Math),
        entry::<_, MathArgs>(ch2::limiting_factor::MathFast),
        entry::<_, ch3::async_overlap::AsyncArgs>(ch3::async_overlap::Kernel),
        entry::<_, ch3::localmem::LocalmemArgs>(ch3::localmem::LocalmemRegisters),
        entry::<_, ch3::localmem::LocalmemArgs>(ch3::localmem::LocalmemDynamic),
        entry::<_, ch3::localmem::LocalmemLargeArgs>(ch3::localmem::LocalmemLargeArray),
        entry::<_, ch3::constant_increment::ConstantIncrementArgs>(ch3::constant_increment::IncrementConstant),
        entry::<_, ch3::constant_increment::GlobalIncrementArgs>(ch3::constant_increment::IncrementGlobal),
        entry::<_, ch3::constant_increment::PolyArgs>(ch3::constant_increment::PolyConstant),
        entry::<_, ch3::constant_increment::PolyParamArgs>(ch3::constant_increment::PolyParam),
        entry::<_, ch3::constant_increment::PolyGlobalArgs>(ch3::constant_increment::PolyGlobal),
        entry::<_, ch3::intrinsics::IntrinsicsArgs>(ch3::intrinsics::IntrinsicsAccurate),
        entry::<_, ch3::intrinsics::IntrinsicsArgs>(ch3::intrinsics::IntrinsicsFast),
        entry::<_, ch3::intrinsics::IntrinsicsArgs>(ch3::intrinsics::HornerFused),
        entry::<_, ch3::intrinsics::IntrinsicsArgs>(ch3::intrinsics::HornerUnfused),
        entry::<_, ch3::intrinsics::RoundingArgs<f32>>(ch3::intrinsics::DirectedRounding),
        entry::<_, ch3::intrinsics::RoundingArgs<f64>>(ch3::intrinsics::DirectedRounding),
        entry::<_, ch3::intrinsics::FlushArgs>(ch3::intrinsics::FlushToZero),
        entry::<_, ch3::intrinsics::SincosArgs>(ch3::intrinsics::SincosOneReduction),
        entry::<_, ch3::intrinsics::SincosArgs>(ch3::intrinsics::SinCosSeparate),
        entry::<_, appc::fcallingc::ZeroArgs>(appc::fcallingc::Zero),
        entry::<_, ch3::cache_config::StagedCopyArgs>(ch3::cache_config::StagedCopy),
        entry::<_, ch3::divergence::DivergenceArgs>(ch3::divergence::Divergent),
        entry::<_, ch3::divergence::DivergenceArgs>(ch3::divergence::WarpUniform),
        entry::<_, ch3::cuf_increment::CufIncrementArgs>(ch3::cuf_increment::CufIncrement),
        entry::<_, ch3::cuf_increment_2d::CufIncrement2dArgs>(ch3::cuf_increment_2d::CufIncrement2d),
        entry::<_, UnaryArgs<f32>>(stream::StreamCopy),
        entry::<_, UnaryArgs<f64>>(stream::StreamCopy),
        entry::<_, UnaryArgs<f32>>(stream::StreamScale),
        entry::<_, UnaryArgs<f64>>(stream::StreamScale),
        entry::<_, BinaryArgs<f32>>(stream::StreamAdd),
        entry::<_, BinaryArgs<f64>>(stream::StreamAdd),
        entry::<_, BinaryArgs<f32>>(stream::StreamTriad),
        entry::<_, BinaryArgs<f64>>(stream::StreamTriad),
        entry::<_, UnaryArgs<f32>>(stream::StreamCopyVec4),
        entry::<_, UnaryArgs<f64>>(stream::StreamCopyVec4),
        entry::<_, UnaryArgs<f32>>(stream::StreamScaleVec4),
        entry::<_, UnaryArgs<f64>>(stream::StreamScaleVec4),
        entry::<_, BinaryArgs<f32>>(stream::StreamAddVec4),
        entry::<_, BinaryArgs<f64>>(stream::StreamAddVec4),
        entry::<_, BinaryArgs<f32>>(stream::StreamTriadVec4),
        entry::<_, BinaryArgs<f64>>(stream::StreamTriadVec4),
        entry::<_, BinaryArgs<f32>>(stream::StreamTriadFourPerThread),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::TileShift),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::TileShiftRacy),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::TreeSum),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::TreeSumRacy),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::WarpTailSum),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::WarpTailSumRacy),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::TransposeTiles),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::TransposeTilesRacy),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::GlobalCellRacy),
        entry::<_, racecheck::gallery::GalleryArgs>(racecheck::gallery::GlobalCellAtomic),
        entry::<_, BinaryArgs<f64>>(stream::StreamTriadFourPerThread),
        entry::<_, ch3::shared_reverse::ReverseArgs>(ch3::shared_reverse::StaticReverse),
        entry::<_, ch3::shared_reverse::ReverseArgs>(ch3::shared_reverse::DynamicReverse1),
        entry::<_, ch3::shared_reverse::Reverse2Args>(ch3::shared_reverse::DynamicReverse2),
        entry::<_, ch3::shared_reverse::Reverse3Args>(ch3::shared_reverse::DynamicReverse3),
        entry::<_, ch3::bank_conflicts::BankArgs>(ch3::bank_conflicts::BankConflicts),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::SimpleCopy),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::CopySharedMem),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::TransposeNaive),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::TransposeCoalesced),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::TransposeNoBankConflicts),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::TransposeDiagonal),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::Transpose1),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::Transpose2),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::Transpose3),
        entry::<_, ch3::transpose::TransposeArgs>(ch3::transpose::Gtranspose2),
        entry::<_, ch3::offset_stride::InPlaceArgs<f32>>(ch3::offset_stride::Offset),
        entry::<_, ch3::offset_stride::InPlaceArgs<f64>>(ch3::offset_stride::Offset),
        entry::<_, ch3::offset_stride::InPlaceArgs<f32>>(ch3::offset_stride::Stride),
        entry::<_, ch3::offset_stride::InPlaceArgs<f64>>(ch3::offset_stride::Stride),
        entry::<_, ch3::offset_stride::OutOfPlaceArgs<f32>>(ch3::offset_stride::OffsetOutOfPlace),
        entry::<_, ch3::offset_stride::OutOfPlaceArgs<f64>>(ch3::offset_stride::OffsetOutOfPlace),
        entry::<_, ch3::offset_stride::OutOfPlaceArgs<f32>>(ch3::offset_stride::StrideOutOfPlace),
        entry::<_, ch3::offset_stride::OutOfPlaceArgs<f64>>(ch3::offset_stride::StrideOutOfPlace),
        entry::<_, ch3::offset_stride::InPlaceArgs<f32>>(ch3::offset_stride::StrideCg),
        entry::<_, ch3::offset_stride::InPlaceArgs<f64>>(ch3::offset_stride::StrideCg),
        entry::<_, ch3::offset_stride::OutOfPlaceArgs<f32>>(ch3::offset_stride::StrideOutOfPlaceCg),
        entry::<_, ch3::offset_stride::OutOfPlaceArgs<f64>>(ch3::offset_stride::StrideOutOfPlaceCg),
        entry::<_, ch3::stride_texture::StrideReadArgs<f32>>(ch3::stride_texture::StrideGlobal),
        entry::<_, ch3::stride_texture::StrideReadArgs<f64>>(ch3::stride_texture::StrideGlobal),
        entry::<_, ch3::stride_texture::StrideReadArgs<f32>>(ch3::stride_texture::StrideTex),
        entry::<_, ch3::stride_texture::StrideReadArgs<f64>>(ch3::stride_texture::StrideTex),
        entry::<_, ch3::texture_average::AverageArgs>(ch3::texture_average::Average4),
        entry::<_, ch3::texture_average::AverageArgs>(ch3::texture_average::Average8),
        entry::<_, ch3::texture_average::AverageArgs>(ch3::texture_average::Average4Tex),
        entry::<_, ch3::texture_average::AverageArgs>(ch3::texture_average::Average8Tex),
        entry::<_, ch3::tlp_copy::CopyArgs<f32>>(ch3::tlp_copy::TlpCopy),
        entry::<_, ch3::tlp_copy::CopyArgs<f64>>(ch3::tlp_copy::TlpCopy),
        entry::<_, ch3::tlp_copy::CopyArgs<f32>>(ch3::ilp_copy::IlpCopy),
        entry::<_, ch3::tlp_copy::CopyArgs<f64>>(ch3::ilp_copy::IlpCopy),
        entry::<_, course::vector_add::VecAddArgs>(course::vector_add::VecAddKernel),
        entry::<_, course::hello_world::SayHelloArgs>(course::hello_world::SayHello),
        entry::<_, tutorial::vector_copy::CopyArgs>(tutorial::vector_copy::Gcopy1),
        entry::<_, tutorial::vector_copy::CopyArgs>(tutorial::vector_copy::Gcopy2a),
        entry::<_, tutorial::vector_copy::CopyArgs>(tutorial::vector_copy::Gcopy2b),
        entry::<_, tutorial::vector_copy::CopyArgs>(tutorial::vector_copy::Gcopy3),
        entry::<_, tutorial::vector_copy::EmptyArgs>(tutorial::vector_copy::EmptyKernel),
        entry::<_, tutorial::sum_reduction::Gsum1Args>(tutorial::sum_reduction::Gsum1),
        entry::<_, tutorial::sum_reduction::Gsum2Args>(tutorial::sum_reduction::Gsum2),
        entry::<_, course::reduction::ReductionArgs>(course::reduction::ReductionNaive),
        entry::<_, course::reduction::ReductionArgs>(course::reduction::ReductionImproved),
        entry::<_, course::histogram::HistoArgs>(course::histogram::HistoKernel),
        entry::<_, course::histogram::HistoArgs>(course::histogram::HistoPrivatizedKernel),
        entry::<_, course::histogram::HistoArgs>(course::histogram::Histo256Naive),
        entry::<_, course::histogram::HistoArgs>(course::histogram::Histo256Privatized),
        entry::<_, course::matmul_tiled::MatmulArgs>(course::matmul_tiled::MatmulNaive),
        entry::<_, course::matmul_tiled::MatmulArgs>(course::matmul_tiled::MatmulTiled),
        entry::<_, course::matmul_tiled::MatmulArgs>(course::matmul_tiled::MatmulTiled32),
        entry::<_, course::matmul_tiled::MatmulArgs>(course::matmul_tiled::MatmulRegisterTiled),
        entry::<_, course::matmul_tiled::MatmulArgs>(course::matmul_tiled::MatmulRegisterTiledUnrolled),
        entry::<_, course::heat::HeatArgs<f32>>(course::heat::HeatStep),
        entry::<_, course::heat::HeatArgs<f64>>(course::heat::HeatStep),
        entry::<_, course::heat::TiledHeatArgs<f32>>(course::heat::HeatStepTiled),
        entry::<_, course::heat::TiledHeatArgs<f64>>(course::heat::HeatStepTiled),
        entry::<_, course::picture_kernel::PictureArgs>(course::picture_kernel::PictureKernel),
        entry::<_, course::color_convert::ColorConvertArgs>(course::color_convert::ColorConvert),
        entry::<_, course::matrix_sum::MatrixSumArgs>(course::matrix_sum::MatrixSumEachRow),
        entry::<_, course::matrix_sum::MatrixSumArgs>(course::matrix_sum::MatrixSumEachCol),
        entry::<_, course::image_blur::BlurArgs>(course::image_blur::BlurKernel),
        entry::<_, course::image_blur::BlurArgs>(course::image_blur::BlurFast),
        entry::<_, course::image_blur::BlurArgs>(course::image_blur::BlurStream),
        entry::<_, course::convolution::Convolution1dArgs>(course::convolution::Convolution1dBasicKernel),
        entry::<_, course::convolution::Convolution1dTiledArgs>(course::convolution::Convolution1dTiledKernel),
        entry::<_, course::convolution::Convolution2dArgs>(course::convolution::Convolution2dBasicKernel),
        entry::<_, course::convolution::Convolution2dTiledArgs>(course::convolution::Convolution2dTiledKernel),
        entry::<_, course::convolution_fast::Convolution2dFastArgs>(course::convolution_fast::Convolution2dFastM1),
        entry::<_, course::convolution_fast::Convolution2dFastArgs>(course::convolution_fast::Convolution2dFastM3),
        entry::<_, course::convolution_fast::Convolution2dFastArgs>(course::convolution_fast::Convolution2dFastM5),
        entry::<_, course::convolution_fast::Convolution2dFastArgs>(course::convolution_fast::Convolution2dFastM7),
        entry::<_, course::convolution_fast::Convolution2dFastArgs>(course::convolution_fast::Convolution2dFastM9),
        entry::<_, ch5::pi_cuf::PiCountArgs<f32>>(ch5::pi_cuf::PiCount),
        entry::<_, ch5::pi_cuf::PiCountArgs<f64>>(ch5::pi_cuf::PiCount),
        entry::<_, ch5::pi_cuf::PiCountArgs<f32>>(ch5::pi_fma::PiCountFma),
        entry::<_, ch5::pi_cuf::PiCountArgs<f64>>(ch5::pi_fma::PiCountFma),
        entry::<_, ch5::pi_fma::MismatchArgs<f32>>(ch5::pi_fma::PiFmaMismatches),
        entry::<_, ch5::pi_fma::MismatchArgs<f64>>(ch5::pi_fma::PiFmaMismatches),
        entry::<_, ch5::pi_reduction_twopass::PartialSumArgs<f32>>(ch5::pi_reduction_twopass::PartialSum),
        entry::<_, ch5::pi_reduction_twopass::PartialSumArgs<f64>>(ch5::pi_reduction_twopass::PartialSum),
        entry::<_, ch5::pi_reduction_twopass::FinalSumArgs>(ch5::pi_reduction_twopass::FinalSum),
        entry::<_, ch5::pi_reduction_atomiclock::LockedSumArgs<f32>>(ch5::pi_reduction_atomiclock::Sum),
        entry::<_, ch5::pi_reduction_atomiclock::LockedSumArgs<f64>>(ch5::pi_reduction_atomiclock::Sum),
        entry::<_, ch5::bs_european_mc::McPayoffsArgs<f32>>(ch5::bs_european_mc::McPayoffs),
        entry::<_, ch5::bs_european_mc::McPayoffsArgs<f64>>(ch5::bs_european_mc::McPayoffs),
        entry::<_, ch5::bs_european_mc::McSquaredDeviationsArgs<f32>>(ch5::bs_european_mc::McSquaredDeviations),
        entry::<_, ch5::bs_european_mc::McSquaredDeviationsArgs<f64>>(ch5::bs_european_mc::McSquaredDeviations),
        entry::<_, book_kernels::ch6::laplace2d::JacobiArgs<f32>>(book_kernels::ch6::laplace2d::JacobiGlobal),
        entry::<_, book_kernels::ch6::laplace2d::JacobiArgs<f64>>(book_kernels::ch6::laplace2d::JacobiGlobal),
        entry::<_, book_kernels::ch6::laplace2d::JacobiArgs<f32>>(book_kernels::ch6::laplace2d::JacobiShared),
        entry::<_, book_kernels::ch6::laplace2d::JacobiArgs<f64>>(book_kernels::ch6::laplace2d::JacobiShared),
        entry::<_, book_kernels::ch6::laplace2d::JacobiArgs<f32>>(book_kernels::ch6::laplace2d::JacobiTexture),
        entry::<_, book_kernels::ch6::laplace2d::JacobiArgs<f64>>(book_kernels::ch6::laplace2d::JacobiTexture),
        entry::<_, book_kernels::ch6::laplace2d::JacobiArgs<f32>>(book_kernels::ch6::laplace2d::JacobiStrip),
        entry::<_, book_kernels::ch6::laplace2d::JacobiArgs<f64>>(book_kernels::ch6::laplace2d::JacobiStrip),
        entry::<_, book_kernels::ch6::laplace2d::JacobiTiledArgs<f32>>(book_kernels::ch6::laplace2d::JacobiTiled),
        entry::<_, book_kernels::ch6::laplace2d::JacobiTiledArgs<f64>>(book_kernels::ch6::laplace2d::JacobiTiled),
        entry::<_, book_kernels::ch6::laplace2d::MaxResidualArgs<f32>>(book_kernels::ch6::laplace2d::MaxResidual),
        entry::<_, book_kernels::ch6::laplace2d::MaxResidualArgs<f64>>(book_kernels::ch6::laplace2d::MaxResidual),
        entry::<_, random::PhiloxArgs<f32>>(random::PhiloxUniform),
        entry::<_, random::PhiloxArgs<f64>>(random::PhiloxUniform),
        entry::<_, random::PhiloxArgs<f32>>(random::PhiloxNormal),
        entry::<_, random::PhiloxArgs<f64>>(random::PhiloxNormal),
        entry::<_, probe::OutArgs<u32>>(probe::ProbeIndex),
        entry::<_, probe::OutArgs<u32>>(probe::ProbeGridStride),
        entry::<_, probe::OutArgs<i32>>(probe::ProbeSharedReverse),
        entry::<_, probe::TransposeArgs>(probe::ProbeTileTranspose),
        entry::<_, probe::WarpArgs>(probe::ProbeWarp),
        entry::<_, probe::WarpSumF64Args>(probe::ProbeWarpSumF64),
        entry::<_, probe::AtomicArgs>(probe::ProbeAtomics),
        entry::<_, probe::RoundingArgs<f32>>(probe::ProbeRounding),
        entry::<_, probe::RoundingArgs<f64>>(probe::ProbeRounding),
        entry::<_, probe::OutArgs<u64>>(probe::ProbeClock),
        entry::<_, probe::PrintArgs>(probe::ProbePrint),
        entry::<_, transpose::CudaTransposeArgs>(transpose::CudaTranspose),
        entry::<_, book_kernels::ch4::minimal::AssignArgs>(book_kernels::ch4::minimal::Assign),
    ];
    use sor::{ResidualArgs, SplitArgs, WindowArgs};
    macro_rules! sor {
        ($($t:ty),*) => {$(
            entries.push(entry::<_, WindowArgs<$t>>(sor::RsorGm));
            entries.push(entry::<_, WindowArgs<$t>>(sor::BsorGm));
            entries.push(entry::<_, WindowArgs<$t>>(sor::RsorLintex));
            entries.push(entry::<_, WindowArgs<$t>>(sor::BsorLintex));
            entries.push(entry::<_, SplitArgs<$t>>(sor::SorSplit));
            entries.push(entry::<_, sor::TiledArgs<$t>>(sor::SorTiled));
            entries.push(entry::<_, ResidualArgs<$t>>(sor::SorResidual));
            entries.push(entry::<_, ResidualArgs<$t>>(sor::SorResidualSplit));
        )*};
    }
    sor!(f32, f64);
    macro_rules! reductions {
        ($($t:ty),*) => {$(
            entries.push(entry::<_, reduce::ReduceArgs<$t, $t>>(reduce::ReduceSum));
            entries.push(entry::<_, reduce::ReduceArgs<$t, $t>>(reduce::ReduceMin));
            entries.push(entry::<_, reduce::ReduceArgs<$t, $t>>(reduce::ReduceMax));
            entries.push(entry::<_, reduce::ReduceArgs<$t, $t>>(reduce::ReduceSumAtomic));
        )*};
    }
    reductions!(i32, u32, u64, f32, f64);
    use book_kernels::ch6::{deriv as ch6_deriv, deriv_nonuniform as ch6_nonuniform};
    use ch6_deriv::DerivArgs;
    use ch6_nonuniform::DerivGlobalArgs;
    macro_rules! ch6_deriv {
        ($($t:ty),*) => {$(
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivX));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivX1sync));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivXLPencils));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivXMem));
            entries.push(entry::<_, ch6_deriv::DerivMathArgs<$t>>(ch6_deriv::DerivativeMath));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivY));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivYLPencils));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivZ));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivZLPencils));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivYMarch));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_deriv::DerivZMarch));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_nonuniform::DerivXNonuniformConstant));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_nonuniform::DerivXLPencilsNonuniformConstant));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_nonuniform::DerivYNonuniformConstant));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_nonuniform::DerivYLPencilsNonuniformConstant));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_nonuniform::DerivZNonuniformConstant));
            entries.push(entry::<_, DerivArgs<$t>>(ch6_nonuniform::DerivZLPencilsNonuniformConstant));
            entries.push(entry::<_, DerivGlobalArgs<$t>>(ch6_nonuniform::DerivXNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<$t>>(ch6_nonuniform::DerivXLPencilsNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<$t>>(ch6_nonuniform::DerivYNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<$t>>(ch6_nonuniform::DerivYLPencilsNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<$t>>(ch6_nonuniform::DerivZNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<$t>>(ch6_nonuniform::DerivZLPencilsNonuniformGlobal));
        )*};
    }
    ch6_deriv!(f32, f64);
    use book_kernels::ch7::{poisson as ch7_poisson, spectral as ch7_spectral};
    macro_rules! ch7 {
        ($($t:ty),*) => {$(
            entries.push(entry::<_, ch7_spectral::AlternateSignArgs<$t>>(ch7_spectral::AlternateSign));
            entries.push(entry::<_, ch7_spectral::SpectralDerivativeArgs<$t>>(ch7_spectral::SpectralDerivative));
            entries.push(entry::<_, ch7_poisson::RealToComplexArgs<$t>>(ch7_poisson::RealToComplex));
            entries.push(entry::<_, ch7_poisson::SolvePoissonArgs<$t>>(ch7_poisson::SolvePoisson));
            entries.push(entry::<_, ch7_poisson::ComplexToRealArgs<$t>>(ch7_poisson::ComplexToReal));
        )*};
    }
    ch7!(f32, f64);
    entries.push(entry::<_, ch7_spectral::ConvolvePlanesArgs>(
        ch7_spectral::ConvolvePlanes,
    ));
    use ferrocuda::kernels::fft;
    macro_rules! ffts {
        ($($t:ty),*) => {$(
            entries.push(entry::<_, fft::FftRowsArgs<$t>>(fft::FftRows));
            entries.push(entry::<_, fft::RealPassArgs<$t>>(fft::R2cPost));
            entries.push(entry::<_, fft::RealPassArgs<$t>>(fft::C2rPre));
        )*};
    }
    ffts!(f32, f64);
    for count in [
        entry::<_, reduce::ReduceArgs<i32, u64>>(reduce::CountNonzero),
        entry::<_, reduce::ReduceArgs<u32, u64>>(reduce::CountNonzero),
        entry::<_, reduce::ReduceArgs<f32, u64>>(reduce::CountNonzero),
        entry::<_, reduce::ReduceArgs<f64, u64>>(reduce::CountNonzero),
        entry::<_, reduce::ReduceArgs<f32, f32>>(reduce::ReduceSumKahan),
        entry::<_, reduce::ReduceArgs<f64, f64>>(reduce::ReduceSumKahan),
    ] {
        entries.push(count);
    }
    entries
}

/// The byte size of the single `.param .align A .b8 name_param_0[size]` of an entry.
fn param_block_bytes(entry_ptx: &str) -> Option<usize> {
    let start = entry_ptx.find(".b8 ")? + 4;
    let rest = &entry_ptx[start..];
    let open = rest.find('[')? + 1;
    let close = rest.find(']')?;
    rest[open..close].parse().ok()
}

/// The entry `name` in every module of the set that holds it.
fn kernel_ptx(name: &str) -> Vec<&'static str> {
    let bodies: Vec<&'static str> = modules().iter().filter_map(|m| ptx::entry_ptx(m.ptx, name)).collect();
    assert!(!bodies.is_empty(), "no entry `{name}` in any embedded PTX");
    bodies
}

#[test]
fn every_module_holds_exactly_its_crates_kernels() {
    for set in ferrocuda_book::KERNEL_SETS {
        let mut expected: Vec<&str> = host_entries()
            .iter()
            .filter(|(krate, ..)| *krate == set.name())
            .map(|(_, name, _)| *name)
            .collect();
        expected.sort_unstable();
        assert!(set.modules().next().is_some(), "no PTX embedded for `{}`", set.name());
        for module in set.modules() {
            let mut found = ptx::entry_points(module.ptx);
            found.sort_unstable();
            assert_eq!(found, expected, "{} {}", set.name(), module.arch);
            assert!(
                module.ptx.contains(&format!(".target {}", module.arch)),
                "{} PTX targets another architecture",
                module.arch
            );
        }
    }
}

#[test]
fn parameter_blocks_match_the_host_args_structs() {
    for (_, name, bytes) in host_entries() {
        for body in kernel_ptx(name) {
            assert_eq!(
                param_block_bytes(body),
                Some(bytes),
                "`{name}`: PTX parameter block vs size_of::<Args>()"
            );
            let header = body.split('{').next().unwrap_or_default();
            assert_eq!(
                header.matches(".param").count(),
                1,
                "`{name}` takes more than one parameter"
            );
        }
    }
}

/// Kernels with the accurate sine: its argument reduction for huge arguments (Payne-Hanek, in
/// `libm`'s `rem_pio2_large`) keeps a small array in local memory, as CUDA's own `sinf` does.
/// (`kernel` is ch3-async's, with `sincosf`; `sincos_one_reduction` calls `libm` beyond 2^20.)
const ACCURATE_SINE_KERNELS: [&str; 6] = [
    "base",
    "math",
    "kernel",
    "intrinsics_accurate",
    "sin_cos_separate",
    "sincos_one_reduction",
];
/// Kernels that use local memory on purpose: ch3-localmem's private array indexed at run time,
/// and its 1024-byte one (the book's `k3`).
const LOCAL_MEMORY_DEMONSTRATIONS: [&str; 2] = ["localmem_dynamic", "localmem_large_array"];
/// Kernels that print (`ferrocuda_device::println!`): the arguments of each line are gathered in
/// the kernel's stack frame (local memory) for the formatter, which runs out of line.
const PRINTING_KERNELS: [&str; 2] = ["say_hello", "probe_print"];

#[test]
fn no_kernel_uses_local_memory() {
    for module in modules() {
        for name in ptx::entry_points(module.ptx).into_iter().filter(|n| {
            !ACCURATE_SINE_KERNELS.contains(n)
                && !LOCAL_MEMORY_DEMONSTRATIONS.contains(n)
                && !PRINTING_KERNELS.contains(n)
        }) {
            let body = ptx::entry_ptx(module.ptx, name).unwrap_or_default();
            assert!(!body.contains(".local"), "`{name}` ({}) uses local memory", module.arch);
        }
    }
}

/// The functions (`.func`) an entry calls, directly or through the functions it calls.
fn reachable_functions<'a>(ptx: &'a str, entry_body: &'a str) -> Vec<&'a str> {
    let function_body = |name: &str| {
        let start = ptx.find(&format!("{name}("))?;
        let header = ptx[..start].rfind(".func")?;
        let open = ptx[header..].find('{')? + header;
        let close = ptx[open..].find("\n}")? + open;
        Some(&ptx[open..close])
    };
    let callees = |body: &'a str| -> Vec<&'a str> {
        body.match_indices("call.uni ")
            .filter_map(|(at, _)| {
                let rest = &body[at + "call.uni ".len()..];
                let rest = rest.strip_prefix("(retval0), ").unwrap_or(rest);
                rest.split([',', ';', ' ']).next()
            })
            .collect()
    };
    let mut seen: Vec<&str> = Vec::new();
    let mut todo = callees(entry_body);
    while let Some(name) = todo.pop() {
        if !seen.contains(&name) {
            seen.push(name);
            if let Some(body) = function_body(name) {
                todo.extend(callees(body));
            }
        }
    }
    seen
}

/// Device printing is CUDA's `vprintf` system call, declared `.extern` for the driver to resolve
/// (as nvcc declares it), and reached only from the kernels that print: the others link no
/// formatting code.
#[test]
fn only_printing_kernels_call_vprintf() {
    for module in modules() {
        let declared = module.ptx.contains(".extern .func  (.param .b32 func_retval0) vprintf")
            || module.ptx.contains(".extern .func (.param .b32 func_retval0) vprintf");
        let mut printing = Vec::new();
        for name in ptx::entry_points(module.ptx) {
            let body = ptx::entry_ptx(module.ptx, name).unwrap_or_default();
            if reachable_functions(module.ptx, body).contains(&"vprintf") {
                printing.push(name);
            }
        }
        printing.sort_unstable();
        let mut expected: Vec<&str> = PRINTING_KERNELS
            .into_iter()
            .filter(|k| ptx::entry_points(module.ptx).contains(k))
            .collect();
        expected.sort_unstable();
        assert_eq!(printing, expected, "{} kernels that reach vprintf", module.arch);
        assert_eq!(
            declared,
            !expected.is_empty(),
            "{}: the vprintf declaration",
            module.arch
        );
    }
}

#[test]
fn explicit_fma_is_fused_and_fast_math_is_approximate() {
    for body in kernel_ptx("precision_axpy_f32") {
        assert!(body.contains("fma.rn.f32"), "precision_axpy_f32 lost its fma");
    }
    for body in kernel_ptx("stream_triad_f64") {
        assert!(body.contains("fma.rn.f64"), "stream_triad_f64 lost its fma");
    }
    for body in kernel_ptx("base_fast") {
        assert!(body.contains("sin.approx"), "base_fast does not use the hardware sine");
    }
    for body in kernel_ptx("base") {
        assert!(!body.contains("sin.approx"), "base must use the accurate sine");
    }
}

/// The Monte Carlo kernels round as the CPU does: every multiply and add is explicitly rounded
/// (`mul.rn`, `add.rn`, `fma.rn`), which ptxas never contracts (a plain `mul.f32` followed by
/// `add.f32` it may fuse), and the exponential is the accurate one, not `ex2.approx`.
#[test]
fn bs_european_mc_rounds_explicitly() {
    for t in ["f32", "f64"] {
        for kernel in ["mc_payoffs", "mc_squared_deviations"] {
            let name = format!("{kernel}_{t}");
            for body in kernel_ptx(&name) {
                assert!(body.contains(&format!("fma.rn.{t}")), "{name} lost its fma");
                for op in ["mul", "add", "sub"] {
                    assert!(
                        !body.contains(&format!("{op}.{t}")),
                        "{name} has a contractible {op}.{t}"
                    );
                }
                assert!(!body.contains("ex2.approx"), "{name} uses the approximate exponential");
            }
        }
    }
}

/// ch3-async's kernel: the accurate `sincosf` (no hardware sine), the squares and their sum
/// rounded one by one (never fused, so the simulator's result is the GPU's), an IEEE square root.
#[test]
fn async_kernel_rounds_explicitly() {
    for body in kernel_ptx("kernel") {
        for p in ["mul.rn.f32", "add.rn.f32", "sqrt.rn.f32"] {
            assert!(body.contains(p), "`kernel` lacks `{p}`");
        }
        assert!(
            !body.contains("sin.approx") && !body.contains("cos.approx"),
            "`kernel` uses the hardware sine"
        );
    }
}

#[test]
fn kernels_name_the_global_space_and_vectorise() {
    for body in kernel_ptx("stream_copy_f32") {
        assert!(
            body.contains("ld.global.f32") && body.contains("st.global.f32"),
            "stream_copy_f32 uses generic accesses"
        );
    }
    for body in kernel_ptx("stream_triad_vec4_f32") {
        assert!(
            body.contains("ld.global.v4.b32") && body.contains("st.global.v4.b32"),
            "stream_triad_vec4_f32 is not vectorised"
        );
    }
    for body in kernel_ptx("stream_triad_vec4_f64") {
        assert!(
            body.contains("ld.global.v2.b64") && body.contains("st.global.v2.b64"),
            "stream_triad_vec4_f64 is not vectorised"
        );
    }
}

/// The read-only variants of §3.2.3 read through `ld.global.nc` (the texture path), their twins
/// through plain `ld.global`; the increments of §3.2.2 name the global space.
#[test]
fn ch3_read_only_kernels_use_the_non_coherent_load() {
    for t in ["f32", "f64"] {
        for body in kernel_ptx(&format!("stride_tex_{t}")) {
            assert!(body.contains("ld.global.nc"), "stride_tex_{t} lacks ld.global.nc");
        }
        for body in kernel_ptx(&format!("stride_global_{t}")) {
            assert!(
                body.contains("ld.global.") && !body.contains("ld.global.nc"),
                "stride_global_{t} must read with plain global loads"
            );
        }
        for kernel in ["offset", "stride", "offset_out_of_place", "stride_out_of_place"] {
            for body in kernel_ptx(&format!("{kernel}_{t}")) {
                assert!(
                    body.contains(&format!("ld.global.{t}")) && body.contains(&format!("st.global.{t}")),
                    "{kernel}_{t} uses generic accesses"
                );
            }
        }
    }
    for (kernel, nc) in [
        ("average4", false),
        ("average8", false),
        ("average4_tex", true),
        ("average8_tex", true),
    ] {
        for body in kernel_ptx(kernel) {
            let loads = body.matches("ld.global.nc.b32").count();
            let needed = if kernel.starts_with("average8") { 8 } else { 4 };
            if nc {
                assert!(loads >= needed, "{kernel}: {loads} ld.global.nc loads, not {needed}");
            } else {
                assert_eq!(loads, 0, "{kernel} must read with plain global loads");
            }
        }
    }
}

/// The ILP copy issues its four loads before its first store (the book's load batching), in the
/// full-tile path that comes first in the PTX.
#[test]
fn ch3_ilp_copy_batches_its_loads() {
    for t in ["f32", "f64"] {
        for body in kernel_ptx(&format!("ilp_copy_{t}")) {
            let first_store = body.find("st.global").expect("ilp_copy stores");
            let loads_before = body[..first_store].matches(&format!("ld.global.{t}")).count();
            assert!(
                loads_before >= 4,
                "ilp_copy_{t}: {loads_before} loads before the first store"
            );
        }
    }
}

#[test]
fn device_primitives_lower_to_their_instructions() {
    let expect = |kernel: &str, patterns: &[&str]| {
        for body in kernel_ptx(kernel) {
            for p in patterns {
                assert!(body.contains(p), "`{kernel}` lacks `{p}`");
            }
        }
    };
    expect("probe_rounding_f32", &["fma.rn.f32", "mul.rn.f32", "add.rn.f32"]);
    expect("probe_rounding_f64", &["fma.rn.f64", "mul.rn.f64", "add.rn.f64"]);
    expect(
        "probe_warp",
        &[
            "shfl.sync.down.b32",
            "shfl.sync.up.b32",
            "shfl.sync.bfly.b32",
            "shfl.sync.idx.b32",
            "vote.sync.ballot.b32",
            "activemask.b32",
        ],
    );
    expect(
        "probe_atomics",
        &[
            "atom.add.s32",
            "atom.add.u32",
            "atom.add.u64",
            "atom.add.f32",
            "atom.add.f64",
            "atom.min.s32",
            "atom.max.u64",
            "atom.exch.b32",
            "atom.cas.b64",
            "bar.sync",
        ],
    );
    expect("probe_shared_reverse", &["bar.sync", "st.shared", "ld.shared"]);
    // The privatized histograms count with the shared-space atomic (a generic `atom` on shared
    // memory becomes a slower generic ATOM in SASS), all add to global memory without a reply
    // (`red`, as nvcc's unused `atomicAdd`); the 256-bin one reads 16 bytes per load.
    expect(
        "histo_privatized_kernel",
        &["atom.shared.add.u32", "red.global.add.u32"],
    );
    expect(
        "histo256_privatized",
        &["atom.shared.add.u32", "red.global.add.u32", "ld.global.v4.b32"],
    );
    expect("histo256_naive", &["red.global.add.u32", "ld.global.u8"]);
    expect("gsum1", &["bar.sync", "atom.add.f32"]);
    expect("reduction_improved", &["bar.sync", "ld.shared.b32", "st.shared.b32"]);
    expect("probe_tile_transpose", &["bar.sync", "st.shared", "ld.shared"]);
    expect(
        "probe_clock",
        &["%clock64", "%globaltimer", "membar.cta", "membar.gl", "membar.sys"],
    );
}

/// The pi kernels of §5.2: the CPU-faithful count rounds both squares (`mul.rn`, `add.rn`, no
/// `fma`), the FMA count fuses the second square into the sum; the written-out reductions use
/// shared memory and barriers, the lock a CAS spin, fences and volatile accesses (§5.3.1).
#[test]
fn pi_kernels_round_and_synchronise_as_written() {
    for precision in ["f32", "f64"] {
        for body in kernel_ptx(&format!("pi_count_{precision}")) {
            assert!(body.contains(&format!("mul.rn.{precision}")) && body.contains(&format!("add.rn.{precision}")));
            assert!(!body.contains("fma.rn"), "pi_count_{precision} fuses x*x + y*y");
        }
        for body in kernel_ptx(&format!("pi_count_fma_{precision}")) {
            assert!(
                body.contains(&format!("fma.rn.{precision}")),
                "pi_count_fma_{precision} lost its fma"
            );
        }
        for body in kernel_ptx(&format!("partial_sum_{precision}")) {
            assert!(body.contains("bar.sync") && body.contains("st.shared") && body.contains("ld.shared"));
        }
        for body in kernel_ptx(&format!("sum_{precision}")) {
            for p in [
                "atom.cas.b32",
                "atom.exch.b32",
                "membar.gl",
                "ld.volatile.global.b32",
                "st.volatile.global.b32",
            ] {
                assert!(body.contains(p), "`sum_{precision}` lacks `{p}`");
            }
        }
    }
}

/// Chapter 3's shared-memory kernels (§3.3.3, §3.4): the reversals and tile transposes stage
/// through shared memory behind a barrier, the copies and naive transposes touch no shared
/// memory, every global access names the global space, and the bank-conflict loop really reads
/// shared memory on each pass (eight reads, none hoisted out of the loop); the PGI `transpose3`
/// shares its block indices through shared memory, as the article's does.
#[test]
fn ch3_shared_memory_kernels_use_shared_memory_as_written() {
    let tiled = [
        "copy_shared_mem",
        "transpose_coalesced",
        "transpose_no_bank_conflicts",
        "transpose_diagonal",
        "transpose2",
        "transpose3",
        "gtranspose2",
    ];
    for kernel in tiled {
        for body in kernel_ptx(kernel) {
            for p in [
                "bar.sync",
                "ld.shared.b32",
                "st.shared.b32",
                "ld.global.f32",
                "st.global.f32",
            ] {
                assert!(body.contains(p), "`{kernel}` lacks `{p}`");
            }
            assert!(
                !body.contains("ld.f32") && !body.contains("st.f32"),
                "`{kernel}` uses generic accesses"
            );
        }
    }
    for kernel in ["simple_copy", "transpose_naive", "transpose1"] {
        for body in kernel_ptx(kernel) {
            assert!(
                body.contains("ld.global.f32") && body.contains("st.global.f32"),
                "`{kernel}`"
            );
            assert!(
                !body.contains(".shared") && !body.contains("bar.sync"),
                "`{kernel}` uses shared memory"
            );
        }
    }
    for kernel in [
        "static_reverse",
        "dynamic_reverse1",
        "dynamic_reverse2",
        "dynamic_reverse3",
    ] {
        for body in kernel_ptx(kernel) {
            for p in ["bar.sync", "ld.shared", "st.shared"] {
                assert!(body.contains(p), "`{kernel}` lacks `{p}`");
            }
        }
    }
    // transpose3 passes the block's tile indices from thread (0, 0) through shared memory, behind
    // a barrier of its own: two barriers, where the book's diagonal kernel has one.
    for (kernel, barriers) in [("transpose3", 2), ("transpose_diagonal", 1)] {
        for body in kernel_ptx(kernel) {
            assert_eq!(body.matches("bar.sync").count(), barriers, "`{kernel}` barriers");
        }
    }
    for body in kernel_ptx("bank_conflicts") {
        assert!(
            body.matches("ld.shared.b32").count() >= ch3::bank_conflicts::READS,
            "bank_conflicts reads shared memory fewer than {} times per pass",
            ch3::bank_conflicts::READS
        );
    }
}

/// A panic traps without formatting a message, so only the kernels that print reach
/// formatting code (`core::fmt`, through the device library's out-of-line `_print`).
#[test]
fn only_printing_kernels_link_formatting_code() {
    for module in modules() {
        for name in ptx::entry_points(module.ptx) {
            let body = ptx::entry_ptx(module.ptx, name).unwrap_or_default();
            let formats =
                body.contains("fmt") || reachable_functions(module.ptx, body).iter().any(|f| f.contains("fmt"));
            assert_eq!(
                formats,
                PRINTING_KERNELS.contains(&name),
                "`{name}` ({}): reaches formatting code",
                module.arch
            );
        }
    }
}

#[test]
fn resource_report_parses_ptxas_output() {
    let text = "ptxas info    : Compiling entry function 'increment' for 'sm_90'\n\
                ptxas info    : Function properties for increment\n\
                \x20   8 bytes stack frame, 4 bytes spill stores, 4 bytes spill loads\n\
                ptxas info    : Used 12 registers, used 0 barriers, 1024 bytes smem, 384 bytes cmem[0]\n";
    let report = ResourceReport::parse(text);
    assert_eq!(report.kernels.len(), 1);
    let k = &report.kernels[0];
    assert_eq!(
        (
            k.name.as_str(),
            k.registers,
            k.stack_frame_bytes,
            k.spill_store_bytes,
            k.spill_load_bytes,
            k.shared_bytes
        ),
        ("increment", 12, 8, 4, 4, 1024)
    );
}

#[test]
fn module_choice_follows_compute_capability() {
    let oldest = modules().iter().map(|m| m.compute_capability).min().unwrap_or(0);
    assert!(ptx::LIBRARY.for_compute_capability(oldest.saturating_sub(1)).is_none());
    assert_eq!(
        ptx::LIBRARY.for_compute_capability(200).map(|m| m.compute_capability),
        modules().iter().map(|m| m.compute_capability).max()
    );
}

/// The Philox kernels: 32-bit multiplies (`mul.hi.u32`, not a 64-bit product), 16-byte stores,
/// and normals whose every multiply and add is explicitly rounded (`fma.rn`, `mul.rn`,
/// `add.rn`, which ptxas never contracts), with IEEE `sqrt.rn`, no approximate function, and,
/// in `f32`, no division (the logarithm is a polynomial).
#[test]
fn philox_kernels_multiply_in_32_bits_and_round_explicitly() {
    for (t, store) in [("f32", "st.global.v4.b32"), ("f64", "st.global.v2.b64")] {
        for kernel in ["philox_uniform", "philox_normal"] {
            let name = format!("{kernel}_{t}");
            for body in kernel_ptx(&name) {
                for p in ["mul.hi.u32", store] {
                    assert!(body.contains(p), "`{name}` lacks `{p}`");
                }
                for op in ["mul", "add", "sub"] {
                    assert!(
                        !body.contains(&format!("{op}.{t}")),
                        "{name} has a contractible {op}.{t}"
                    );
                }
                assert!(!body.contains(".approx"), "{name} uses an approximate function");
            }
        }
        for body in kernel_ptx(&format!("philox_normal_{t}")) {
            for p in [format!("fma.rn.{t}"), format!("sqrt.rn.{t}")] {
                assert!(body.contains(&p), "`philox_normal_{t}` lacks `{p}`");
            }
        }
    }
    for body in kernel_ptx("philox_normal_f32") {
        assert!(!body.contains("div."), "philox_normal_f32 divides");
    }
}

/// ch3-localmem: the private array indexed at run time lives in a `.local` depot, the one with
/// constant indices in registers.
#[test]
fn localmem_large_array_keeps_its_1024_bytes_in_local_memory() {
    let bytes = ch3::localmem::LARGE_LEN * size_of::<f32>();
    for body in kernel_ptx("localmem_large_array") {
        let line = body
            .lines()
            .find(|l| l.contains("__local_depot") && l.contains(".local"));
        assert!(
            line.is_some_and(|l| l.contains(&format!("[{bytes}]"))),
            "localmem_large_array: no {bytes}-byte local depot ({line:?})"
        );
        assert!(body.contains("st.volatile.local") || body.contains("st.local"));
    }
}

#[test]
fn localmem_dynamic_uses_local_memory_and_registers_variant_does_not() {
    for body in kernel_ptx("localmem_dynamic") {
        assert!(
            body.contains(".local") && body.contains("ld.local"),
            "localmem_dynamic has no local array"
        );
    }
    for body in kernel_ptx("localmem_registers") {
        assert!(!body.contains(".local"), "localmem_registers uses local memory");
    }
}

/// ch3-constant-increment: each variant reads from its state space; the constant bank is a
/// visible `.const` variable the host can look up.
#[test]
fn constant_increment_reads_its_state_space() {
    for module in modules() {
        assert!(
            module
                .ptx
                .contains(".visible .const .align 16 .b8 ferrocuda_constant_bank[65536]"),
            "{}: no constant bank",
            module.arch
        );
    }
    let expect = |kernel: &str, present: &str, absent: &str| {
        for body in kernel_ptx(kernel) {
            assert!(body.contains(present), "`{kernel}` lacks `{present}`");
            assert!(!body.contains(absent), "`{kernel}` has `{absent}`");
        }
    };
    expect("increment_constant", "ld.const.b32", "ld.param.b32");
    expect("poly_constant", "ld.const.b32", ".local");
    expect("poly_param", "ld.param", ".local");
    expect("poly_global", "ld.global.f32", "ld.const");
    expect("increment_global", "ld.global.b32", "ld.const");
}

/// ch3-cuf-*: the CUF loop bodies stride over the grid (they read the grid's extent, so a fixed
/// or capped grid covers the range), the 2-D one along y as well, with no local memory.
#[test]
fn cuf_kernels_stride_over_the_grid() {
    for (kernel, extents) in [
        ("cuf_increment", &["%nctaid.x"][..]),
        ("cuf_increment_2d", &["%nctaid.x", "%nctaid.y"][..]),
    ] {
        for body in kernel_ptx(kernel) {
            for extent in extents {
                assert!(body.contains(extent), "`{kernel}` does not read `{extent}`");
            }
            assert!(
                body.contains("ld.global.b32") && body.contains("st.global.b32"),
                "`{kernel}`: no global access"
            );
            assert!(!body.contains(".local"), "`{kernel}` uses local memory");
        }
    }
}

/// ch3-intrinsics: the fast kernel uses the approximate instructions, the accurate one none of
/// them; the fused Horner has fma.rn and no separate mul/add, the unfused the reverse.
#[test]
fn intrinsics_lower_to_fast_or_accurate_instructions() {
    for body in kernel_ptx("intrinsics_fast") {
        for p in ["sin.approx", "ex2.approx", "div.approx"] {
            assert!(body.contains(p), "intrinsics_fast lacks `{p}`");
        }
    }
    for body in kernel_ptx("intrinsics_accurate") {
        for p in ["sin.approx", "ex2.approx", "div.approx"] {
            assert!(!body.contains(p), "intrinsics_accurate has `{p}`");
        }
        assert!(
            body.contains("div.rn.f32"),
            "intrinsics_accurate lost its IEEE division"
        );
    }
    for body in kernel_ptx("horner_fused") {
        assert!(body.contains("fma.rn.f32"), "horner_fused lost its fma");
        assert!(!body.contains("mul.rn.f32") && !body.contains("add.rn.f32"));
    }
    for body in kernel_ptx("horner_unfused") {
        assert!(!body.contains("fma.rn.f32"), "horner_unfused fuses");
        assert!(body.contains("mul.rn.f32") && body.contains("add.rn.f32"));
    }
}

/// ch3-offset-stride: the `_cg` stride kernels load with `ld.global.cg` (L2 only), the others
/// with plain `ld.global`.
#[test]
fn stride_cg_kernels_load_past_l1() {
    for t in ["f32", "f64"] {
        for kernel in ["stride_cg", "stride_out_of_place_cg"] {
            for body in kernel_ptx(&format!("{kernel}_{t}")) {
                assert!(body.contains("ld.global.cg."), "{kernel}_{t} lacks ld.global.cg");
            }
        }
        for body in kernel_ptx(&format!("stride_{t}")) {
            assert!(!body.contains("ld.global.cg."), "stride_{t} bypasses L1");
        }
    }
}

/// ch3-intrinsics: each rounding mode is its own instruction (`.rp` is CUDA's `_ru`, `.rm` its
/// `_rd`), and the flushing kernel has both the IEEE and the `.ftz` forms.
#[test]
fn directed_rounding_and_flush_use_their_instructions() {
    for t in ["f32", "f64"] {
        for body in kernel_ptx(&format!("directed_rounding_{t}")) {
            for op in ["add", "mul"] {
                for mode in ["rn", "rz", "rp", "rm"] {
                    let p = format!("{op}.{mode}.{t}");
                    assert!(body.contains(&p), "directed_rounding_{t} lacks `{p}`");
                }
            }
        }
    }
    for body in kernel_ptx("flush_to_zero") {
        for p in ["add.rn.f32", "add.rn.ftz.f32", "mul.rn.f32", "mul.rn.ftz.f32"] {
            assert!(body.contains(p), "flush_to_zero lacks `{p}`");
        }
    }
}

/// course-matmul-tiled: the tiled kernels use shared memory and barriers, the register-tiled
/// one 16-byte shared and global accesses, and every multiply-add is an fma.
#[test]
fn matmul_kernels_tile_and_vectorise() {
    for body in ["matmul_tiled", "matmul_tiled_32"].into_iter().flat_map(kernel_ptx) {
        assert!(body.contains("bar.sync") && body.contains("ld.shared.b32") && body.contains("st.shared.b32"));
        assert!(body.contains("fma.rn.f32"));
    }
    for name in ["matmul_register_tiled", "matmul_register_tiled_unrolled"] {
        for body in kernel_ptx(name) {
            for p in [
                "bar.sync",
                "ld.shared.v4",
                "st.shared.v4",
                "ld.global.v4.b32",
                "st.global.v4.b32",
            ] {
                assert!(body.contains(p), "`{name}` lacks `{p}`");
            }
            // The 8 x 8 block: 64 fmas per k step; all 8 steps of a tile when unrolled.
            let fmas = if name.ends_with("unrolled") { 8 * 64 } else { 64 };
            assert!(
                body.matches("fma.rn.f32").count() >= fmas,
                "`{name}` has fewer than {fmas} fmas"
            );
        }
    }
}

#[test]
fn fft_kernels_keep_their_values_in_registers_and_read_twiddles_non_coherently() {
    for name in ["fft_rows_f32", "fft_rows_f64"] {
        for body in kernel_ptx(name) {
            // The eight values of a thread stay in registers (`unroll!`), the passes meet at
            // barriers, the twiddle tables come through the read-only path, and each complex
            // element moves in one access (`b64` for f32 pairs, `v2.b64` for f64 pairs).
            assert!(!body.contains(".local"), "{name}: local memory");
            assert!(body.contains("bar.sync"), "{name}: no barrier");
            assert!(
                body.contains("ld.global.nc"),
                "{name}: twiddles not read through ld.global.nc"
            );
            let pair = if name.ends_with("f32") {
                "ld.global.b64"
            } else {
                "ld.global.v2.b64"
            };
            assert!(body.contains(pair), "{name}: no {pair}");
        }
    }
}

/// `ptx::linkage` reads what a linker needs from the directives rustc's NVPTX back end writes:
/// definitions (`.visible`), declarations (`.extern`), variable sizes; CUDA's system calls and
/// dynamic shared memory are not symbols to resolve.
#[test]
fn linkage_reads_definitions_and_declarations() {
    let text = ".version 7.8\n.target sm_90\n.address_size 64\n\n\
        .visible .const .align 16 .b8 ferrocuda_constant_bank[65536];\n\
        .extern .func negate_d\n()\n;\n\
        .extern .func  (.param .b32 func_retval0) vprintf\n(\n\t.param .b64 vprintf_param_0\n);\n\
        .visible .global .align 4 .b8 C_D[4];\n\
        .extern .global .align 4 .u32 D_D;\n\
        .visible .global .align 8 .f64 X_D = 0d3FF0000000000000;\n\
        .global .align 1 .b8 anon_$_1[3] = {1, 2, 3};\n\
        .extern .shared .align 16 .b8 gpu_launch_sized_workgroup_mem[];\n\
        .visible .func  (.param .b32 func_retval0) twice(\n\t.param .b32 twice_param_0\n)\n{\n}\n\
        .visible .entry c_minus_d(\n\t.param .align 4 .b8 c_minus_d_param_0[4]\n)\n{\n\tcall.uni negate_d, ();\n}\n";
    let linkage = ptx::linkage(text);
    assert_eq!(
        linkage.defined,
        ["ferrocuda_constant_bank", "C_D", "X_D", "twice", "c_minus_d"]
    );
    assert_eq!(linkage.declared, ["negate_d", "D_D"]);
    let sizes: Vec<(&str, usize, bool)> = linkage.variables.iter().map(|v| (v.name, v.bytes, v.defined)).collect();
    assert_eq!(
        sizes,
        [
            ("ferrocuda_constant_bank", 65536, true),
            ("C_D", 4, true),
            ("D_D", 4, false),
            ("X_D", 8, true)
        ]
    );
}

/// The embedded modules of separate compilation: c_m's only kernel calls d_m's function, whose
/// module has no kernel; every other set needs nothing from another.
#[test]
fn only_c_m_declares_symbols_of_another_set() {
    for set in ferrocuda_book::KERNEL_SETS {
        let declared = &set.linkage().declared;
        if set.name() == "c_m" {
            assert_eq!(declared, &["negate_d", "D_D"]);
        } else {
            assert!(declared.is_empty(), "`{}` declares {declared:?}", set.name());
        }
    }
}
