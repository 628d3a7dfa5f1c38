import KernelBenchmarks
import Testing
@testable import Tensor
import TestSupport

@Suite struct ElementwiseTests {
    @Test func halfPrecisionEveryBitPattern() throws {
        var bytes = [UInt8]()
        for bits in 0...UInt16.max { bytes.append(UInt8(bits & 0xFF)); bytes.append(UInt8(bits >> 8)) }
        let t = try bytes.withUnsafeBytes { try HalfPrecision.tensor(fromLittleEndianHalves: $0, shape: [65536]) }
        let got = t.scalars
        for bits in 0...UInt16.max {
            let want = NaiveKernels.halfToFloat(bits), value = got[Int(bits)]
            if want.isNaN { #expect(value.isNaN, "fp16 \(bits)") } else { #expect(value == want, "fp16 \(bits)") }
            if !want.isNaN && value != want { break }
        }
        #expect(got[0x3C00] == 1 && got[0xC000] == -2 && got[0x0001] == 0x1p-24 && got[0x7BFF] == 65504)
        #expect(throws: TensorError.self) {
            try [UInt8](repeating: 0, count: 5).withUnsafeBytes { try HalfPrecision.tensor(fromLittleEndianHalves: $0, shape: [3]) }
        }
    }

    @Test func sigmoidMatchesReference() throws {
        var rng = SeededGenerator(seed: 5)
        for shape in [[1], [33, 33, 17], [3, 1, 5]] {
            let x = randomTensor(shape, &rng, in: -20...20)
            expectClose(try TensorNonlinearities.sigmoid(x), try NaiveKernels.sigmoid(x), "sigmoid \(shape)")
        }
        let extremes = try Tensor(shape: [4], values: [-1000, 1000, 0, -.greatestFiniteMagnitude])
        #expect(try TensorNonlinearities.sigmoid(extremes).scalars == [0, 1, 0.5, 0])
        let x = randomTensor([4, 4], &rng)
        let want = try NaiveKernels.sigmoid(x)
        try TensorNonlinearities.sigmoid(x, into: x)  // in place
        expectClose(x, want, "sigmoid in place")
        #expect(throws: TensorError.self) { try TensorNonlinearities.sigmoid(x, into: try Tensor(zeros: [4, 5])) }
    }

    /// PoseNet's heatmap inside its packed heads: the sigmoid of channels 0..<17 of 115, in place,
    /// bit for bit the whole-tensor sigmoid there and the other channels untouched.
    @Test func sigmoidOfAChannelRangeInPlace() throws {
        var rng = SeededGenerator(seed: 7)
        for (shape, range) in [([5, 3, 115], 0..<17), ([2, 2, 9], 4..<9), ([1, 1, 3], 0..<3), ([3, 1, 4], 2..<2)] {
            let x = randomTensor(shape, &rng, in: -20...20), before = x.scalars
            let whole = try TensorNonlinearities.sigmoid(x).scalars
            try TensorNonlinearities.sigmoid(channels: range, inPlace: x)
            let after = x.scalars, channels = shape[2]
            for i in after.indices {
                let want = range.contains(i % channels) ? whole[i] : before[i]
                #expect(after[i].bitPattern == want.bitPattern, "\(shape) \(range) element \(i)")
            }
        }
        let x = randomTensor([2, 2, 5], &rng)
        #expect(throws: TensorError.self) { try TensorNonlinearities.sigmoid(channels: 3..<6, inPlace: x) }
        #expect(throws: TensorError.self) { try TensorNonlinearities.sigmoid(channels: 0..<1, inPlace: try x.reshaped([4, 5])) }
    }

    @Test func softmaxMatchesReference() throws {
        var rng = SeededGenerator(seed: 6)
        for shape in [[1], [7], [5, 3], [2, 3, 17], [4, 1]] {
            let x = randomTensor(shape, &rng, in: -30...30)
            expectClose(try TensorNonlinearities.softmax(x), try NaiveKernels.softmax(x), "softmax \(shape)")
        }
        // Logits that would overflow e^x without the max shift.
        let big = try Tensor(shape: [3], values: [1000, 1000, 999])
        expectClose(try TensorNonlinearities.softmax(big), try NaiveKernels.softmax(big), "softmax large logits")
        #expect(throws: TensorError.self) { try TensorNonlinearities.softmax(big, into: try Tensor(zeros: [4])) }
    }

    @Test(arguments: [
        // (H, W, C) -> (outH, outW): up, down, non-integer ratios, 1-pixel in and out, identity.
        (4, 4, 3, 8, 8), (9, 7, 2, 4, 3), (5, 5, 1, 13, 11), (1, 1, 3, 5, 4), (6, 5, 17, 1, 1), (7, 3, 4, 7, 3),
        (20, 30, 3, 33, 17),
    ] as [(Int, Int, Int, Int, Int)])
    func bilinearMatchesReference(_ s: (Int, Int, Int, Int, Int)) throws {
        var rng = SeededGenerator(seed: UInt64(s.0 * 100 + s.1 * 10 + s.2))
        let x = randomTensor([s.0, s.1, s.2], &rng, in: 0...255)
        let want = try NaiveKernels.resizeBilinear(x, height: s.3, width: s.4)
        for threads in [1, 2] {
            expectClose(try Resize.bilinear(x, height: s.3, width: s.4, threads: threads), want, "resize \(s) t\(threads)")
        }
        if s.0 == s.3 && s.1 == s.4 { expectClose(want, x, "identity resize") }
    }

    @Test func bilinearHalfPixelConvention() throws {
        // 2 pixels -> 4: half-pixel centers sample at -0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped).
        let x = try Tensor(shape: [1, 2, 1], values: [0, 8])
        #expect(try Resize.bilinear(x, height: 1, width: 4).scalars == [0, 2, 6, 8])
        #expect(throws: TensorError.self) { try Resize.bilinear(x, into: try Tensor(zeros: [2, 2, 3])) }
        #expect(throws: TensorError.self) { try Resize.bilinear(x, height: 0, width: 4) }
    }
}
