import Foundation
import Testing
import Tensor
@testable import PoseNet
import PoseCore
import FrameIO
import TestSupport

/// A network input with a band of equal rows or columns (a letterbox's padding) lets the model
/// compute one of the rows (columns) the band gives per layer (``PoseNetModel/skipsRepeatedBands``).
/// The heads must be the full network's, bit for bit where the GEMM rounds the same for every
/// row (PoseKit's own kernel); OpenBLAS's may round a row by where it falls in a call, so there
/// they must be within 1e-4 of each head's largest value.
@Suite struct RepeatedBandTests {
    static func heads(_ model: PoseNetModel) -> [[Float]] {
        [model.heatmapScores.scalars, model.offsets.scalars, model.displacementsFwd.scalars, model.displacementsBwd.scalars]
    }

    /// Input rows `rows` and columns `columns` one color, the rest a pattern whose rows and columns all differ.
    static func fill(_ input: Tensor, rows: Range<Int> = 0..<0, columns: Range<Int> = 0..<0, color: [Float] = [-1, 0.25, 0.5]) {
        let width = input.shape[1]
        input.withUnsafeMutableBufferPointer { p in
            for y in 0..<input.shape[0] { for x in 0..<width { for c in 0..<3 {
                let i = (y * width + x) * 3 + c
                p[i] = rows.contains(y) || columns.contains(x) ? color[c] : Float((i * 7919) % 255) / 127.5 - 1
            } } }
        }
    }

    static func expectSameHeads(_ skipping: PoseNetModel, _ full: PoseNetModel, _ what: String) {
        let (got, want) = (heads(skipping), heads(full))
        if GEMMKernel.preferred == .packed {
            #expect(got == want, "\(what): heads equal the full network's bit for bit")
        } else {
            // Relative to each head's largest value (offsets and displacements reach tens of
            // pixels): OpenBLAS's rounding differences stay within about 7e-6 of it here.
            for (a, b) in zip(got, want) {
                let scale = max(1, b.map(abs).max() ?? 0)
                let worst = zip(a, b).map { absoluteError($0, $1) }.max() ?? 0
                #expect(worst <= 1e-4 * scale, "\(what): heads within 1e-4 of the full network's largest value \(scale) (worst \(worst))")
            }
        }
    }

    @Test func skippingGivesTheFullNetworksHeads() throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let weights = try PoseNetWeights(bundle: bundle)
        // Letterbox bands of landscape (bottom rows) and portrait (right columns) frames, bands
        // at the top, at the left and in the middle, a one-row band (nothing to skip), and an
        // input that is all one color.
        let cases: [(size: Int, stride: Int, rows: Range<Int>, columns: Range<Int>)] = [
            (257, 16, 194..<257, 0..<0), (257, 16, 0..<0, 146..<257), (257, 16, 0..<70, 0..<0), (257, 16, 0..<0, 0..<90),
            (161, 8, 40..<120, 0..<0), (161, 8, 0..<0, 30..<130), (161, 16, 80..<81, 0..<0), (129, 16, 0..<129, 0..<0),
        ]
        for (size, stride, rows, columns) in cases {
            for threads in [1, 2] {
                let skipping = try PoseNetModel(weights: weights, inputSize: size, outputStride: stride, threads: threads)
                let full = try PoseNetModel(weights: weights, inputSize: size, outputStride: stride, threads: threads)
                full.skipsRepeatedBands = false
                #expect(skipping.skipsRepeatedBands, "on by default")
                // A full pass on a different image first, so that stale activations would show.
                for model in [skipping, full] {
                    Self.fill(model.input)
                    try model.run()
                    Self.fill(model.input, rows: rows, columns: columns)
                    try model.run()
                }
                Self.expectSameHeads(skipping, full, "\(size)/\(stride) rows \(rows) columns \(columns) threads \(threads)")
            }
        }
    }

    @Test func theBandFoundIsTheLongestRunOfRowsOrColumns() throws {
        let input = try Tensor(zeros: [12, 9, 3])
        Self.fill(input, rows: 3..<5, color: [0, 0, 0])
        input.withUnsafeMutableBufferPointer { p in for i in (8 * 27)..<(12 * 27) { p[i] = 0.5 } }
        var band = RepeatedBand(input: input)
        #expect(band.axis == .rows && band.equal == 8..<12)
        Self.fill(input)
        band = RepeatedBand(input: input)
        #expect(band.equal == nil)
        Self.fill(input, rows: 0..<12, color: [1, 1, 1])
        band = RepeatedBand(input: input)
        #expect(band.axis == .rows && band.equal == 0..<12)
        // Columns 5..<9 one color in every row; in row 0 also column 4 (a dark pixel at the
        // frame's edge), which the other rows narrow away.
        Self.fill(input, columns: 5..<9)
        input.withUnsafeMutableBufferPointer { p in for c in 0..<3 { p[4 * 3 + c] = [-1, 0.25, 0.5][c] } }
        band = RepeatedBand(input: input)
        #expect(band.axis == .columns && band.equal == 5..<9)
        #expect(RepeatedBand.longestColumnRun(in: input) == 5..<9)
        // A run broken in a middle row: the longest part that holds in every row.
        input.withUnsafeMutableBufferPointer { p in p[(6 * 9 + 6) * 3] = 0.75 }
        #expect(RepeatedBand.longestColumnRun(in: input) == 7..<9)
    }

    /// The frames people run: NetworkInputWriter pads a landscape frame with rows and a portrait
    /// one with columns that are equal bit for bit, so the model finds the band and gives the
    /// heads of the full network.
    @Test(arguments: [(640, 360), (360, 640)])
    func letterboxedFramesGiveABandAndTheSameHeads(_ frameSize: (Int, Int)) throws {
        let (width, height, size) = (frameSize.0, frameSize.1, 257)
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
        full.skipsRepeatedBands = false
        for model in [skipping, full] {
            model.input.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
            try model.run()
        }
        let band = RepeatedBand(input: skipping.input)
        let covered = Int((Float(min(width, height)) * min(writer.scaleX, writer.scaleY)).rounded(.up))
        #expect(band.axis == (width > height ? .rows : .columns))
        #expect(band.equal?.upperBound == size && (band.equal?.lowerBound ?? size) <= covered + 1,
                "the padding \(String(describing: band.equal)) is one band")
        Self.expectSameHeads(skipping, full, "letterboxed \(width)x\(height)")
    }
}
