import Foundation
import Testing
import Tensor
@testable import PoseNet
import PoseCore

/// PoseNet in each reduced precision this CPU runs, against the float64 reference heads of two
/// cases (`shared/reference/`), with the tolerance of each precision stated here; the fp32 bounds
/// are NetworkParityTests'. One weight load per precision, shared by both cases.
///
/// Tolerances (measured on the AVX-512 host of docs/speed.md, then about doubled): bf16 rounds every
/// pointwise operand to 8 significant bits, int8 quantizes weights per channel and activations per
/// pixel to 255 steps; the errors accumulate over 13 layers.
@Suite struct ReducedPrecisionParityTests {
    static let cases = ["mobilenet075__coco_000000196141__513_os16", "mobilenet075__coco_000000000785__257_os16"]

    /// Largest errors allowed: heatmap (after the sigmoid) absolute; offsets and displacements
    /// relative to the head's largest reference magnitude.
    static func tolerance(_ precision: Precision) -> (heatmap: Float, heads: Float) {
        switch precision {
        case .bf16: return (0.02, 0.02)
        case .int8: return (0.05, 0.04)
        default: return (1e-4, 5e-4)
        }
    }

    @Test(arguments: [Precision.bf16, .int8])
    func headsMatchReferenceWithinThePrecisionsTolerance(_ precision: Precision) throws {
        guard precision.unavailability == nil else {
            // The CPU lacks it: the explicit request must be refused, in one line.
            #expect(throws: PrecisionUnavailable.self) { try PoseNetWeights(lookup: { _ in try Tensor(zeros: [1]) }, precision: precision) }
            return
        }
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let weights = try PoseNetWeights(bundle: bundle, precision: precision)
        #expect(weights.precision == precision)
        let (heatmapBound, headBound) = Self.tolerance(precision)
        for name in Self.cases {
            let folder = SharedData.root.appendingPathComponent("reference/\(name)")
            let size = name.contains("__513_") ? 513 : 257
            let model = try PoseNetModel(weights: weights, inputSize: size, outputStride: 16, threads: 2)
            try ReferenceInput.load(folder.appendingPathComponent("input.ppm"), into: model.input)
            try model.run()
            let heatmap = try Self.worstError(model.heatmapScores, folder.appendingPathComponent("heatmap.f32"))
            #expect(heatmap.absolute <= heatmapBound, "\(precision) \(name) heatmap: \(heatmap.absolute)")
            var relative: [Float] = []
            for (tensor, file) in [(model.offsets, "offsets.f32"), (model.displacementsFwd, "displacement_fwd.f32"),
                                   (model.displacementsBwd, "displacement_bwd.f32")] {
                let error = try Self.worstError(tensor, folder.appendingPathComponent(file))
                relative.append(error.absolute / error.largest)
                #expect(error.absolute <= headBound * error.largest, "\(precision) \(name) \(file): \(error.absolute) of \(error.largest)")
            }
            print("reduced precision parity \(precision) \(name): heatmap \(heatmap.absolute), heads relative \(relative)")
        }
    }

    /// The largest absolute difference from a float32 reference file, and the reference's largest magnitude.
    static func worstError(_ tensor: Tensor, _ url: URL) throws -> (absolute: Float, largest: Float) {
        let data = try Data(contentsOf: url)
        let reference: [Float] = data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
        let ours = tensor.scalars
        #expect(ours.count == reference.count)
        var worst: Float = 0
        for (a, b) in zip(ours, reference) { worst = max(worst, abs(a - b).isNaN ? .infinity : abs(a - b)) }
        return (worst, reference.map(abs).max() ?? 0)
    }
}
