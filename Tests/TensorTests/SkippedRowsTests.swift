import Testing
@testable import Tensor

/// Skipping output rows: which rows a window confines to a band (geometry), how the computed
/// rows map back to real rows, and kernels that leave skipped rows alone and compute every other
/// row exactly as a full call does.
@Suite struct SkippedRowsTests {
    /// Brute force: the rows each output row's window reads.
    static func windowRows(_ g: ConvolutionGeometry, _ y: Int) -> ClosedRange<Int> {
        let top = y * g.stride - g.padTop
        return top...(top + (g.kernelHeight - 1) * g.dilation)
    }

    @Test func outputRowsReadingOnlyABandMatchBruteForce() throws {
        for height in [1, 2, 3, 7, 16, 17, 33] {
            for (kernel, stride, dilation) in [(3, 1, 1), (3, 2, 1), (3, 1, 2), (3, 1, 4), (1, 1, 1), (1, 2, 1), (5, 2, 1)] {
                for padding in [Padding.same, .valid] {
                    guard let g = try? ConvolutionGeometry(inputHeight: height, inputWidth: 4, kernelHeight: kernel, kernelWidth: kernel,
                                                           stride: stride, dilation: dilation, padding: padding) else { continue }
                    for low in -1...height { for high in low...(height + 1) {
                        let band = low..<high
                        let want = (0..<g.outputHeight).filter { y in
                            let rows = Self.windowRows(g, y)
                            return rows.lowerBound >= max(low, 0) && rows.upperBound < min(high, height)
                        }
                        let got = g.outputRows(readingOnly: band)
                        #expect(Array(got) == want, "\(g) band \(band)")
                        #expect(want.isEmpty || got == want.first!..<(want.last! + 1))
                    } }
                    for low in 0...g.outputHeight { for high in low...g.outputHeight {
                        let read = (low..<high).flatMap { Array(Self.windowRows(g, $0)) }.filter { $0 >= 0 && $0 < height }
                        let got = g.inputRows(readBy: low..<high)
                        #expect(read.isEmpty ? got.isEmpty : got == read.min()!..<(read.max()! + 1), "\(g) outputs \(low)..<\(high)")
                    } }
                }
            }
        }
    }

    @Test func computedRowsMapBackToRealRows() {
        for count in 0...9 { for low in -1...(count + 1) { for high in low...(count + 2) {
            let rows = SkippedRows(count: count, skipping: low..<high)
            let real = (0..<count).filter { !(low..<high).contains($0) }
            #expect(rows.computed == real.count)
            for a in 0...real.count { for b in a...real.count {
                var got: [Int] = [], runs = 0
                rows.forEachRun(a..<b) { run in
                    #expect(!run.isEmpty)
                    got += Array(run); runs += 1
                }
                #expect(got == Array(real[a..<b]), "count \(count) skipping \(low)..<\(high), computed \(a)..<\(b)")
                #expect(runs <= 2)
            } }
        } } }
    }

    /// Every row but the skipped ones equals a full call's (same kernel, same threads): bit for
    /// bit with PoseKit's packed GEMM, which rounds every row alike; within float rounding with
    /// OpenBLAS, whose kernels round a row by where it falls in a call. The skipped rows keep
    /// what they held.
    static func expectSkipped(_ full: Tensor, _ skipping: Tensor, rows skipped: Range<Int>, exact: Bool, _ what: String) {
        let rowCount = full.shape[1] * full.shape[2]
        let (want, got) = (full.scalars, skipping.scalars)
        for y in 0..<full.shape[0] {
            let row = (y * rowCount)..<((y + 1) * rowCount)
            if skipped.contains(y) {
                #expect(got[row].allSatisfy { $0.isNaN }, "\(what): skipped row \(y) was written")
            } else {
                let same = exact ? Array(got[row]) == Array(want[row])
                                 : zip(got[row], want[row]).allSatisfy { abs($0 - $1) <= 1e-5 * max(1, abs($1)) }
                #expect(same, "\(what): row \(y) differs from the full call's")
            }
        }
    }

