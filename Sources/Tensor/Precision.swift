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
///   non-negative pixels such as ReLU6 outputs), int32 sums (`vpdpbusd` with AVX512-VNNI or AVX-VNNI,
///   `vpmaddwd` on any other AVX2 CPU, `sdot` or `smull` on aarch64: ``ReducedPrecisionKernel``),
///   dequantized with the bias and activation as the tile is stored (float32 out).
/// - `auto`: ``automatic`` on this CPU.
///
/// Depthwise, the first (3×3) convolution and everything outside the 1×1 GEMMs stay float32.
/// docs/speed.md has each precision's speed and COCO AP.
public enum Precision: String, CaseIterable, Sendable {
    case fp32, bf16, int8, auto

    /// What `auto` runs: fp32, on every CPU class measured so far, accuracy first (docs/speed.md):
    /// int8 loses 0.024 COCO AP on `images-val` (more than the 0.005 allowed) with every int8 copy
    /// (they compute the same values); on the AVX-512 Xeon with VNNI and BF16 bf16 ran slower than
    /// fp32, and on AMD Zen 1 (AVX2, one integer multiply pipe) int8 is slower than fp32 as well.
    /// A CPU class where a reduced precision is measured within the bar and faster gets it here.
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
            let needs = self == .int8 ? "AVX2 (x86-64) or NEON (aarch64)" : "AVX512-BF16 (vdpbf16ps)"
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
///
/// Every int8 copy computes the same values (the same quantization, exact int32 sums, the same
/// float32 epilogue); they differ in speed only (docs/speed.md has each CPU class's figures).
public enum ReducedPrecisionKernel: String, CaseIterable, Sendable {
    /// int8, `vpdpbusd` on zmm: 12 pixels × 32 channels per tile.
    case int8AVX512VNNI = "int8-avx512vnni"
    /// int8, VEX `vpdpbusd` on ymm (AVX-VNNI, e.g. CPUs without AVX-512): 6 × 16.
    case int8AVXVNNI = "int8-avxvnni"
    /// int8 on any AVX2 CPU without VNNI (AMD Zen 1–3, Intel before Ice Lake and Alder Lake):
    /// `vpmaddwd` on activations and weights widened to 16 bits, 6 × 16. Exact like `vpdpbusd`
    /// (`vpmaddubsw` on 8-bit operands would saturate its 16-bit pair sums).
    case int8AVX2 = "int8-avx2"
    /// int8 on aarch64 with the dot-product extension (ARMv8.2+ `sdot`, e.g. Cortex-A76, Neoverse
    /// N1, Apple M1): 8 × 8.
    case int8NEONDot = "int8-neon-dot"
    /// int8 on any aarch64 (ARMv8.0, e.g. Cortex-A53/A72): `smull`/`smlal` into 16 bits, `sadalp`
    /// into 32: 4 × 8.
    case int8NEON = "int8-neon"
    /// bf16, `vdpbf16ps` on zmm: 12 × 32.
    case bf16AVX512 = "bf16-avx512"

    /// Narrows the choice to one copy (e.g. `int8-avx2` on a CPU that also has AVX512-VNNI), for
    /// measurements and tests; a copy this CPU lacks, or of another precision, is not used.
    public static let environmentVariable = "POSEKIT_REDUCED_KERNEL"

    /// The precision this copy computes.
    public var precision: Precision {
        switch self {
        case .int8AVX512VNNI, .int8AVXVNNI, .int8AVX2, .int8NEONDot, .int8NEON: return .int8
        case .bf16AVX512: return .bf16
        }
    }

    var requiredFeatures: Set<CPUFeature> {
        let avx512 = BuildTarget.avx512Features.union([.avx, .avx2, .fma])
        switch self {
        case .int8AVX512VNNI: return avx512.union([.avx512vnni])
        case .int8AVXVNNI: return [.avx, .avx2, .fma, .avxvnni]
        case .int8AVX2: return [.avx, .avx2, .fma]
        case .int8NEONDot: return [.neon, .asimddp]
        case .int8NEON: return [.neon]
        case .bf16AVX512: return avx512.union([.avx512bf16])
        }
    }

    /// The C side's number for an int8 copy (`POSEKIT_INT8_*`); nil for bf16.
    var int8Code: Int32? {
        switch self {
        case .int8AVX512VNNI: return Int32(POSEKIT_INT8_AVX512_VNNI)
        case .int8AVXVNNI: return Int32(POSEKIT_INT8_AVX_VNNI)
        case .int8AVX2: return Int32(POSEKIT_INT8_AVX2)
        case .int8NEONDot: return Int32(POSEKIT_INT8_NEON_DOT)
        case .int8NEON: return Int32(POSEKIT_INT8_NEON)
        case .bf16AVX512: return nil
        }
    }

    /// This int8 copy's table (tile shape, group, element width, functions); nil for bf16 or a copy
    /// this binary lacks.
    var int8Table: posekit_int8_gemm_kernel? { int8Code.flatMap { posekit_int8_gemm_kernel_for($0)?.pointee } }

    /// What an int8 copy stores for an activation level q (0...255): q − this (NEON's signed
    /// products take q − 128; the x86 copies q itself). The zero points are offset alike.
    var storedActivationOffset: Int {
        switch self {
        case .int8NEONDot, .int8NEON: return 128
        default: return 0
        }
    }

    /// Whether this binary has the copy (the x86 ones on x86-64, the NEON ones on aarch64).
    var isCompiled: Bool {
        if precision == .int8 { return int8Table != nil }
        return posekit_bf16_gemm_kernel_for(Int32(POSEKIT_BF16_AVX512)) != nil
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
        if let table = int8Table { return (table.tile_rows, table.vector_lanes) }
        let table = posekit_bf16_gemm_kernel_for(Int32(POSEKIT_BF16_AVX512))!.pointee
        return (table.tile_rows, table.vector_lanes)
    }

    /// Input channels one stored group holds (int8: 4, or 2 for 16-bit operands; bf16: 2) and the
    /// bytes of one stored activation or weight.
    var grouping: (channels: Int, bytes: Int) {
        if let table = int8Table { return (table.k_group, table.element_bytes) }
        return (2, 2)
    }

    /// How reports name it, e.g. `int8 VNNI AVX-512 12x32`.
    public var family: String {
        let shape = isCompiled ? tileShape : (rows: 0, lanes: 0)
        let name: String
        switch self {
        case .int8AVX512VNNI: name = "int8 VNNI AVX-512"
        case .int8AVXVNNI: name = "int8 AVX-VNNI"
        case .int8AVX2: name = "int8 AVX2 vpmaddwd"
        case .int8NEONDot: name = "int8 NEON sdot"
        case .int8NEON: name = "int8 NEON smull"
        case .bf16AVX512: name = "bf16 AVX512-BF16"
        }
        return "\(name) \(shape.rows)x\(2 * shape.lanes)"
    }
}
