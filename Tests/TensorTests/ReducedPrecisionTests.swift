import CKernels
import CPUFeatures
import Foundation
import Testing
@testable import Tensor
import TestSupport

/// The reduced-precision 1×1 GEMMs (int8: VNNI, AVX2 `vpmaddwd`, NEON; bf16), each copy this CPU runs, against naive loops
/// written here from the layouts' documentation (posekit_reduced_precision.h), and the quantization
/// and rounding against their error bounds. Copies the CPU lacks are listed, not run.
@Suite struct ReducedPrecisionTests {
    /// Shapes that cover partial tiles (m not a multiple of 12 or 6), a narrow last panel, K not a
    /// multiple of 4 (padding), K < 4 and a wide layer.
    static let shapes: [(m: Int, k: Int, n: Int)] = [(37, 30, 50), (100, 64, 115), (13, 3, 8), (26, 96, 17), (1, 5, 33)]

    /// Dequantized weights are within half a step of the float ones, and each column's step is its largest magnitude / 127.
    @Test func int8WeightQuantizationRoundTrips() {
        var rng = SeededGenerator(seed: 5)
        for (_, k, n) in Self.shapes {
            let w = (0..<(k * n)).map { _ in Float.random(in: -2...2, using: &rng) * (Bool.random(using: &rng) ? 1 : 0.01) }
            for lanes in [8, 16] {
                let (wq, scale, sum) = Self.packInt8(w, k: k, n: n, lanes: lanes)
                for j in 0..<n {
                    let largest = (0..<k).map { abs(w[$0 * n + j]) }.max()!
                    #expect(abs(scale[j] - largest / 127) <= largest * 1e-6, "column \(j) scale")
                    var columnSum = 0
                    for i in 0..<k {
                        let q = Int(wq[i * n + j])
                        columnSum += q
                        #expect(abs(q) <= 127)
                        #expect(abs(Float(q) * scale[j] - w[i * n + j]) <= scale[j] * 0.5001, "w[\(i), \(j)] k \(k) n \(n)")
                    }
                    #expect(Float(columnSum) == sum[j], "column \(j) sum")
                }
            }
        }
    }

