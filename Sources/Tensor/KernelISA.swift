import CKernels
import CPUFeatures
import Foundation

/// The instruction set PoseKit's own kernels run with, chosen at run time from CPUID.
///
/// Every build carries each kernel compiled several times (the C target `CKernels`, one copy per
/// instruction set through `__attribute__((target(...)))`, so the package needs no build flags):
/// the best copy this CPU runs is ``preferred``, whatever the build's `POSEKIT_TARGET_CPU`
/// (docs/dispatch.md). Weights are packed for one of them (``PackedPointwiseWeights/isa``).
public enum KernelISA: String, CaseIterable, Comparable, Sendable {
    /// The architecture's baseline: SSE2 on x86-64 (no FMA), NEON on aarch64.
    case baseline
    /// AVX2 with FMA (x86-64-v3): 8-lane vectors.
    case avx2
    /// AVX-512 F/BW/DQ/VL: 16-lane vectors, 32 registers.
    case avx512

    public static func < (a: KernelISA, b: KernelISA) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    /// Narrows ``preferred`` to a lower instruction set (`baseline`, `avx2`, `avx512`), for
    /// measurements and tests. A name that is no instruction set is refused
    /// (``environmentProblem``); one this CPU or binary lacks falls back to the best it has
    /// (``environmentFallback``), as the library always did: a variable set for a whole fleet must
    /// not stop the servers that lack the instruction set it names.
    public static let environmentVariable = "POSEKIT_KERNEL_ISA"

    /// The CPU features a copy needs (`HostCPU.features`, which `POSEKIT_FORCE_CPU_FEATURES` narrows).
    var requiredFeatures: Set<CPUFeature> {
        switch self {
        case .baseline: return []
        case .avx2: return [.avx, .avx2, .fma]
        case .avx512: return BuildTarget.avx512Features.union([.avx, .avx2, .fma])
        }
    }

    /// The instruction sets this binary has a copy for and this CPU runs, lowest first.
    public static let supported: [KernelISA] = allCases.filter {
        posekit_packed_gemm_kernel_for($0.code) != nil && $0.requiredFeatures.isSubset(of: HostCPU.features)
    }

    /// The best of ``supported``, or the one ``environmentVariable`` names when the CPU runs it.
    public static let preferred: KernelISA = {
        if let forced = ProcessInfo.processInfo.environment[environmentVariable],
           let isa = KernelISA(rawValue: forced), supported.contains(isa) { return isa }
        return supported.last ?? .baseline
    }()

    /// What a value of ``environmentVariable`` does, when it does not simply narrow the choice.
    public enum EnvironmentOutcome: Equatable, Sendable {
        /// Not an instruction set's name (a typo): `posekit` refuses to start (one error line, exit 1).
        case invalid(String)
        /// An instruction set the CPU or binary lacks: the kernels run the best one it has
        /// (``preferred``); `posekit` says so in one warning line and goes on.
        case fallback(String)
    }

