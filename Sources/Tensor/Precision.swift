import CKernels
import CPUFeatures
import Foundation

/// The arithmetic of a network's 1×1 (pointwise) convolutions, most of a MobileNet's multiply-adds.
///
/// - `fp32`: float32 throughout (``PackedPointwiseWeights`` as packed).
/// - `bf16`: weights and activations rounded to bfloat16, products summed in float32
///   (`vdpbf16ps`, AVX512-BF16). No AMX: tiles are not used (no CPU PoseKit was measured on has them).
/// - `int8`: weights quantized once per output channel (scale `max|w|/127`), activations quantized
///   per pixel as each GEMM reads them (scale from the pixel's range, zero point 0 for
///   non-negative pixels such as ReLU6 outputs), int32 sums (`vpdpbusd`: AVX512-VNNI, or AVX-VNNI on
///   256-bit vectors), dequantized with the bias and activation as the tile is stored (float32 out).
/// - `auto`: ``automatic`` on this CPU.
///
/// Depthwise, the first (3×3) convolution and everything outside the 1×1 GEMMs stay float32.
/// docs/speed.md has each precision's speed and COCO AP.
public enum Precision: String, CaseIterable, Sendable {
    case fp32, bf16, int8, auto

    /// What `auto` runs: fp32, on every CPU measured so far, accuracy first (docs/speed.md): on
    /// the AVX-512 host with VNNI and BF16, int8 lost 0.024 COCO AP on `images-val` (more than the
    /// 0.005 allowed) and bf16 ran slower than fp32. A CPU where a reduced precision is measured
    /// within the bar and faster gets it here.
    public static var automatic: Precision { .fp32 }

    /// The precision this request runs here: `auto` resolved to ``automatic``, the others as they are.
    ///
    /// - Throws: ``PrecisionUnavailable`` when this CPU lacks the instructions of an explicit
    ///   `bf16` or `int8` (the message says which).
    public func resolved() throws -> Precision {
        if self == .auto { return Precision.automatic }
        if let problem = unavailability { throw PrecisionUnavailable(message: problem) }
        return self
    }

    /// Nil when this CPU (as `HostCPU.features` sees it) runs this precision, else one sentence saying why not.
    public var unavailability: String? {
        switch self {
        case .fp32, .auto: return nil
        case .bf16, .int8:
            if ReducedPrecisionKernel.preferred(for: self) != nil { return nil }
            let needs = self == .int8 ? "AVX512-VNNI or AVX-VNNI (vpdpbusd)" : "AVX512-BF16 (vdpbf16ps)"
            return "\(rawValue) precision needs \(needs); this CPU has \(HostCPU.level(of: HostCPU.features)) without it"
                + (HostCPU.isForced ? " (narrowed by \(HostCPU.forcedFeaturesVariable))" : "")
                + ": use fp32, or auto to take the best this CPU runs"
        }
    }
}

extension Precision {
    /// Input channels below which a 1×1 layer stays float32 in every precision: its dot products
    /// are too short to pay for quantizing (or rounding) the activations and the wider epilogue.
    /// Measured with the AVX512-VNNI copy, one core (docs/speed.md): K = 24 takes 2.6× fp32's time,
    /// K = 48 about the same, K = 96 0.7×, K = 384 0.3×.
    public static let minimumInputChannels = 64

    /// The precision a 1×1 layer with `inputChannels` runs in when the network asks for this one:
    /// this one, or `fp32` for a layer under ``minimumInputChannels``.
    public func forLayer(inputChannels: Int) -> Precision {
        inputChannels < Precision.minimumInputChannels ? .fp32 : self
    }
}

/// An explicit reduced precision on a CPU without its instructions; `localizedDescription` is the one line.
public struct PrecisionUnavailable: LocalizedError, Equatable, Sendable {
    public let message: String
    public var errorDescription: String? { message }
}

/// One compiled copy of a reduced-precision 1×1 GEMM (CKernels' posekit_reduced_precision.h).
public enum ReducedPrecisionKernel: String, CaseIterable, Sendable {
    /// int8, `vpdpbusd` on zmm: 12 pixels × 32 channels per tile.
    case int8AVX512VNNI = "int8-avx512vnni"
    /// int8, VEX `vpdpbusd` on ymm (AVX-VNNI, e.g. CPUs without AVX-512): 6 × 16.
    case int8AVXVNNI = "int8-avxvnni"
    /// bf16, `vdpbf16ps` on zmm: 12 × 32.
    case bf16AVX512 = "bf16-avx512"