    /// Every row quantizes with zero point 0 when it has no negative value (all 256 levels) and 128
    /// otherwise; dequantized values are within half a step; the padding holds the zero point.
    @Test(arguments: ReducedPrecisionKernel.supported.filter { $0.precision == .int8 })
    func int8ActivationQuantizationRoundTrips(_ kernel: ReducedPrecisionKernel) {
        var rng = SeededGenerator(seed: 9)
        let (rows, k) = (7, 30)
        let k4 = (k + kernel.grouping.channels - 1) / kernel.grouping.channels * kernel.grouping.channels
        var a = (0..<(rows * k)).map { _ in Float.random(in: 0...6, using: &rng) }
        for i in 0..<k { a[2 * k + i] = -a[2 * k + i] / 3 }  // row 2: signed
        for i in 0..<k { a[4 * k + i] = 0 }                  // row 4: all zero
        a[5 * k + 3] = -0.001                                 // row 5: one small negative value
        let (q, scale, zero) = Self.quantize(a, rows: rows, k: k, k4: k4, kernel: kernel)
        for r in 0..<rows {
            let row = a[(r * k)..<(r * k + k)]
            let negative = row.contains { $0 < 0 }
            #expect(zero[r] == (negative ? 128 : 0), "row \(r) zero point")
            let largest = row.map(abs).max()!
            if largest > 0 { #expect(abs(scale[r] - largest / (negative ? 127 : 255)) <= largest * 1e-6, "row \(r) scale") }
            for i in 0..<k4 {
                let byte = Float(q[r * k4 + i])
                if i >= k { #expect(byte == zero[r], "row \(r) padding"); continue }
                #expect(abs(scale[r] * (byte - zero[r]) - a[r * k + i]) <= scale[r] * 0.5001, "a[\(r), \(i)]")
            }
        }
    }

    /// bf16 rounding: nearest, ties to even (overflow to infinity as IEEE), against the two
    /// neighbours computed from the bits.
    @Test func bf16RoundsToNearestEven() {
        var rng = SeededGenerator(seed: 3)
        var values: [Float] = [0, -0, 1, -1, 1.00390625, 1.01171875, 3.4e38, -3.4e38, .leastNormalMagnitude, 65504]
        values += (0..<2000).map { _ in Float.random(in: -1000...1000, using: &rng) }
        for x in values {
            let got = Float(bitPattern: UInt32(posekit_bf16_from_float(x)) << 16)
            let down = Float(bitPattern: x.bitPattern & 0xFFFF_0000), up = Float(bitPattern: (x.bitPattern & 0xFFFF_0000) &+ 0x1_0000)
            // Past the largest bf16, IEEE rounding takes 2^128 as the next value (and gives infinity).
            let upValue = up.isInfinite ? (up > 0 ? 0x1p128 : -0x1p128) : Double(up)
            let (dDown, dUp) = (abs(Double(x) - Double(down)), abs(Double(x) - upValue))
            let want = dDown < dUp ? down : (dUp < dDown ? up : ((down.bitPattern >> 16) & 1 == 0 ? down : up))
            #expect(got.bitPattern == want.bitPattern, "\(x): got \(got), want \(want)")
        }
        #expect(Float(bitPattern: UInt32(posekit_bf16_from_float(.nan)) << 16).isNaN)
    }

    /// Each int8 copy against a naive integer GEMM on the same quantized rows and weights: the
    /// integer sums are exact, so only the float epilogue's rounding remains (1e-5 relative).
    @Test(arguments: ReducedPrecisionKernel.supported.filter { $0.precision == .int8 })
    func int8KernelMatchesNaiveIntegerLoops(_ kernel: ReducedPrecisionKernel) throws {
        var rng = SeededGenerator(seed: 21)
        for (m, k, n) in Self.shapes {
            for signed in [false, true] {
                let a = (0..<(m * k)).map { _ in Float.random(in: (signed ? -3 : 0)...6, using: &rng) }
                let w = (0..<(k * n)).map { _ in Float.random(in: -1...1, using: &rng) }
                let bias = (0..<n).map { _ in Float.random(in: -1...1, using: &rng) }
                for activation in [Activation.none, .relu6] {
                    let ours = try Self.multiply(a, w, bias, m: m, k: k, n: n, activation: activation, kernel: kernel)
                    let k4 = (k + kernel.grouping.channels - 1) / kernel.grouping.channels * kernel.grouping.channels
                    let (q, rowScale, rowZero) = Self.quantize(a, rows: m, k: k, k4: k4, kernel: kernel)
                    let (wq, colScale, _) = Self.packInt8(w, k: k, n: n, lanes: kernel.tileShape.lanes)
                    let (low, high) = activation.bounds
                    var worst: Float = 0
                    for r in 0..<m {
                        for j in 0..<n {
                            var sum = 0
                            for i in 0..<k { sum += (Int(q[r * k4 + i]) - Int(rowZero[r])) * Int(wq[i * n + j]) }
                            let want = min(max(rowScale[r] * colScale[j] * Float(sum) + bias[j], low), high)
                            worst = max(worst, abs(ours[r * n + j] - want) / max(1, abs(want)))
                        }
                    }
                    #expect(worst <= 1e-5, "\(kernel.rawValue) \(m)x\(k)x\(n) signed \(signed) \(activation): relative error \(worst)")
                }
            }
        }
    }

    /// Each bf16 copy against a naive loop over the bf16-rounded operands in double: only float32
    /// summation order remains.
    @Test(arguments: ReducedPrecisionKernel.supported.filter { $0.precision == .bf16 })
    func bf16KernelMatchesNaiveLoops(_ kernel: ReducedPrecisionKernel) throws {
        var rng = SeededGenerator(seed: 22)
        func rounded(_ x: Float) -> Double { Double(Float(bitPattern: UInt32(posekit_bf16_from_float(x)) << 16)) }
        for (m, k, n) in Self.shapes {
            let a = (0..<(m * k)).map { _ in Float.random(in: -3...6, using: &rng) }
            let w = (0..<(k * n)).map { _ in Float.random(in: -1...1, using: &rng) }
            let bias = (0..<n).map { _ in Float.random(in: -1...1, using: &rng) }
            let ours = try Self.multiply(a, w, bias, m: m, k: k, n: n, activation: .relu6, kernel: kernel)
            var worst = 0.0
            for r in 0..<m {
                for j in 0..<n {
                    var sum = Double(bias[j]), magnitude = abs(Double(bias[j]))
                    for i in 0..<k {
                        let p = rounded(a[r * k + i]) * rounded(w[i * n + j])
                        sum += p; magnitude += abs(p)
                    }
                    let want = min(max(sum, 0), 6)
                    worst = max(worst, abs(Double(ours[r * n + j]) - want) / max(1, magnitude))
                }
            }
            #expect(worst <= 1e-5, "\(kernel.rawValue) \(m)x\(k)x\(n): error \(worst) of the products' magnitude")
        }
    }

    /// The precision's whole error against float32, bounded per output by what rounding both operands
    /// can do: int8 Σ(|x|·t/2 + |w|·s/2 + s·t/4), bf16 Σ|x·w|·2^-8 (+ float32 summation).
    @Test(arguments: ReducedPrecisionKernel.supported)
    func errorAgainstFloat32StaysWithinTheQuantizationBound(_ kernel: ReducedPrecisionKernel) throws {
        var rng = SeededGenerator(seed: 23)
        let (m, k, n) = (50, 96, 70)
        let a = (0..<(m * k)).map { _ in Float.random(in: 0...6, using: &rng) }
        let w = (0..<(k * n)).map { _ in Float.random(in: -0.5...0.5, using: &rng) }
        let bias = [Float](repeating: 0.25, count: n)
        let ours = try Self.multiply(a, w, bias, m: m, k: k, n: n, activation: .none, kernel: kernel)
        for r in 0..<m {
            let s = a[(r * k)..<(r * k + k)].max()! / 255
            for j in 0..<n {
                let t = (0..<k).map { abs(w[$0 * n + j]) }.max()! / 127
                var exact = Double(bias[j]), bound = 1e-4
                for i in 0..<k {
                    let (x, y) = (Double(a[r * k + i]), Double(w[i * n + j]))
                    exact += x * y
                    bound += kernel.precision == .int8 ? abs(x) * Double(t) / 2 + abs(y) * Double(s) / 2 + Double(s * t) / 4
                                                       : abs(x * y) * (1.0 / 256 + 1.0 / 65536 + 1e-5)
                }
                #expect(abs(Double(ours[r * n + j]) - exact) <= bound, "\(kernel.rawValue) [\(r), \(j)]")
            }
        }
    }

    /// `fp32` leaves the weights alone; a reduced precision this CPU lacks throws one line; the
    /// converted weights name their kernel and precision.
    @Test func conversionAndAvailability() throws {
        let packed = try PackedPointwiseWeights(weights: Tensor(zeros: [8, 8]), bias: nil)
        #expect(try packed.converted(to: .fp32).precision == .fp32)
        #expect(packed.precision == .fp32)
        for precision in [Precision.bf16, .int8] {
            if let kernel = ReducedPrecisionKernel.preferred(for: precision) {
                let converted = try packed.converted(to: precision)
                #expect(converted.precision == precision)
                #expect(converted.kernelFamily == kernel.family)
                #expect(precision.unavailability == nil)
            } else {
                let problem = try #require(precision.unavailability)
                #expect(!problem.contains("\n") && problem.hasPrefix("\(precision.rawValue) precision needs"))
                #expect(throws: PrecisionUnavailable.self) { try packed.converted(to: precision) }
            }
        }
        #expect(Precision.auto.unavailability == nil)
        #expect(try Precision.auto.resolved() == Precision.automatic)
        #if arch(x86_64)
        #expect(ReducedPrecisionKernel.supported.contains(.int8AVX512VNNI) == HostCPU.features.isSuperset(of: [.avx512f, .avx512bw, .avx512dq, .avx512vl, .avx512vnni]))
        #expect(ReducedPrecisionKernel.supported.contains(.int8AVXVNNI) == HostCPU.features.isSuperset(of: [.avx2, .fma, .avxvnni]))
        #expect(ReducedPrecisionKernel.supported.contains(.bf16AVX512) == HostCPU.features.isSuperset(of: [.avx512f, .avx512bw, .avx512bf16]))
        // int8 runs on every AVX2 CPU (vpmaddwd), and is refused only below it.
        #expect(ReducedPrecisionKernel.supported.contains(.int8AVX2) == HostCPU.features.isSuperset(of: [.avx, .avx2, .fma]))
        #expect((Precision.int8.unavailability == nil) == HostCPU.features.isSuperset(of: [.avx, .avx2, .fma]))
        #expect(!ReducedPrecisionKernel.supported.contains(.int8NEON) && !ReducedPrecisionKernel.supported.contains(.int8NEONDot))
        #elseif arch(arm64)
        #expect(ReducedPrecisionKernel.supported.contains(.int8NEON))
        #expect(ReducedPrecisionKernel.supported.contains(.int8NEONDot) == HostCPU.features.contains(.asimddp))
        #expect(Precision.int8.unavailability == nil)
        #endif
    }

    // MARK: - helpers

    /// `A·W + bias` through `Convolution.pointwise` with weights converted for `kernel`, on 2 threads.
    static func multiply(_ a: [Float], _ w: [Float], _ bias: [Float], m: Int, k: Int, n: Int,
                         activation: Activation, kernel: ReducedPrecisionKernel) throws -> [Float] {
        let packed = try PackedPointwiseWeights(weights: Tensor(shape: [k, n], values: w), bias: Tensor(shape: [n], values: bias))
            .converted(to: kernel.precision, kernel: kernel)
        #expect(packed.precision == kernel.precision)
        let input = try Tensor(shape: [1, m, k], values: a), output = try Tensor(zeros: [1, m, n])
        try Convolution.pointwise(input, packed: packed, activation: activation, into: output, threads: 2)
        return output.scalars
    }

    /// The C packer's int8 panels read back through the documented layout into a row-major `k × n`
    /// matrix, with the column scales and sums.
    static func packInt8(_ w: [Float], k: Int, n: Int, lanes: Int) -> (wq: [Int8], scale: [Float], sum: [Float]) {
        let k4 = (k + 3) / 4 * 4, padded = (n + lanes - 1) / lanes * lanes
        var panels = [Int8](repeating: 99, count: k4 * padded)
        var scale = [Float](repeating: 0, count: padded), sum = [Float](repeating: 0, count: padded)
        posekit_pack_int8_panels(w, k, n, lanes, &panels, &scale, &sum)
        var wq = [Int8](repeating: 0, count: k * n)
        var column = 0
        while column < padded {
            let width = min(2 * lanes, padded - column)
            for g in stride(from: 0, to: k4, by: 4) {
                for jj in 0..<width {
                    for e in 0..<4 {
                        let value = panels[k4 * column + g * width + jj * 4 + e]
                        if g + e < k && column + jj < n { wq[(g + e) * n + column + jj] = value }
                        else { #expect(value == 0, "padding at k \(g + e), column \(column + jj)") }
                    }
                }
            }
            column += width
        }
        return (wq, scale, sum)
    }

    /// The kernel's own row quantizer (CKernels), for the tests that need its exact values: the
    /// levels (0...255) and zero points (0 or 128) it stored, read back through its element width
    /// and offset (`k4` values per row).
    static func quantize(_ a: [Float], rows: Int, k: Int, k4: Int, kernel: ReducedPrecisionKernel)
        -> (q: [Int], scale: [Float], zero: [Float]) {
        let table = kernel.int8Table!
        let bytes = kernel.grouping.bytes, offset = kernel.storedActivationOffset
        var stored = [UInt8](repeating: 77, count: rows * k4 * bytes), scale = [Float](repeating: 0, count: rows), zero = scale
        table.quantize_rows(a, k, rows, k, k4, &stored, &scale, &zero)
        let q = (0..<(rows * k4)).map { i -> Int in
            if bytes == 2 { return Int(UInt16(stored[2 * i]) | UInt16(stored[2 * i + 1]) << 8) + offset }
            return (offset == 0 ? Int(stored[i]) : Int(Int8(bitPattern: stored[i]))) + offset
        }
        return (q, scale, zero.map { $0 + Float(offset) })
    }
}
