import Detectors
import Foundation
import Testing
import Tensor
@testable import PoseNet
import PoseCore
import FrameIO

/// Models built on one ``PoseNetWeights`` (frames in flight, the sizes of `--accurate`) read the
/// same weights but must compute exactly what models with their own copy compute, without
/// disturbing each other.
@Suite struct SharedWeightsTests {
    static let folder = SharedData.root.appendingPathComponent("reference/mobilenet075__coco_000000000785__257_os16")

    static func heads(_ model: PoseNetModel) -> [[Float]] {
        [model.heatmapScores.scalars, model.offsets.scalars, model.displacementsFwd.scalars, model.displacementsBwd.scalars]
    }

    @Test func sharedModelsMatchOwnCopiesBitForBitAndDoNotInterfere() throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let own = try PoseNetModel(bundle: bundle, inputSize: 257, outputStride: 16, threads: 1)
        let sharedA = try PoseNetModel(weights: own.weights, inputSize: 257, outputStride: 16, threads: 1)
        let sharedB = try PoseNetModel(weights: own.weights, inputSize: 257, outputStride: 16, threads: 1)
        #expect(sharedA.weights === own.weights && sharedB.weights === own.weights)

        try ReferenceInput.load(Self.folder.appendingPathComponent("input.ppm"), into: own.input)
        let image = own.input.scalars
        try own.run()
        let expected = Self.heads(own)

        // A runs the image; B then runs its mirror image on the same weights. A's heads must not
        // move, and B's must differ (else the test could not see a shared buffer).
        sharedA.input.withUnsafeMutableBufferPointer { p in _ = p.update(fromContentsOf: image) }
        try sharedA.run()
        let s = 257
        sharedB.input.withUnsafeMutableBufferPointer { p in
            for y in 0..<s { for x in 0..<s { for c in 0..<3 { p[(y * s + x) * 3 + c] = image[(y * s + (s - 1 - x)) * 3 + c] } } }
        }
        try sharedB.run()
        #expect(Self.heads(sharedA) == expected, "a shared model computes its own copy's heads bit for bit")
        #expect(Self.heads(sharedB)[0] != expected[0], "the other model ran a different image")

        // Then the image itself on B: the same heads again.
        sharedB.input.withUnsafeMutableBufferPointer { p in _ = p.update(fromContentsOf: image) }
        try sharedB.run()
        #expect(Self.heads(sharedB) == expected)
        #expect(own.flops == sharedB.flops)
    }

    @Test func otherSizesAndStridesShareTheWeightsToo() throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let weights = try PoseNetWeights(bundle: bundle)
        for (size, stride) in [(353, 8), (161, 16)] {
            let shared = try PoseNetModel(weights: weights, inputSize: size, outputStride: stride, threads: 2)
            let own = try PoseNetModel(bundle: bundle, inputSize: size, outputStride: stride, threads: 2)
            for model in [shared, own] {
                model.input.withUnsafeMutableBufferPointer { p in
                    for i in p.indices { p[i] = Float((i * 7919) % 255) / 127.5 - 1 }
                }
                try model.run()
            }
            #expect(shared.outputHeight == own.outputHeight && shared.outputHeight == (size + stride - 1) / stride)
            #expect(Self.heads(shared) == Self.heads(own), "size \(size), stride \(stride)")
        }
    }

    @Test func detectorsMadeForFramesInFlightShareWeightsAndSettings() throws {
        var configuration = PoseDetector.Configuration.default
        configuration.inputSize = 257
        configuration.threads = 2
        let detector = try PoseDetector(model: .mobilenet075, configuration: configuration)
        let worker: PoseDetector = try detector.sharingWeights(threads: 1)   // a detector, not `any PoseFinding`
        #expect(worker.model.weights === detector.model.weights)
        #expect(worker.model !== detector.model && worker.model.threads == 1)
        #expect(worker.model.inputSize == 257 && worker.decoding == detector.decoding && worker.geometry == detector.geometry)

        // Against a detector with its own weights on as many threads (OpenBLAS's GEMM, in the
        // portable build, sums in another order when the rows are split differently).
        configuration.threads = 1
        let own = try PoseDetector(model: .mobilenet075, configuration: configuration)
        let image = try RGBImage(contentsOfFile: Self.folder.appendingPathComponent("input.ppm").path)
        let poses = try worker.poses(in: image)
        #expect(!poses.isEmpty)
        #expect(try poses == own.poses(in: image))
    }

    @Test func weightsWithImpossibleBlockStridesAreRejected() throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        #expect(throws: PoseNetError.self) {
            try PoseNetWeights(lookup: { try bundle.tensor(named: $0) }, blockStrides: [2, 1, 2])
        }
        #expect(throws: PoseNetError.self) {
            try PoseNetWeights(lookup: { try bundle.tensor(named: $0) }, blockStrides: [Int](repeating: 3, count: 14))
        }
    }
}
