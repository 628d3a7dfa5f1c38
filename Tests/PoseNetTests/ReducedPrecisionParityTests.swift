import Foundation
import Testing
import Tensor
@testable import PoseNet
import PoseCore

/// PoseNet in each reduced precision this CPU runs, against the float64 reference heads of two
/// cases (`shared/reference/`), with the tolerance of each precision stated here; the fp32 bounds
/// are NetworkParityTests'. One weight load per precision, shared by both cases.
///
/// Tolerances, per precision, measured on the AVX-512 host of docs/speed.md and about doubled: bf16
/// rounds the operands of the widest pointwise layers and the heads to 8 significant bits (measured
/// worst: heatmap 0.011, heads 3.5 % of their range; means 0.0001 and 0.3 %); int8 quantizes them
/// (weights per channel, activations per pixel, 255 steps; measured worst: heatmap 0.069, heads 27 %
/// of their range, at cells of low heatmap score; means 0.0007 and 2 %: AP moves 0.002 on `images`,
/// 0.024 on `images-val`). The means are printed.
@Suite struct ReducedPrecisionParityTests {
    static let cases = ["mobilenet075__coco_000000196141__513_os16", "mobilenet075__coco_000000000785__257_os16"]

    /// Largest errors allowed: heatmap (after the sigmoid) absolute; offsets and displacements
    /// relative to the head's largest reference magnitude.
    static func tolerance(_ precision: Precision) -> (heatmap: Float, heads: Float) {
        switch precision {
        case .bf16: return (0.025, 0.07)
        case .int8: return (0.15, 0.4)
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
                relative.append(error.mean / error.largest)
            }
            print("reduced precision parity \(precision) \(name): heatmap worst \(heatmap.absolute) mean \(heatmap.mean), heads worst/mean relative \(relative)")
        }
    }

    /// The largest absolute difference from a float32 reference file, and the reference's largest magnitude.
    static func worstError(_ tensor: Tensor, _ url: URL) throws -> (absolute: Float, largest: Float, mean: Float) {
        let data = try Data(contentsOf: url)
        let reference: [Float] = data.withUnsafeBytes { raw in
            (0..<(raw.count / 4)).map { Float(bitPattern: UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 4 * $0, as: UInt32.self))) }
        }
        let ours = tensor.scalars
        #expect(ours.count == reference.count)
        var worst: Float = 0, total: Double = 0
        for (a, b) in zip(ours, reference) {
            worst = max(worst, abs(a - b).isNaN ? .infinity : abs(a - b))
            total += Double(abs(a - b))
        }
        return (worst, reference.map(abs).max() ?? 0, Float(total / Double(max(1, ours.count))))
    }
}
