import Testing
@testable import Tensor
import TestSupport

/// Skipping output rows and columns: which rows (columns) a window confines to a band
/// (geometry), how the computed rows map back to real rows, and kernels that leave skipped rows
/// alone and compute every other row and every column they keep exactly as a full call does.
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
                        // The same axis as columns: a geometry whose width is this one's height.
                        let sideways = try ConvolutionGeometry(inputHeight: 3, inputWidth: height, kernelHeight: 1, kernelWidth: kernel,
                                                               stride: stride, dilation: dilation, padding: padding)
                        #expect(sideways.outputColumns(readingOnly: band) == got)
                        #expect(sideways.inputColumns(readBy: got) == g.inputRows(readBy: got))
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
        for (kernel, isa) in gemmVariants {
            let packed = try PackedPointwiseWeights(weights: pw, bias: pwb, kernel: kernel, isa: isa)
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

    /// The columns a kernel keeps equal a full call's; the skipped ones are unspecified.
    static func expectKeptColumns(_ full: Tensor, _ skipping: Tensor, skipped: Range<Int>, exact: Bool, _ what: String) {
        let (height, width, channels) = (full.shape[0], full.shape[1], full.shape[2])
        let (want, got) = (full.scalars, skipping.scalars)
        var worst: Float = 0
        for y in 0..<height { for x in 0..<width where !skipped.contains(x) { for c in 0..<channels {
            let i = (y * width + x) * channels + c
            worst = max(worst, exact ? (got[i].bitPattern == want[i].bitPattern ? 0 : .infinity) : absoluteError(got[i], want[i]) / max(1, abs(want[i])))
        } } }
        #expect(worst <= 1e-5, "\(what): kept columns differ from the full call's (worst \(worst))")
    }

    @Test func kernelsComputeTheColumnsTheyKeep() throws {
        var rng = SeededGenerator(seed: 777)
        let workspace = ConvolutionWorkspace()
        // Separable: skipped columns in the middle, at the right and at the left; narrow skips the kernel may ignore.
        for (h, w, cin, cout, stride) in [(13, 40, 24, 48, 1), (11, 33, 16, 19, 2), (9, 17, 8, 40, 1)] {
            let x = randomTensor([h, w, cin], &rng, in: -2...2)
            let dw = randomTensor([3, 3, cin], &rng), dwb = randomTensor([cin], &rng)
            let pw = randomTensor([1, 1, cin, cout], &rng), pwb = randomTensor([cout], &rng)
            let (oh, ow) = ((h + stride - 1) / stride, (w + stride - 1) / stride)
            for (kernel, isa) in gemmVariants {
                let packed = try PackedPointwiseWeights(weights: pw, bias: pwb, kernel: kernel, isa: isa)
                for threads in [1, 2] {
                    let full = try Tensor(zeros: [oh, ow, cout])
                    try Convolution.separable(x, depthwiseWeights: dw, depthwiseBias: dwb, stride: stride, packed: packed,
                                              activation: .relu6, into: full, workspace: workspace, threads: threads)
                    for skipped in [3..<(ow - 2), (ow - 9)..<ow, 0..<8, 5..<8, 2..<(ow - 1)] {
                        let got = try Tensor(shape: full.shape, values: Array(repeating: .nan, count: full.count))
                        try Convolution.separable(x, depthwiseWeights: dw, depthwiseBias: dwb, stride: stride, packed: packed,
                                                  activation: .relu6, into: got, workspace: workspace, skippingRows: 1..<3,
                                                  skippingColumns: skipped, threads: threads)
                        // Rows 1 and 2 skipped too: fill them from the full call, then compare the kept columns.
                        let rowCount = ow * cout
                        got.withUnsafeMutableBufferPointer { g in full.withUnsafeBufferPointer { f in
                            for i in rowCount..<(3 * rowCount) { g[i] = f[i] }
                        } }
                        Self.expectKeptColumns(full, got, skipped: skipped, exact: kernel == .packed,
                                               "\(kernel) separable \(h)x\(w) s\(stride) skipping columns \(skipped) threads \(threads)")
                    }
                }
            }
        }
        // The 3×3 convolution with packed weights (block 0).
        let x = randomTensor([31, 45, 3], &rng)
        let weights = randomTensor([27, 24], &rng), bias = randomTensor([24], &rng)
        for (kernel, isa) in gemmVariants {
            let packed = try PackedPointwiseWeights(weights: weights, bias: bias, kernel: kernel, isa: isa)
            let full = try Tensor(zeros: [16, 23, 24])
            try Convolution.general(x, packed: packed, kernelHeight: 3, kernelWidth: 3, stride: 2, activation: .relu6, into: full)
            for skipped in [4..<20, 12..<23, 0..<3] {
                let got = try Tensor(shape: full.shape, values: Array(repeating: .nan, count: full.count))
                try Convolution.general(x, packed: packed, kernelHeight: 3, kernelWidth: 3, stride: 2, activation: .relu6,
                                        into: got, skippingColumns: skipped, threads: 2)
                Self.expectKeptColumns(full, got, skipped: skipped, exact: kernel == .packed, "\(kernel) general skipping columns \(skipped)")
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
            for (kernel, isa) in gemmVariants {
                let packed = try PackedPointwiseWeights(weights: try weights.reshaped([27, 24]), bias: bias, kernel: kernel, isa: isa)
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
