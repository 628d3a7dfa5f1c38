import CPUFeatures
import Foundation

/// Which GEMM computes the pointwise (1×1), separable and packed general convolutions.
///
/// Chosen per weight set (``PackedPointwiseWeights/kernel``) when the weights are packed, from
/// ``preferred``: the network code is the same for every CPU and only the kernel differs (see
/// docs/dispatch.md).
public enum GEMMKernel: String, CaseIterable, Sendable {
    /// PoseKit's register-blocked microkernel over weights prepacked into panels
    /// (PackedPointwiseConvolution.swift). Fast only when Tensor is compiled for the CPU it runs
    /// on (a tuned build: AVX2+FMA or AVX-512 vectors); on the baseline it has no FMA.
    case packed
    /// OpenBLAS `sgemm` on the row-major weights, banded, with the bias and activation applied
    /// to each band in cache. OpenBLAS picks its kernels (AVX-512, AVX2, NEON, ...) from the CPU
    /// at run time, so a portable build gets the host's vector units for its GEMMs.
    case blas

    /// Overrides ``preferred`` (`packed` or `blas`), for measurements and tests.
    public static let environmentVariable = "POSEKIT_GEMM"

    /// The packed kernel in a tuned build (compiled for the host, which `posekit`'s CPU guard
    /// has checked), OpenBLAS in the portable build; ``environmentVariable`` overrides.
    public static let preferred: GEMMKernel = {
        if let forced = ProcessInfo.processInfo.environment[environmentVariable],
           let kernel = GEMMKernel(rawValue: forced) { return kernel }
        return BuildTarget.isTuned ? .packed : .blas
    }()

    /// A sentence when ``environmentVariable`` holds something other than a kernel's name.
    public static var environmentProblem: String? {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable],
              GEMMKernel(rawValue: value) == nil else { return nil }
        return "\(environmentVariable)=\(value) is not a GEMM kernel; use \(allCases.map(\.rawValue).joined(separator: " or "))"
    }

    /// What this kernel is in this build on this CPU, e.g. `OpenBLAS sgemm (Haswell kernels,
    /// chosen by OpenBLAS at run time)` or `PoseKit packed GEMM, 4x16 tile, 8-lane vectors (AVX2+FMA)`.
    public var description: String {
        switch self {
        case .blas: return "OpenBLAS sgemm (\(BLASThreads.coreName) kernels, chosen by OpenBLAS at run time)"
        case .packed: return "PoseKit packed GEMM, \(Convolution.packedKernelDescription)"
        }
    }
}
