import Testing
@testable import Tensor

@Suite struct GeometryTests {
    // Hand-checked against TF's SAME rule: out = ceil(in / s), pad = max((out-1)s + (k-1)d + 1 - in, 0).
    @Test(arguments: [
        // in, k, s, d, out, padBefore
        (513, 3, 2, 1, 257, 1),   // block 0 of PoseNet at 513: total pad 2
        (4, 3, 2, 1, 2, 0),       // total 1: the odd pixel goes after
        (5, 3, 2, 1, 3, 1),
        (33, 3, 1, 2, 33, 2),     // dilation 2: span 5
        (33, 3, 1, 4, 33, 4),     // dilation 4: span 9
        (1, 3, 1, 1, 1, 1),       // one pixel
        (2, 5, 1, 1, 2, 2),       // kernel larger than input: total 4, 2 before
        (6, 1, 2, 1, 3, 0),
    ] as [(Int, Int, Int, Int, Int, Int)])
    func samePadding(_ c: (Int, Int, Int, Int, Int, Int)) throws {
        let g = try ConvolutionGeometry(inputHeight: c.0, inputWidth: 7, kernelHeight: c.1, kernelWidth: 1,
                                        stride: c.2, dilation: c.3, padding: .same)
        #expect(g.outputHeight == c.4)
        let total = max((c.4 - 1) * c.2 + (c.1 - 1) * c.3 + 1 - c.0, 0)
        #expect(g.padTop == total / 2)
        #expect(g.padTop == c.5)
    }

    @Test func validPadding() throws {
        let g = try ConvolutionGeometry(inputHeight: 7, inputWidth: 8, kernelHeight: 3, kernelWidth: 3,
                                        stride: 2, dilation: 1, padding: .valid)
        #expect(g.outputHeight == 3 && g.outputWidth == 3 && g.padTop == 0 && g.padLeft == 0)
        #expect(throws: TensorError.self) {
            try ConvolutionGeometry(inputHeight: 4, inputWidth: 8, kernelHeight: 3, kernelWidth: 3,
                                    stride: 1, dilation: 2, padding: .valid)
        }
        #expect(throws: TensorError.self) {
            try ConvolutionGeometry(inputHeight: 4, inputWidth: 8, kernelHeight: 3, kernelWidth: 3, stride: 0)
        }
    }
}

@Suite struct BandingTests {
    @Test func bandRangesPartitionTheItems() {
        for count in [1, 2, 7, 33, 1089] {
            for bands in 1...5 where bands <= count {
                let ranges = (0..<bands).map { Parallelism.bandRange($0, of: bands, count: count) }
                #expect(ranges.first?.lowerBound == 0 && ranges.last?.upperBound == count)
                for (a, b) in zip(ranges, ranges.dropFirst()) { #expect(a.upperBound == b.lowerBound) }
                #expect(ranges.map(\.count).max()! - ranges.map(\.count).min()! <= 1)
            }
        }
    }

    @Test func gemmBandsCoverEveryRowWithinTheLimit() {
        for m in [1, 5, 64, 511, 512, 513, 1089, 16641, 66049] {
            for threads in 1...3 {
                let (rows, count) = Convolution.gemmBands(m: m, threads: threads, maxRows: 512)
                #expect(rows <= 512 && rows * count >= m && rows * (count - 1) < m, "m \(m) threads \(threads)")
                if m >= threads * 512 { #expect(count % threads == 0, "m \(m) threads \(threads): \(count) bands") }
            }
        }
    }
}
