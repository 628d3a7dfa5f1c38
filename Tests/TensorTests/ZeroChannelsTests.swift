import KernelBenchmarks
import Testing
@testable import Tensor
import TestSupport

/// Skipping zero channels (ZeroChannels.swift): the packed GEMM leaves out a tile's input
/// channels that are zero in all its pixels. The result must equal the full product exactly
/// (a skipped term adds a zero) and the naive reference within rounding.
@Suite struct ZeroChannelsTests {
    /// An activation as ReLU6 leaves them: some channels zero in every pixel, others zero over
    /// runs of pixels, pixels 6..<18 zero in every channel (a whole tile at every tile height),
    /// zeros of both signs, the rest in (0, 6].
    static func sparseActivation(_ shape: [Int], _ rng: inout SeededGenerator) -> Tensor {
        let (pixels, channels) = (shape[0] * shape[1], shape[2])
        let deadChannel = (0..<channels).map { _ in Float.random(in: 0...1, using: &rng) < 0.2 }
        var values = [Float](repeating: 0, count: pixels * channels)
        for p in 0..<pixels {
            for c in 0..<channels {
                let value = Float.random(in: -3...6, using: &rng)
                let zeroRun = (p / 2 + c) % 3 == 0
                let zero = deadChannel[c] || (6..<18).contains(p) || zeroRun || value <= 0
                values[p * channels + c] = zero ? (c % 2 == 0 ? 0 : -0.0) : value
            }
        }
        return try! Tensor(shape: shape, values: values)
    }

    static func nanFilled(_ shape: [Int]) throws -> Tensor {
        try Tensor(shape: shape, values: Array(repeating: .nan, count: shape.reduce(1, *)))
    }

    // (H, W, Cin, Cout): 384 → 384 in five column chunks; 200 channels (a scalar tail in the
    // scan, a one-vector last panel with 8-lane vectors); 7 pixels (a partial last tile); a
    // layer below the size where skipping pays (multiplied in full, the same result).
    @Test(arguments: [
        (3, 5, 384, 384), (4, 7, 200, 200), (1, 7, 384, 384), (2, 9, 96, 192), (5, 7, 384, 115), (6, 6, 24, 48),
    ] as [(Int, Int, Int, Int)])
    func skippingEqualsTheFullProduct(_ s: (Int, Int, Int, Int)) throws {
        var rng = SeededGenerator(seed: UInt64(s.0 * 1000 + s.1 * 100 + s.2 * 10 + s.3))
        let x = Self.sparseActivation([s.0, s.1, s.2], &rng)
        let w = randomTensor([1, 1, s.2, s.3], &rng), b = randomTensor([s.3], &rng)
        // Where the first tiles say that scanning pays, the compacted kernel runs on some tiles.
        if Self.samplePays(x, outputChannels: s.3) {
            #expect(Self.compactedTiles(x, outputChannels: s.3) > 0, "\(s): some tiles are compacted")
        }
        for isa in KernelISA.supported {  // each instruction set's compacted microkernel
        let packed = try PackedPointwiseWeights(weights: w, bias: b, kernel: .packed, isa: isa)
        for activation in allActivations {
            let want = try NaiveKernels.convolution(x, weights: w, bias: b, stride: 1, dilation: 1,
                                                 padding: .same, activation: activation)
            for threads in [1, 2] {
                let skipping = try Self.nanFilled(want.shape), full = try Self.nanFilled(want.shape)
                try Convolution.pointwise(x, packed: packed, activation: activation, into: skipping, threads: threads)
                try Convolution.pointwise(x, packed: packed, activation: activation, into: full,
                                          skippingZeroChannels: false, threads: threads)
                let what = "\(s) \(isa) \(activation) threads=\(threads)"
                #expect(skipping.scalars == full.scalars, "\(what): skipping equals the full product")
                expectClose(skipping, want, "\(what) vs reference")
            }
        }
        }
    }