    /// The outcome of `value` (nil: unset) on a CPU that runs `supported` (lowest first); nil when
    /// it is unset or honoured.
    public static func environmentOutcome(of value: String?, supported: [KernelISA]) -> EnvironmentOutcome? {
        guard let value else { return nil }
        guard let isa = KernelISA(rawValue: value) else {
            return .invalid("\(environmentVariable)=\(value) is not an instruction set; use \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        guard supported.contains(isa) else {
            return .fallback("\(environmentVariable)=\(value): this CPU lacks \(isa.name); using \((supported.last ?? .baseline).name)")
        }
        return nil
    }

    /// A sentence when ``environmentVariable`` names no instruction set (`posekit` exits 1 on it).
    public static var environmentProblem: String? {
        guard case .invalid(let sentence) = environmentOutcome(of: ProcessInfo.processInfo.environment[environmentVariable], supported: supported) else { return nil }
        return sentence
    }

    /// A sentence when ``environmentVariable`` names an instruction set this CPU or binary lacks:
    /// the kernels run ``preferred`` instead (`posekit` prints it as a warning and runs).
    public static var environmentFallback: String? {
        guard case .fallback(let sentence) = environmentOutcome(of: ProcessInfo.processInfo.environment[environmentVariable], supported: supported) else { return nil }
        return sentence
    }

    /// How people name it: "AVX-512", "AVX2+FMA", "SSE2" or "NEON".
    public var name: String {
        switch self {
        case .avx512: return "AVX-512"
        case .avx2: return "AVX2+FMA"
        case .baseline:
            #if arch(arm64)
            return "NEON"
            #else
            return "SSE2"
            #endif
        }
    }

    /// The C side's number for this instruction set (`POSEKIT_ISA_*`).
    var code: Int32 {
        switch self {
        case .baseline: return Int32(POSEKIT_ISA_BASELINE)
        case .avx2: return Int32(POSEKIT_ISA_AVX2)
        case .avx512: return Int32(POSEKIT_ISA_AVX512)
        }
    }

    /// This instruction set's depthwise 3×3 interior sweep (CKernels). Only for ``supported`` ones.
    var depthwiseInterior: posekit_depthwise_interior_fn {
        switch self {
        case .baseline: return Self.depthwiseInteriors[0]
        case .avx2: return Self.depthwiseInteriors[1]
        case .avx512: return Self.depthwiseInteriors[2]
        }
    }

    /// The interior sweeps in ``allCases`` order; a copy this binary lacks is the baseline's (never
    /// called: ``supported`` excludes it).
    private static let depthwiseInteriors: [posekit_depthwise_interior_fn] = allCases.map {
        (posekit_depthwise_kernel_for($0.code) ?? posekit_depthwise_kernel_for(Int32(POSEKIT_ISA_BASELINE)))!.pointee.interior!
    }

    /// This instruction set's few-channel convolution (dot products over windows, CKernels). Only
    /// for ``supported`` ones.
    var windowDot: posekit_window_dot_fn {
        Self.windowDots[Self.allCases.firstIndex(of: self)!]
    }

    /// The window dot products in ``allCases`` order; a copy this binary lacks is the baseline's
    /// (never called: ``supported`` excludes it).
    private static let windowDots: [posekit_window_dot_fn] = allCases.map {
        (posekit_window_dot_kernel_for($0.code) ?? posekit_window_dot_kernel_for(Int32(POSEKIT_ISA_BASELINE)))!.pointee.window_dot!
    }

    /// This instruction set's packed GEMM microkernel. Only for ``supported`` ones.
    var packedGEMM: PackedMicrokernel {
        switch self {
        case .baseline: return PackedMicrokernel.baseline
        case .avx2: return PackedMicrokernel.avx2
        case .avx512: return PackedMicrokernel.avx512
        }
    }
}

/// One instruction set's copy of the packed GEMM microkernel (CKernels' `posekit_packed_gemm_kernel`):
/// its tile shape and its two entry points.
struct PackedMicrokernel: @unchecked Sendable {
    /// Output pixels one call computes (6 with 16 vector registers, 8 with 32).
    let tileRows: Int
    /// Lanes of one vector; a full panel is two vectors.
    let vectorLanes: Int
    let rowTile: posekit_row_tile_fn
    let compactedRowTile: posekit_compacted_row_tile_fn

    /// Output channels of a full weight panel.
    var panelWidth: Int { 2 * vectorLanes }

    init(_ isa: KernelISA) {
        // A copy this binary lacks falls back to the baseline's (never called: `supported` excludes it).
        let table = (posekit_packed_gemm_kernel_for(isa.code) ?? posekit_packed_gemm_kernel_for(Int32(POSEKIT_ISA_BASELINE)))!.pointee
        tileRows = table.tile_rows
        vectorLanes = table.vector_lanes
        rowTile = table.row_tile!
        compactedRowTile = table.compacted_row_tile!
    }

    static let baseline = PackedMicrokernel(.baseline)
    static let avx2 = PackedMicrokernel(.avx2)
    static let avx512 = PackedMicrokernel(.avx512)
}

extension PackedPointwiseWeights {
    /// Which kernel family multiplies these weights, for reports: e.g. `packed GEMM AVX-512 8x32`,
    /// `OpenBLAS sgemm (Prescott)` or, in a reduced precision, `int8 VNNI AVX-512 12x32`.
    public var kernelFamily: String {
        if let reduced { return reduced.kernel.family }
        switch kernel {
        case .packed: return "packed GEMM \(isa.name) \(tileRows)x\(panelWidth)"
        case .blas: return "OpenBLAS sgemm (\(BLASThreads.coreName))"
        }
    }
}

extension Convolution {
    /// The depthwise 3×3 kernel's family, for reports: the interior sweep of the preferred
    /// instruction set (CKernels), e.g. `depthwise AVX-512`; the border pixels are Swift SIMD.
    public static var depthwiseKernelFamily: String { "depthwise \(KernelISA.preferred.name)" }
}
