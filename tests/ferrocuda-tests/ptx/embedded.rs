//! The embedded modules as a whole: each holds exactly its crate's kernels, every kernel's
//! parameter block has the size of its host-side `*Args` struct, the module chosen for a compute
//! capability, the symbols linked between sets, and ptxas's resource report parsed.
use super::{kernel_ptx, modules};
use book_kernels::{appc, ch1, ch2, ch3, ch5, course, racecheck, stream, tutorial};
use ferrocuda::kernels::{random, reduce, sor, transpose};
use ferrocuda::ptx::{self, ResourceReport};
use ferrocuda::{Kernel, KernelArgs};
use ferrocuda_testing::probe;

/// `(kernel crate, PTX symbol, size_of::<Args>())` for a launch handle and its argument type.
fn entry<K: Kernel<A>, A: KernelArgs>(_kernel: K) -> (&'static str, &'static str, usize) {
    (K::CRATE, K::NAME, size_of::<A>())
}

/// Every kernel the host can launch.
fn host_entries() -> Vec<(&'static str, &'static str, usize)> {
    use ch1::increment::IncrementArgs;
    use ch2::limiting_factor::{LimitingFactorArgs, MathArgs};
    use stream::{BinaryArgs, UnaryArgs};
    let mut entries = vec![
        entry::<_, IncrementArgs<'_>>(ch1::increment::Increment),
        entry::<_, IncrementArgs<'_>>(ch1::increment_multiblock::IncrementMultiblock),
        entry::<_, ch1::increment_2d::Increment2dArgs>(ch1::increment_2d::Increment2d),
        entry::<_, ch1::precision::PrecisionAxpyArgs<f32>>(ch1::precision::PrecisionAxpy),
        entry::<_, ch1::precision::PrecisionAxpyArgs<f64>>(ch1::precision::PrecisionAxpy),
        entry::<_, ch1::separate_compilation::a_m::APlusBArgs>(ch1::separate_compilation::a_m::APlusB),
        entry::<_, c_m::CMinusDArgs>(c_m::CMinusD),
        entry::<_, LimitingFactorArgs<'_>>(ch2::limiting_factor::Base),
        entry::<_, LimitingFactorArgs<'_>>(ch2::limiting_factor::BaseFast),
        entry::<_, LimitingFactorArgs<'_>>(ch2::limiting_factor::Memory),
        entry::<_, MathArgs<'_>>(ch2::limiting_factor::Math),
        entry::<_, MathArgs<'_>>(ch2::limiting_factor::MathFast),
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
        entry::<_, UnaryArgs<'_, f32>>(stream::StreamCopy),
        entry::<_, UnaryArgs<'_, f64>>(stream::StreamCopy),
        entry::<_, UnaryArgs<'_, f32>>(stream::StreamScale),
        entry::<_, UnaryArgs<'_, f64>>(stream::StreamScale),
        entry::<_, BinaryArgs<'_, f32>>(stream::StreamAdd),
        entry::<_, BinaryArgs<'_, f64>>(stream::StreamAdd),
        entry::<_, BinaryArgs<'_, f32>>(stream::StreamTriad),
        entry::<_, BinaryArgs<'_, f64>>(stream::StreamTriad),
        entry::<_, UnaryArgs<'_, f32>>(stream::StreamCopyVec4),
        entry::<_, UnaryArgs<'_, f64>>(stream::StreamCopyVec4),
        entry::<_, UnaryArgs<'_, f32>>(stream::StreamScaleVec4),
        entry::<_, UnaryArgs<'_, f64>>(stream::StreamScaleVec4),
        entry::<_, BinaryArgs<'_, f32>>(stream::StreamAddVec4),
        entry::<_, BinaryArgs<'_, f64>>(stream::StreamAddVec4),
        entry::<_, BinaryArgs<'_, f32>>(stream::StreamTriadVec4),
        entry::<_, BinaryArgs<'_, f64>>(stream::StreamTriadVec4),
        entry::<_, BinaryArgs<'_, f32>>(stream::StreamTriadFourPerThread),
        entry::<_, BinaryArgs<'_, f64>>(stream::StreamTriadFourPerThread),
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
        entry::<_, ch3::transpose::SectionTimedArgs>(ch3::transpose::Transpose3SectionTimed),
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
        entry::<_, course::histogram::HistoArgs>(course::histogram_tuned::Histo256Packed),
        entry::<_, course::matmul_tensor::Bf16MatmulArgs>(course::matmul_tensor::MatmulBf16Mma),
        entry::<_, course::matmul_tensor::Tf32MatmulArgs>(course::matmul_tensor::MatmulTf32Mma),
        entry::<_, course::matmul_tensor::MmaTileArgs>(course::matmul_tensor::MmaTileBf16),
        entry::<_, course::matmul_tensor::MmaTileArgs>(course::matmul_tensor::MmaTileTf32),
        entry::<_, course::matmul_tensor::Bf16MatmulArgs>(course::matmul_tensor_pipelined::MatmulBf16MmaPipelined),
        entry::<_, course::matmul_tensor::Tf32MatmulArgs>(course::matmul_tensor_pipelined::MatmulTf32MmaPipelined),
        entry::<_, course::matmul_tensor_pipelined::FragmentProbeArgs>(course::matmul_tensor_pipelined::FragmentProbe),
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
        entry::<_, course::equalise::HistogramArgs>(course::equalise::HistogramU8),
        entry::<_, course::equalise::EqualiseArgs>(course::equalise::EqualiseMap),
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
        entry::<_, probe::FloatMethodArgs<f32>>(probe::ProbeFloatMethods),
        entry::<_, probe::FloatMethodArgs<f64>>(probe::ProbeFloatMethods),
        entry::<_, probe::TwoOutputsArgs>(probe::ProbeTwoOutputs),
        entry::<_, probe::PrintArgs>(probe::ProbePrint),
        entry::<_, probe::TriadArgs>(probe::ProbeTriad),
        entry::<_, probe::atomics::AtomicOpsArgs>(probe::atomics::ProbeAtomicOps),
        entry::<_, probe::collective::ScanProbeArgs>(probe::collective::ProbeWarpScan),
        entry::<_, probe::collective::ScanProbeArgs>(probe::collective::ProbeBlockScan),
        entry::<_, ferrocuda::device::collective::grid::ScanArgs<u32>>(probe::collective::ProbeScanLastNonzero),
        entry::<_, ferrocuda::device::collective::grid::SelectArgs<u32, probe::collective::FlaggedOdd>>(
            probe::collective::ProbeSelectFlaggedOdd,
        ),
        entry::<_, probe::hopper::WgmmaProbeArgs<u16>>(probe::hopper::ProbeWgmmaBf16K64),
        entry::<_, probe::hopper::WgmmaProbeArgs<u16>>(probe::hopper::ProbeWgmmaBf16K32),
        entry::<_, probe::hopper::WgmmaProbeArgs<u16>>(probe::hopper::ProbeWgmmaBf16K16),
        entry::<_, probe::hopper::WgmmaProbeArgs<u16>>(probe::hopper::ProbeWgmmaF16K64),
        entry::<_, probe::hopper::WgmmaProbeArgs<f32>>(probe::hopper::ProbeWgmmaTf32K32),
        entry::<_, probe::hopper::RingArgs>(probe::hopper::ProbeMbarrierRing),
        entry::<_, probe::hopper::TensorCopyArgs>(probe::hopper::ProbeTensorCopy),
        entry::<_, transpose::CudaTransposeArgs>(transpose::CudaTranspose),
        entry::<_, transpose::CudaTransposeArgs>(transpose::TransposeWide),
        entry::<_, book_kernels::ch4::minimal::AssignArgs>(book_kernels::ch4::minimal::Assign),
    ];
    use sor::{ResidualArgs, SplitArgs, WindowArgs};
    macro_rules! sor {
        ($($t:ty),*) => {$(
            entries.push(entry::<_, WindowArgs<'_, $t>>(sor::RsorGm));
            entries.push(entry::<_, WindowArgs<'_, $t>>(sor::BsorGm));
            entries.push(entry::<_, WindowArgs<'_, $t>>(sor::RsorLintex));
            entries.push(entry::<_, WindowArgs<'_, $t>>(sor::BsorLintex));
            entries.push(entry::<_, SplitArgs<'_, $t>>(sor::SorSplit));
            entries.push(entry::<_, sor::TiledArgs<$t>>(sor::SorTiled));
            entries.push(entry::<_, ResidualArgs<'_, $t>>(sor::SorResidual));
            entries.push(entry::<_, ResidualArgs<'_, $t>>(sor::SorResidualSplit));
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
    use ferrocuda::device::collective::grid::ScanArgs;
    use ferrocuda::kernels::scan;
    macro_rules! scans {
        ($($t:ty => $sum:ident, $min:ident, $max:ident;)*) => {$(
            entries.push(entry::<_, ScanArgs<'_, $t>>(scan::$sum));
            entries.push(entry::<_, ScanArgs<'_, $t>>(scan::$min));
            entries.push(entry::<_, ScanArgs<'_, $t>>(scan::$max));
        )*};
    }
    scans! {
        i32 => ScanSum, ScanMin, ScanMax;
        u32 => ScanSum, ScanMin, ScanMax;
        f32 => ScanSum, ScanMin, ScanMax;
        u64 => ScanSumWide, ScanMinWide, ScanMaxWide;
        f64 => ScanSumWide, ScanMinWide, ScanMaxWide;
    }
    entries.push(entry::<_, scan::ScanInitArgs>(scan::ScanInit));
    use ferrocuda::device::collective::grid::{Flagged, SelectArgs, Within};
    use ferrocuda::kernels::select;
    macro_rules! selections {
        ($($t:ty),*) => {$(
            entries.push(entry::<_, SelectArgs<'_, $t, Flagged>>(select::SelectFlagged));
            entries.push(entry::<_, SelectArgs<'_, $t, Within<$t>>>(select::SelectWithin));
        )*};
    }
    selections!(i32, u32, f32, u64, f64);
    use ferrocuda::device::collective::grid::{RadixHistogramArgs, RadixPassArgs};
    use ferrocuda::kernels::sort;
    macro_rules! sorts {
        ($($t:ty => $pass:ident),*) => {$(
            entries.push(entry::<_, RadixHistogramArgs<'_, $t>>(sort::RadixHistogram));
            entries.push(entry::<_, RadixPassArgs<'_, $t>>(sort::$pass));
        )*};
    }
    sorts!(u32 => RadixPass, i32 => RadixPass, f32 => RadixPass, u64 => RadixPassWide, i64 => RadixPassWide, f64 => RadixPassWide);
    entries.push(entry::<_, sort::RadixInitArgs>(sort::RadixInit));
    use ferrocuda::kernels::histogram;
    entries.push(entry::<_, histogram::HistogramBytesArgs>(histogram::HistogramBytes));
    entries.push(entry::<_, histogram::HistogramClearArgs>(histogram::HistogramClear));
    entries.push(entry::<_, histogram::HistogramEvenArgs<'_, i32>>(
        histogram::HistogramEven,
    ));
    entries.push(entry::<_, histogram::HistogramEvenArgs<'_, u32>>(
        histogram::HistogramEven,
    ));
    entries.push(entry::<_, histogram::HistogramEvenArgs<'_, f32>>(
        histogram::HistogramEven,
    ));
    use ferrocuda::device::half::{Bf16, F16};
    use ferrocuda::kernels::gemm;
    entries.push(entry::<_, gemm::GemmArgs<'_, Bf16, 64>>(gemm::GemmBf16));
    entries.push(entry::<_, gemm::GemmArgs<'_, F16, 64>>(gemm::GemmF16));
    entries.push(entry::<_, gemm::GemmArgs<'_, f32, 32>>(gemm::GemmTf32));
    entries.push(entry::<_, gemm::GemmPackArgs<'_, Bf16>>(gemm::GemmPack));
    entries.push(entry::<_, gemm::GemmPackArgs<'_, F16>>(gemm::GemmPack));
    entries.push(entry::<_, gemm::GemmPackArgs<'_, f32>>(gemm::GemmPack));
    entries.push(entry::<_, gemm::GemmScaleArgs>(gemm::GemmScale));
    entries.push(entry::<_, ferrocuda::kernels::sgemm::SgemmArgs>(
        ferrocuda::kernels::sgemm::Sgemm,
    ));
    use book_kernels::ch6::{deriv as ch6_deriv, deriv_nonuniform as ch6_nonuniform};
    use ch6_deriv::DerivArgs;
    use ch6_nonuniform::DerivGlobalArgs;
    macro_rules! ch6_deriv {
        ($($t:ty),*) => {$(
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivX));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivX1sync));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivXLPencils));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivXMem));
            entries.push(entry::<_, ch6_deriv::DerivMathArgs<$t>>(ch6_deriv::DerivativeMath));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivY));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivYLPencils));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivZ));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivZLPencils));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivYMarch));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_deriv::DerivZMarch));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_nonuniform::DerivXNonuniformConstant));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_nonuniform::DerivXLPencilsNonuniformConstant));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_nonuniform::DerivYNonuniformConstant));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_nonuniform::DerivYLPencilsNonuniformConstant));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_nonuniform::DerivZNonuniformConstant));
            entries.push(entry::<_, DerivArgs<'_, $t>>(ch6_nonuniform::DerivZLPencilsNonuniformConstant));
            entries.push(entry::<_, DerivGlobalArgs<'_, $t>>(ch6_nonuniform::DerivXNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<'_, $t>>(ch6_nonuniform::DerivXLPencilsNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<'_, $t>>(ch6_nonuniform::DerivYNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<'_, $t>>(ch6_nonuniform::DerivYLPencilsNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<'_, $t>>(ch6_nonuniform::DerivZNonuniformGlobal));
            entries.push(entry::<_, DerivGlobalArgs<'_, $t>>(ch6_nonuniform::DerivZLPencilsNonuniformGlobal));
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

#[test]
fn module_choice_follows_compute_capability() {
    let oldest = modules().iter().map(|m| m.compute_capability).min().unwrap_or(0);
    assert!(ptx::LIBRARY.for_compute_capability(oldest.saturating_sub(1)).is_none());
    assert_eq!(
        ptx::LIBRARY.for_compute_capability(200).map(|m| m.compute_capability),
        modules().iter().map(|m| m.compute_capability).max()
    );
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

/// Launch bounds reach the PTX as directives of their entry points (`#[kernel(max_threads = 128,
/// min_blocks_per_sm = 10)]` on the 4-byte scans), and the globals that carried them are gone.
#[test]
fn launch_bounds_are_directives_of_their_entries() {
    let library: Vec<_> = modules()
        .into_iter()
        .filter(|m| m.ptx.contains(".entry scan_sum_f32("))
        .collect();
    assert!(!library.is_empty(), "no module defines scan_sum_f32");
    for module in library {
        let head = module
            .ptx
            .split(".entry scan_sum_f32(")
            .nth(1)
            .and_then(|rest| rest.split('{').next());
        let head = head.unwrap_or_default();
        assert!(
            head.contains(".maxntid 128, 1, 1") && head.contains(".minnctapersm 10"),
            "scan_sum_f32 lacks its launch bounds: {head}"
        );
        let wide = module
            .ptx
            .split(".entry scan_sum_wide_f64(")
            .nth(1)
            .and_then(|rest| rest.split('{').next());
        assert!(
            wide.is_some_and(|head| head.contains(".maxntid 128, 1, 1") && !head.contains(".minnctapersm")),
            "scan_sum_wide_f64 has other bounds than max_threads = 128"
        );
    }
    for module in modules() {
        assert!(
            !module.ptx.contains("__ferrocuda_launch_bounds_"),
            "a launch-bounds global was left in the PTX"
        );
    }
}