    @Test(arguments: [(17, 9, 24, 48, 1, 1), (33, 7, 16, 40, 2, 1), (20, 6, 8, 19, 1, 2)] as [(Int, Int, Int, Int, Int, Int)])
    func separableLeavesSkippedRowsAndComputesTheRest(_ s: (Int, Int, Int, Int, Int, Int)) throws {
        var rng = SeededGenerator(seed: UInt64(s.0 * 977 + s.2 * 13 + s.4))
        let x = randomTensor([s.0, s.1, s.2], &rng, in: -2...2)
        let dw = randomTensor([3, 3, s.2], &rng), dwb = randomTensor([s.2], &rng)
        let pw = randomTensor([1, 1, s.2, s.3], &rng), pwb = randomTensor([s.3], &rng)
        let workspace = ConvolutionWorkspace()
        for kernel in GEMMKernel.allCases {
            let packed = try PackedPointwiseWeights(weights: pw, bias: pwb, kernel: kernel)
            let (outHeight, outWidth) = ((s.0 + s.4 - 1) / s.4, (s.1 + s.4 - 1) / s.4)
            for threads in [1, 2, 3] {
                let full = try Tensor(shape: [outHeight, outWidth, s.3], values: Array(repeating: .nan, count: outHeight * outWidth * s.3))
                try Convolution.separable(x, depthwiseWeights: dw, depthwiseBias: dwb, stride: s.4, dilation: s.5, packed: packed,
                                          activation: .relu6, into: full, workspace: workspace, threads: threads)
                for skipped in [1..<2, 2..<(outHeight - 1), 0..<outHeight, (outHeight - 3)..<outHeight, 4..<4] {
                    let got = try Tensor(shape: full.shape, values: Array(repeating: .nan, count: full.count))
                    try Convolution.separable(x, depthwiseWeights: dw, depthwiseBias: dwb, stride: s.4, dilation: s.5, packed: packed,
                                              activation: .relu6, into: got, workspace: workspace, skippingRows: skipped,
                                              threads: threads)
                    Self.expectSkipped(full, got, rows: skipped, exact: kernel == .packed, "\(kernel) separable \(s) skipping \(skipped) threads=\(threads)")
                }
            }
        }
    }

    @Test func generalLeavesSkippedRowsAndComputesTheRest() throws {
        var rng = SeededGenerator(seed: 4242)
        for (h, w, stride, dilation) in [(31, 12, 2, 1), (16, 9, 1, 1), (19, 10, 1, 2)] {
            let x = randomTensor([h, w, 3], &rng)
            let weights = randomTensor([3, 3, 3, 24], &rng), bias = randomTensor([24], &rng)
            let g = try ConvolutionGeometry(inputHeight: h, inputWidth: w, kernelHeight: 3, kernelWidth: 3,
                                            stride: stride, dilation: dilation)
            for kernel in GEMMKernel.allCases {
                let packed = try PackedPointwiseWeights(weights: try weights.reshaped([27, 24]), bias: bias, kernel: kernel)
                for threads in [1, 2] {
                    let shape = [g.outputHeight, g.outputWidth, 24]
                    let full = try Tensor(shape: shape, values: Array(repeating: .nan, count: shape.reduce(1, *)))
                    try Convolution.general(x, packed: packed, kernelHeight: 3, kernelWidth: 3, stride: stride, dilation: dilation,
                                            activation: .relu6, into: full, threads: threads)
                    for skipped in [3..<g.outputHeight - 2, 0..<1, 0..<g.outputHeight] {
                        let got = try Tensor(shape: shape, values: Array(repeating: .nan, count: full.count))
                        try Convolution.general(x, packed: packed, kernelHeight: 3, kernelWidth: 3, stride: stride, dilation: dilation,
                                                activation: .relu6, into: got, skippingRows: skipped, threads: threads)
                        Self.expectSkipped(full, got, rows: skipped, exact: kernel == .packed, "\(kernel) general \(h)x\(w) s\(stride) d\(dilation) skipping \(skipped)")
                    }
                }
            }
        }
    }
}
