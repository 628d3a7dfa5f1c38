import Foundation
import Testing
import Tensor
@testable import PoseNet
import TestSupport

/// ``PoseNetModel/skipsZeroChannels``: on a real photo, where ReLU6 leaves many channels zero
/// over whole tiles, the heads equal the full network's bit for bit (a skipped term adds a zero).
@Suite struct ZeroChannelSkippingTests {
    @Test func skippingGivesTheFullNetworksHeads() throws {
        let input = SharedData.root.appendingPathComponent("reference/mobilenet075__coco_000000000785__257_os16/input.ppm")
        for name in ["mobilenet075", "mobilenet050"] {
            let weights = try PoseNetWeights(bundle: try WeightBundle(contentsOf: try ModelLocator.resolve(name)))
            for (outputStride, threads) in [(16, 1), (16, 2), (8, 2)] {
                let skipping = try PoseNetModel(weights: weights, inputSize: 257, outputStride: outputStride, threads: threads)
                let full = try PoseNetModel(weights: weights, inputSize: 257, outputStride: outputStride, threads: threads)
                full.skipsZeroChannels = false
                #expect(skipping.skipsZeroChannels, "on by default")
                for model in [skipping, full] {
                    try ReferenceInput.load(input, into: model.input)
                    try model.run()
                }
                #expect(RepeatedBandTests.heads(skipping) == RepeatedBandTests.heads(full),
                        "\(name) output stride \(outputStride) threads \(threads)")
            }
        }
    }
}