    /// Scanning goes on where the sampled zero fraction times the output panels reaches 1.15.
    @Test func skippingPaysWithEnoughZerosForTheOutputPanels() {
        // (zero pairs, pairs, panels, pays): the threshold itself, then PoseNet's layers at 257
        // on a real frame (zero fractions measured with the numpy reference).
        let cases: [(Int, Int, Int, Bool)] = [
            (23, 200, 10, true), (22, 200, 10, false),
            (44, 100, 3, true),    // 24 → 48 at 129x129
            (6, 100, 6, false),    // 48 → 96 at 65x65
            (12, 100, 6, false),   // 96 → 96 at 65x65
            (4, 100, 12, false),   // 96 → 192 at 33x33
            (11, 100, 12, true),   // 192 → 192 at 33x33
            (15, 100, 24, true),   // 384 → 384 at 17x17
            (9, 100, 8, false),    // 384 → 115, the heads
            (0, 100, 24, false), (100, 100, 1, false), (100, 100, 2, true),
        ]
        for (zeros, pairs, panels, pays) in cases {
            #expect(Convolution.skippingPays(zeroPairs: zeros, pairs: pairs, panels: panels) == pays,
                    "\(zeros) of \(pairs) pairs zero, \(panels) panels")
        }
    }

    /// Whether a one-thread call on `x` goes on scanning after its sample (its first tiles).
    static func samplePays(_ x: Tensor, outputChannels n: Int) -> Bool {
        let (m, k, t) = (x.shape[0] * x.shape[1], x.shape[2], Convolution.packedTileRows)
        let groupSize = max(1, Convolution.zeroChannelGroupBytes / (t * k * MemoryLayout<Float>.stride))
        let tiles = min((m + t - 1) / t, groupSize, Convolution.zeroChannelSampleTiles)
        var list = [Int32](repeating: 0, count: k + 8)
        var zeroPairs = 0
        x.withUnsafeBufferPointer { a in
            for tile in 0..<tiles {
                let row0 = tile * t
                zeroPairs += k - Convolution.nonzeroChannels(a: a.baseAddress! + row0 * k, lda: k, rows: min(t, m - row0),
                                                             channels: k, into: &list)
            }
        }
        let panels = PackedPointwiseWeights.panelCount(outputChannels: n)
        return Convolution.skippingPays(zeroPairs: zeroPairs, pairs: tiles * k, panels: panels)
    }

    /// A call whose first tiles have no zero channel multiplies the rest in full, sparse or
    /// not; one whose first tiles are sparse scans the rest, dense or not. Both give the full
    /// product.
    @Test(arguments: [true, false])
    func theSampleDecidesForTheRestOfTheCall(_ sparseFirst: Bool) throws {
        var rng = SeededGenerator(seed: sparseFirst ? 5 : 6)
        // The sample's pixels one way, the other pixels the other.
        let shape = [12, 17, 384], sampled = Convolution.zeroChannelSampleTiles * Convolution.packedTileRows
        let sparse = Self.sparseActivation(shape, &rng).scalars
        let dense = (0..<sparse.count).map { _ in Float.random(in: 0.5...6, using: &rng) }
        let x = try Tensor(shape: shape, values: (0..<sparse.count).map { i in
            (i < sampled * 384) == sparseFirst ? sparse[i] : dense[i]
        })
        #expect(Self.samplePays(x, outputChannels: 384) == sparseFirst)
        let w = randomTensor([1, 1, 384, 384], &rng), b = randomTensor([384], &rng)
        let packed = try PackedPointwiseWeights(weights: w, bias: b, kernel: .packed)
        let want = try NaiveKernels.convolution(x, weights: w, bias: b, stride: 1, dilation: 1, padding: .same,
                                             activation: .relu6)
        for threads in [1, 2] {
            let skipping = try Self.nanFilled(want.shape), full = try Self.nanFilled(want.shape)
            try Convolution.pointwise(x, packed: packed, activation: .relu6, into: skipping, threads: threads)
            try Convolution.pointwise(x, packed: packed, activation: .relu6, into: full,
                                      skippingZeroChannels: false, threads: threads)
            #expect(skipping.scalars == full.scalars, "sparse first \(sparseFirst), threads \(threads)")
            expectClose(skipping, want, "sparse first \(sparseFirst), threads \(threads) vs reference")
        }
    }

    /// How many of `x`'s row tiles have a channel zero in all their rows (those the compacted
    /// microkernel multiplies, once scanning pays).
    static func compactedTiles(_ x: Tensor, outputChannels n: Int) -> Int {
        let (m, k, t) = (x.shape[0] * x.shape[1], x.shape[2], Convolution.packedTileRows)
        var list = [Int32](repeating: 0, count: k + 8)
        var compactedTiles = 0
        x.withUnsafeBufferPointer { a in
            for row0 in stride(from: 0, to: m, by: t) {
                let count = Convolution.nonzeroChannels(a: a.baseAddress! + row0 * k, lda: k, rows: min(t, m - row0),
                                                        channels: k, into: &list)
                if count < k { compactedTiles += 1 }
            }
        }
        return compactedTiles
    }

    /// The list holds exactly the channels with a nonzero (or NaN) value in one of the rows, in
    /// order, and the count says how many.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8])
    func theListHoldsTheNonzeroChannels(_ rows: Int) throws {
        let t = Convolution.packedTileRows
        guard rows <= t else { return }
        var rng = SeededGenerator(seed: UInt64(rows))
        for channels in [1, 7, 8, 9, 24, 31, 384] {
            let lda = channels + 3  // rows not adjacent
            var a = [Float](repeating: 0, count: rows * lda)
            for r in 0..<rows {
                for c in 0..<channels {
                    let u = Float.random(in: 0...1, using: &rng)
                    // Most channels zero in most rows, so the pattern has nonzero rows of every count.
                    a[r * lda + c] = u < 0.75 ? (c % 2 == 0 ? 0 : -0.0) : (u < 0.77 ? .nan : u)
                }
            }
            let want = (0..<channels).filter { c in (0..<rows).contains { r in a[r * lda + c] != 0 || a[r * lda + c].isNaN } }
            var list = [Int32](repeating: -1, count: channels + 8)
            let count = Convolution.nonzeroChannels(a: a, lda: lda, rows: rows, channels: channels, into: &list)
            let what = "rows \(rows) channels \(channels)"
            #expect(Array(list.prefix(want.count)).map(Int.init) == want, "\(what): list")
            #expect(count == want.count, "\(what): count")
        }
    }

    /// A tile whose inputs are all zero keeps no channel: its outputs are the clamped bias.
    @Test func anAllZeroTileGivesTheBias() throws {
        var rng = SeededGenerator(seed: 3)
        let w = randomTensor([1, 1, 384, 384], &rng), b = randomTensor([384], &rng, in: -3...8)
        let packed = try PackedPointwiseWeights(weights: w, bias: b, kernel: .packed)
        let out = try Self.nanFilled([2, 6, 384])
        try Convolution.pointwise(try Tensor(zeros: [2, 6, 384]), packed: packed, activation: .relu6, into: out)
        let bias = b.scalars.map { min(max($0, 0), 6) }
        #expect(out.scalars == Array((0..<12).map { _ in bias }.joined()))
    }

    /// The fused separable block skips the depthwise output's zero channels the same way.
    @Test func separableSkippingEqualsTheFullProduct() throws {
        var rng = SeededGenerator(seed: 17)
        let x = randomTensor([9, 11, 96], &rng)
        let dw = randomTensor([3, 3, 96], &rng)
        // Channels with a very negative bias are zero after ReLU6 everywhere.
        let dwBias = try Tensor(shape: [96], values: (0..<96).map { $0 % 3 == 0 ? -50 : Float.random(in: -1...1, using: &rng) })
        let packed = try PackedPointwiseWeights(weights: randomTensor([96, 192], &rng), bias: randomTensor([192], &rng),
                                                kernel: .packed)
        for (stride, threads) in [(1, 1), (1, 2), (2, 1)] {
            let size = stride == 1 ? [9, 11, 192] : [5, 6, 192]
            let skipping = try Self.nanFilled(size), full = try Self.nanFilled(size)
            for (output, skips) in [(skipping, true), (full, false)] {
                try Convolution.separable(x, depthwiseWeights: dw, depthwiseBias: dwBias, stride: stride, packed: packed,
                                          activation: .relu6, into: output, workspace: ConvolutionWorkspace(),
                                          skippingZeroChannels: skips, threads: threads)
            }
            #expect(skipping.scalars == full.scalars, "stride \(stride) threads \(threads)")
            #expect(!skipping.scalars.contains { $0.isNaN })
        }
    }
}
