import Foundation
import Testing
import Tensor
@testable import PoseNet
import PoseCore
import FrameIO

/// A network input with a band of equal rows (a letterbox's padding) lets the model compute one
/// of the rows the band gives per layer (``PoseNetModel/skipsRepeatedRows``). The heads must be
/// the full network's, bit for bit where the GEMM rounds the same for every row (PoseKit's own
/// kernel); OpenBLAS's may round a row by where it falls in a call, so there they must be close.
@Suite struct RepeatedRowsTests {
    static func heads(_ model: PoseNetModel) -> [[Float]] {
        [model.heatmapScores.scalars, model.offsets.scalars, model.displacementsFwd.scalars, model.displacementsBwd.scalars]
    }

    /// Input rows `band` one color (each row the same), the others a pattern whose rows all differ.
    static func fill(_ input: Tensor, band: Range<Int>, color: [Float]) {
        let width = input.shape[1]
        input.withUnsafeMutableBufferPointer { p in
            for y in 0..<input.shape[0] { for x in 0..<width { for c in 0..<3 {
                p[(y * width + x) * 3 + c] = band.contains(y) ? color[c] : Float((((y * width + x) * 3 + c) * 7919) % 255) / 127.5 - 1
            } } }
        }
    }

    static func expectSameHeads(_ skipping: PoseNetModel, _ full: PoseNetModel, _ what: String) {
        let (got, want) = (heads(skipping), heads(full))
        if GEMMKernel.preferred == .packed {
            #expect(got == want, "\(what): heads equal the full network's bit for bit")
        } else {
            for (a, b) in zip(got, want) {
                let worst = zip(a, b).map { abs($0 - $1) }.max() ?? 0
                #expect(worst <= 1e-4, "\(what): heads within 1e-4 of the full network's (worst \(worst))")
            }
        }
    }

    @Test func skippingGivesTheFullNetworksHeads() throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let weights = try PoseNetWeights(bundle: bundle)
        // Bottom letterbox (landscape frame), a band at the top and one in the middle, a
        // one-row band (nothing to skip), and an input that is all one color.
        let cases: [(size: Int, stride: Int, band: Range<Int>)] = [
            (257, 16, 194..<257), (257, 16, 0..<70), (161, 8, 40..<120), (161, 16, 80..<81), (129, 16, 0..<129),
        ]
        for (size, stride, band) in cases {
            for threads in [1, 2] {
                let skipping = try PoseNetModel(weights: weights, inputSize: size, outputStride: stride, threads: threads)
                let full = try PoseNetModel(weights: weights, inputSize: size, outputStride: stride, threads: threads)
                full.skipsRepeatedRows = false
                #expect(skipping.skipsRepeatedRows, "on by default")
                // A full pass on a different image first, so that stale activations would show.
                for model in [skipping, full] {
                    Self.fill(model.input, band: 0..<0, color: [])
                    try model.run()
                    Self.fill(model.input, band: band, color: [-1, 0.25, 0.5])
                    try model.run()
                }
                Self.expectSameHeads(skipping, full, "\(size)/\(stride) band \(band) threads \(threads)")
            }
        }
    }

    @Test func theEqualRowsFoundAreTheLongestRun() throws {
        let input = try Tensor(zeros: [12, 5, 3])
        Self.fill(input, band: 3..<5, color: [0, 0, 0])
        input.withUnsafeMutableBufferPointer { p in for i in (8 * 15)..<(12 * 15) { p[i] = 0.5 } }
        #expect(RepeatedRows.longestRun(in: input) == 8..<12)
        Self.fill(input, band: 0..<0, color: [])
        #expect(RepeatedRows.longestRun(in: input) == nil)
        Self.fill(input, band: 0..<12, color: [1, 1, 1])
        #expect(RepeatedRows.longestRun(in: input) == 0..<12)
    }

    /// The frames people run: NetworkInputWriter pads a landscape frame with rows that are equal
    /// bit for bit, so the model finds the band, and gives the heads of the full network.
    @Test func letterboxedFramesGiveABandAndTheSameHeads() throws {
        let (width, height, size) = (640, 360, 257)
        var frame = YUVFrame(format: YUVFormat(width: width, height: height, chroma: .c420mpeg2))
        var seed: UInt64 = 12345
        for i in frame.data.indices {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            frame.data[i] = UInt8(truncatingIfNeeded: seed >> 33)
        }
        let writer = try NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size)
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let skipping = try PoseNetModel(bundle: bundle, inputSize: size, outputStride: 16, threads: 1)
        let full = try PoseNetModel(weights: skipping.weights, inputSize: size, outputStride: 16, threads: 1)
        full.skipsRepeatedRows = false
        for model in [skipping, full] {
            model.input.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
            try model.run()
        }
        let band = try #require(RepeatedRows.longestRun(in: skipping.input))
        let contentRows = Int((Float(height) * writer.scaleY).rounded(.up))
        #expect(band.upperBound == size && band.lowerBound <= contentRows + 1, "the padding rows \(band) are equal")
        Self.expectSameHeads(skipping, full, "letterboxed \(width)x\(height)")
    }
}
