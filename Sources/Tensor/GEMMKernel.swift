import Foundation

/// Which GEMM computes the pointwise (1×1), separable and packed general convolutions.
///
/// Chosen per weight set (``PackedPointwiseWeights/kernel``) when the weights are packed, from
/// ``preferred``: the network code is the same for every CPU and only the kernel differs (see
/// docs/dispatch.md).
public enum GEMMKernel: String, CaseIterable, Sendable {
    /// PoseKit's register-blocked microkernel over weights prepacked into panels
    /// (PackedPointwiseConvolution.swift), in the copy for the best instruction set this CPU has
    /// (``KernelISA``: AVX-512, AVX2+FMA or the baseline), in every build.
    case packed
    /// OpenBLAS `sgemm` on the row-major weights, banded, with the bias and activation applied
    /// to each band in cache. OpenBLAS picks its kernels from its own table of CPUs, and runs its
    /// SSE3 (Prescott) kernels on one it does not know.
    case blas

    /// Overrides ``preferred`` (`packed` or `blas`), for measurements and tests.
    public static let environmentVariable = "POSEKIT_GEMM"

    /// The packed kernel in every build; ``environmentVariable`` overrides. Chosen for one code
    /// path that does not depend on OpenBLAS's table of CPUs, not for being faster everywhere.
    /// Measured (docs/dispatch.md, one 4356×384×384 product, 1 thread, loaded host): the AVX-512
    /// copy 63–93 GFLOP/s against OpenBLAS's SkylakeX kernels' 93 (at best on par), the AVX2 copy
    /// 41 against the 22 of the Prescott kernels OpenBLAS runs on this CPU by itself, the baseline
    /// copy 19 against those 22 (on par on an SSE2-only CPU, not faster).
    public static let preferred: GEMMKernel = {
        if let forced = ProcessInfo.processInfo.environment[environmentVariable],
           let kernel = GEMMKernel(rawValue: forced) { return kernel }
        return .packed
    }()

    /// A sentence when ``environmentVariable`` holds something other than a kernel's name.
    public static var environmentProblem: String? {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable],
              GEMMKernel(rawValue: value) == nil else { return nil }
        return "\(environmentVariable)=\(value) is not a GEMM kernel; use \(allCases.map(\.rawValue).joined(separator: " or "))"
    }

    /// What this kernel is on this CPU, e.g. `OpenBLAS sgemm (Haswell kernels, chosen by OpenBLAS
    /// at run time)` or `PoseKit packed GEMM, 6x16 tile, 8-lane vectors (AVX2+FMA)`.
    public var description: String {
        switch self {
        case .blas: return "OpenBLAS sgemm (\(BLASThreads.coreName) kernels, chosen by OpenBLAS at run time)"
        case .packed: return "PoseKit packed GEMM, \(Convolution.packedKernelDescription)"
        }
    }
}