    /// Narrows the choice to one copy (e.g. `int8-avxvnni` on a CPU that also has AVX512-VNNI), for
    /// measurements and tests; a copy this CPU lacks, or of another precision, is not used.
    public static let environmentVariable = "POSEKIT_REDUCED_KERNEL"

    /// The precision this copy computes.
    public var precision: Precision {
        switch self {
        case .int8AVX512VNNI, .int8AVXVNNI: return .int8
        case .bf16AVX512: return .bf16
        }
    }

    var requiredFeatures: Set<CPUFeature> {
        let avx512 = BuildTarget.avx512Features.union([.avx, .avx2, .fma])
        switch self {
        case .int8AVX512VNNI: return avx512.union([.avx512vnni])
        case .int8AVXVNNI: return [.avx, .avx2, .fma, .avxvnni]
        case .bf16AVX512: return avx512.union([.avx512bf16])
        }
    }

    /// Whether this binary has the copy (x86-64 only).
    var isCompiled: Bool {
        switch self {
        case .int8AVX512VNNI: return posekit_int8_gemm_kernel_for(Int32(POSEKIT_INT8_AVX512_VNNI)) != nil
        case .int8AVXVNNI: return posekit_int8_gemm_kernel_for(Int32(POSEKIT_INT8_AVX_VNNI)) != nil
        case .bf16AVX512: return posekit_bf16_gemm_kernel_for(Int32(POSEKIT_BF16_AVX512)) != nil
        }
    }

    /// The copies this binary has and this CPU runs, fastest first within each precision.
    public static let supported: [ReducedPrecisionKernel] = allCases.filter {
        $0.isCompiled && $0.requiredFeatures.isSubset(of: HostCPU.features)
    }

    /// The copy that computes `precision` here: the one ``environmentVariable`` names when it is
    /// supported and of that precision, else the first supported one; nil when none is.
    public static func preferred(for precision: Precision) -> ReducedPrecisionKernel? {
        if let forced = ProcessInfo.processInfo.environment[environmentVariable].flatMap(ReducedPrecisionKernel.init(rawValue:)),
           forced.precision == precision, supported.contains(forced) { return forced }
        return supported.first { $0.precision == precision }
    }

    /// A sentence when ``environmentVariable`` names no copy, or one this CPU or binary lacks.
    public static var environmentProblem: String? {
        guard let value = ProcessInfo.processInfo.environment[environmentVariable] else { return nil }
        guard let kernel = ReducedPrecisionKernel(rawValue: value) else {
            return "\(environmentVariable)=\(value) is not a reduced-precision kernel; use \(allCases.map(\.rawValue).joined(separator: ", "))"
        }
        guard supported.contains(kernel) else { return "\(environmentVariable)=\(value): this CPU lacks it" }
        return nil
    }

    /// Output pixels per tile and int32/float lanes per vector of this copy.
    var tileShape: (rows: Int, lanes: Int) {
        switch self {
        case .int8AVX512VNNI, .int8AVXVNNI:
            let table = posekit_int8_gemm_kernel_for(Int32(self == .int8AVX512VNNI ? POSEKIT_INT8_AVX512_VNNI : POSEKIT_INT8_AVX_VNNI))!.pointee
            return (table.tile_rows, table.vector_lanes)
        case .bf16AVX512:
            let table = posekit_bf16_gemm_kernel_for(Int32(POSEKIT_BF16_AVX512))!.pointee
            return (table.tile_rows, table.vector_lanes)
        }
    }

    /// How reports name it, e.g. `int8 VNNI AVX-512 12x32`.
    public var family: String {
        let shape = isCompiled ? tileShape : (rows: 0, lanes: 0)
        let name: String
        switch self {
        case .int8AVX512VNNI: name = "int8 VNNI AVX-512"
        case .int8AVXVNNI: name = "int8 AVX-VNNI"
        case .bf16AVX512: name = "bf16 AVX512-BF16"
        }
        return "\(name) \(shape.rows)x\(2 * shape.lanes)"
    }
}
