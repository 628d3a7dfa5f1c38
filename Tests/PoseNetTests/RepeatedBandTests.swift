import Foundation
import Testing
import Tensor
@testable import PoseNet
@testable import ModelGraph
import PoseCore
import FrameIO
import TestSupport

/// A network input with a band of equal rows or columns (a letterbox's padding, which the caller
/// passes: ``PoseNetModel/run(padding:)``) lets the model compute one of the rows (columns) the
/// band gives per layer. The heads must be the full network's, bit for bit where the GEMM rounds
/// the same for every row (PoseKit's own kernel); OpenBLAS's may round a row by where it falls in
/// a call, so there they must be within 1e-4 of each head's largest value.
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
            let differing = zip(got, want).map { a, b in zip(a, b).filter { $0.bitPattern != $1.bitPattern }.count }
            #expect(got.map(\.count) == want.map(\.count) && differing.allSatisfy { $0 == 0 },
                    "\(what): heads equal the full network's bit for bit (values differing per head: \(differing))")
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
        let cases: [(size: Int, stride: Int, band: PaddingBand)] = [
            (257, 16, PaddingBand(axis: .rows, range: 194..<257)), (257, 16, PaddingBand(axis: .columns, range: 146..<257)),
            (257, 16, PaddingBand(axis: .rows, range: 0..<70)), (257, 16, PaddingBand(axis: .columns, range: 0..<90)),
            (161, 8, PaddingBand(axis: .rows, range: 40..<120)), (161, 8, PaddingBand(axis: .columns, range: 30..<130)),
            (161, 16, PaddingBand(axis: .rows, range: 80..<81)), (129, 16, PaddingBand(axis: .rows, range: 0..<129)),
        ]
        for (size, stride, band) in cases {
            for threads in [1, 2] {
                let skipping = try PoseNetModel(weights: weights, inputSize: size, outputStride: stride, threads: threads)
                let full = try PoseNetModel(weights: weights, inputSize: size, outputStride: stride, threads: threads)
                // A full pass on a different image first, so that stale activations would show.
                for model in [skipping, full] {
                    Self.fill(model.input)
                    try model.run()
                    Self.fill(model.input, rows: band.axis == .rows ? band.range : 0..<0, columns: band.axis == .columns ? band.range : 0..<0)
                }
                try skipping.run(padding: band)
                try full.run()
                Self.expectSameHeads(skipping, full, "\(size)/\(stride) \(band) threads \(threads)")
            }
        }
    }

    /// A band must lie inside the input; an empty or one-row band skips nothing.
    @Test func bandsOutsideTheInputAreRejected() throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet050"))
        let model = try PoseNetModel(bundle: bundle, inputSize: 33, outputStride: 16, threads: 1)
        #expect(throws: PoseNetError.self) { try model.run(padding: PaddingBand(axis: .rows, range: 20..<34)) }
        #expect(throws: PoseNetError.self) { try model.run(padding: PaddingBand(axis: .columns, range: -1..<5)) }
        #expect(throws: PoseNetError.self) { try model.profile(padding: PaddingBand(axis: .columns, range: 0..<40)) }
        try model.run(padding: PaddingBand(axis: .rows, range: 33..<33))
        #expect(RepeatedBand(band: InputBand(axis: .rows, range: 5..<6)).equal == nil)
        #expect(RepeatedBand(band: InputBand(axis: .columns, range: 5..<7)).equal == 5..<7)
    }

    /// The frames people run, at the three usual sizes: the band `NetworkInputWriter` reports
    /// (bottom rows of a landscape frame, right columns of a portrait one) gives the heads of the
    /// full network, alone and with flip averaging (whose mirror image has the columns at the left).
    @Test(arguments: [(640, 480, 257), (360, 640, 257), (1280, 720, 353), (479, 641, 353), (641, 481, 513), (720, 1280, 513)])
    func writerBandsGiveTheSameHeads(_ width: Int, _ height: Int, _ size: Int) throws {
        var frame = YUVFrame(format: YUVFormat(width: width, height: height, chroma: .c420mpeg2))
        var seed: UInt64 = 12345
        for i in frame.data.indices {
            seed = seed &* 6364136223846793005 &+ 1442695040888963407
            frame.data[i] = UInt8(truncatingIfNeeded: seed >> 33)
        }
        let writer = try NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size)
        let band = try #require(writer.paddingBand)
        #expect(band.axis == (width > height ? .rows : .columns) && band.range.count > 50, "\(band)")
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let skipping = try PoseNetModel(bundle: bundle, inputSize: size, outputStride: 16, threads: 2)
        let full = try PoseNetModel(weights: skipping.weights, inputSize: size, outputStride: 16, threads: 2)
        for model in [skipping, full] { model.input.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) } }
        try skipping.run(padding: band)
        try full.run()
        Self.expectSameHeads(skipping, full, "letterboxed \(width)x\(height) at \(size)")
        try skipping.runWithFlipAveraging(padding: band)
        try full.runWithFlipAveraging()
        Self.expectSameHeads(skipping, full, "letterboxed \(width)x\(height) at \(size), flip averaging")
    }
}
