import COpenBLAS
import Foundation
import PoseNet
import Tensor

/// The measurements behind `posekit bench kernels`; returns the JSON-ready report.
public struct KernelBenchmark {
    let threadCounts: [Int]
    let runs: Int
    let naive: Bool

    /// Each thread count in `threadCounts`, `runs` timed runs per measurement (the median is
    /// reported); `naive` adds the naive reference loops (a few seconds).
    public init(threadCounts: [Int], runs: Int, naive: Bool) {
        self.threadCounts = threadCounts
        self.runs = runs
        self.naive = naive
    }

    /// MobileNetV1-0.75 at 513×513, OS 16, from ``MobileNetArchitecture`` (the model's own layer
    /// facts): block strides [2,1,2,1,2,1,2,1,1,1,1,1,1,1], widths 24, 48, 96, 96, 192, 192, 384 × 8;
    /// after block 6 the accumulated stride is 16 and no stride-2 block follows, so every
    /// depthwise has dilation 1. Consecutive blocks of the same shape are one row with a count.
    struct Pointwise: Equatable { let size: Int, cin: Int, cout: Int; var count: Int }
    struct Depthwise: Equatable { let size: Int, channels: Int, stride: Int, dilation: Int; var count: Int }
    static let blockShapes: [MobileNetArchitecture.BlockShape] = {
        let channels = MobileNetArchitecture.blockChannels(widthMultiplier: 0.75)
        // The strides and output stride are constants that always plan.
        let architecture = try! MobileNetArchitecture(blockStrides: MobileNetArchitecture.blockStrides(blockChannels: channels),
                                                      outputStride: 16)
        return architecture.blockShapes(inputSize: 513, blockChannels: channels)
    }()
    static let pointwiseLayers: [Pointwise] = {
        var layers: [Pointwise] = []
        for block in blockShapes.dropFirst() {
            let layer = Pointwise(size: block.outputSide, cin: block.inputChannels, cout: block.outputChannels, count: 1)
            if let last = layers.last, last.size == layer.size, last.cin == layer.cin, last.cout == layer.cout {
                layers[layers.count - 1].count += 1
            } else {
                layers.append(layer)
            }
        }
        let last = blockShapes[blockShapes.count - 1]
        // The 4 heads (17+34+32+32) run as one GEMM.
        layers.append(Pointwise(size: last.outputSide, cin: last.outputChannels, cout: MobileNetArchitecture.headChannelTotal, count: 1))
        return layers
    }()
    static let depthwiseLayers: [Depthwise] = {
        var layers: [Depthwise] = []
        for block in blockShapes.dropFirst() {
            let layer = Depthwise(size: block.inputSide, channels: block.inputChannels, stride: block.stride,
                                  dilation: block.dilation, count: 1)
            if let last = layers.last, last.size == layer.size, last.channels == layer.channels,
               last.stride == layer.stride, last.dilation == layer.dilation {
                layers[layers.count - 1].count += 1
            } else {
                layers.append(layer)
            }
        }
        // The output stride 8 variant: the last layer dilated by 2 (timed, not in the network total).
        let last = layers[layers.count - 1]
        layers.append(Depthwise(size: last.size, channels: last.channels, stride: 1, dilation: 2, count: 0))
        return layers
    }()

    func time(_ body: () throws -> Void) rethrows -> Double {
        try Benchmark.measure(warmup: 2, runs: runs, minimumSeconds: 0.2, body).median
    }

    /// One plain `cblas_sgemm` (row-major, `C = A·B`, no epilogue) on fresh `m×k`, `k×n` operands,
    /// run by OpenBLAS on `threads` threads. Call ``BLASThreads/set(_:)``(1) when done timing.
    final class SgemmCall {
        let a: Tensor, b: Tensor, c: Tensor, m: Int, n: Int, k: Int, threads: Int
        init(m: Int, n: Int, k: Int, threads: Int) throws {
            (self.m, self.n, self.k, self.threads) = (m, n, k, threads)
            a = try Tensor(zeros: [m, k]); b = try Tensor(zeros: [k, n]); c = try Tensor(zeros: [m, n])
            a.withUnsafeMutableBufferPointer { p in for i in p.indices { p[i] = Float(i % 7) * 0.1 } }
            b.withUnsafeMutableBufferPointer { p in for i in p.indices { p[i] = Float(i % 5) * 0.1 } }
        }
        func run() {
            BLASThreads.set(threads)
            a.withUnsafeBufferPointer { pa in
                b.withUnsafeBufferPointer { pb in
                    c.withUnsafeMutableBufferPointer { pc in
                        cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, Int32(m), Int32(n), Int32(k),
                                    1, pa.baseAddress, Int32(k), pb.baseAddress, Int32(n), 0, pc.baseAddress, Int32(n))
                    }
                }
            }
        }
    }

    /// Median seconds of one `cblas_sgemm` with OpenBLAS on `threads` threads.
    func sgemmSeconds(m: Int, n: Int, k: Int, threads: Int) throws -> Double {
        let call = try SgemmCall(m: m, n: n, k: k, threads: threads)
        defer {
            BLASThreads.set(1)
            if threads > 1 { Self.letOpenBLASWorkersPark() }
        }
        return time { call.run() }
    }

    /// OpenBLAS's pool threads busy-wait for new work for about 2^28 cycles (~0.1 s) after a
    /// multi-threaded call; wait that out so they do not compete with the next measurement.
    static func letOpenBLASWorkersPark() { Thread.sleep(forTimeInterval: 0.2) }

    static func random(_ shape: [Int], seed: Int) throws -> Tensor {
        let t = try Tensor(zeros: shape)
        var state = UInt32(truncatingIfNeeded: seed &* 2654435761 &+ 1)
        t.withUnsafeMutableBufferPointer { p in
            for i in p.indices {
                state = state &* 1664525 &+ 1013904223
                p[i] = Float(state >> 8) / Float(1 << 24) * 2 - 1
            }
        }
        return t
    }

    public func run(log: (String) -> Void) throws -> [String: Any] {
        var report = BenchEnvironment.report(log: log)
        report["threads"] = threadCounts
        report["runs"] = runs

        // Practical peak: sgemm at 2048³.
        var peak: [Int: Double] = [:]
        for t in threadCounts {
            let s = try sgemmSeconds(m: 2048, n: 2048, k: 2048, threads: t)
            peak[t] = Benchmark.gflops(flops: 2 * pow(2048, 3), seconds: s)
            log(String(format: "sgemm 2048^3, %d thread(s): %.1f GFLOP/s", t, peak[t]!))
        }
        report["sgemm_peak_gflops"] = Dictionary(uniqueKeysWithValues: peak.map { (String($0.key), $0.value) })

        report["pointwise"] = try pointwise(peak: peak, log: log)
        report["general"] = try general(peak: peak, log: log)
        report["depthwise"] = try depthwise(log: log)
        report["fused_block"] = try fusedBlocks(log: log)
        return report
    }

    func pointwise(peak: [Int: Double], log: (String) -> Void) throws -> [String: Any] {
        log("\n1x1 convolution (+bias+relu6) vs cblas_sgemm on the same M x N x K")
        log("  layer                 thr  conv GF/s  sgemm GF/s  conv/sgemm  conv/peak")
        var rows: [[String: Any]] = []
        var totals: [Int: (conv: Double, sgemm: Double)] = [:]
        for (index, layer) in Self.pointwiseLayers.enumerated() {
            let m = layer.size * layer.size
            let x = try Self.random([layer.size, layer.size, layer.cin], seed: index)
            let w = try Self.random([1, 1, layer.cin, layer.cout], seed: index + 100)
            let b = try Self.random([layer.cout], seed: index + 200)
            let y = try Tensor(zeros: [layer.size, layer.size, layer.cout])
            let flops = Benchmark.convolutionFlops(outputPixels: m, outputChannels: layer.cout, reduction: layer.cin)
            let name = "\(layer.size)x\(layer.size) \(layer.cin)->\(layer.cout)"
            for t in threadCounts {
                let call = try SgemmCall(m: m, n: layer.cout, k: layer.cin, threads: t)
                let runConv = { try Convolution.pointwise(x, weights: w, bias: b, activation: .relu6, into: y, threads: t) }
                let conv: Double, sgemm: Double
                if t == 1 {
                    // Side by side: conv and sgemm samples alternate, so both see the same machine load.
                    let timings = try Benchmark.measureInterleaved(
                        warmup: 2, runs: runs, minimumSeconds: 0.4, [runConv, { call.run() }])
                    (conv, sgemm) = (timings[0].median, timings[1].median)
                } else {
                    // Not interleaved: after a multi-threaded call OpenBLAS's idle workers keep
                    // spinning (~0.1 s) and would steal a core from the convolution's own threads.
                    conv = try time(runConv)
                    sgemm = time { call.run() }
                    BLASThreads.set(1)
                    Self.letOpenBLASWorkersPark()
                }
                BLASThreads.set(1)
                let convGF = Benchmark.gflops(flops: flops, seconds: conv)
                let sgemmGF = Benchmark.gflops(flops: flops, seconds: sgemm)
                totals[t, default: (0, 0)].conv += conv * Double(layer.count)
                totals[t, default: (0, 0)].sgemm += sgemm * Double(layer.count)
                log(String(format: "  %-20@  %3d  %9.1f  %10.1f  %10.2f  %9.2f", name as NSString, t, convGF, sgemmGF,
                           sgemm / conv, convGF / peak[t]!))
                rows.append([
                    "layer": name, "m": m, "n": layer.cout, "k": layer.cin, "count_in_network": layer.count,
                    "threads": t, "conv_ms": conv * 1e3, "sgemm_ms": sgemm * 1e3,
                    "conv_gflops": convGF, "sgemm_gflops": sgemmGF,
                    "ratio_to_sgemm": sgemm / conv, "ratio_to_peak": convGF / peak[t]!,
                ])
            }
        }
        var summary: [String: Any] = [:]
        for t in threadCounts {
            let (conv, sgemm) = totals[t]!
            log(String(format: "  all pointwise layers of the network, %d thread(s): conv %.2f ms, sgemm %.2f ms, conv/sgemm %.2f",
                       t, conv * 1e3, sgemm * 1e3, sgemm / conv))
            summary[String(t)] = ["conv_ms": conv * 1e3, "sgemm_ms": sgemm * 1e3, "ratio_to_sgemm": sgemm / conv]
        }
        var result: [String: Any] = ["layers": rows, "network_total": summary]
        if naive {
            // One mid-size layer against the naive loop (single run: it is slow).
            let layer = Self.pointwiseLayers[4]
            let x = try Self.random([layer.size, layer.size, layer.cin], seed: 1)
            let w = try Self.random([1, 1, layer.cin, layer.cout], seed: 2)
            let y = try Tensor(zeros: [layer.size, layer.size, layer.cout])
            let naiveSeconds = try Benchmark.measure(warmup: 0, runs: 1) {
                _ = try NaiveKernels.convolution(x, weights: w, bias: nil, stride: 1, dilation: 1, padding: .same, activation: .relu6)
            }.median
            var speedups: [String: Double] = [:]
            for t in threadCounts {
                let conv = try time { try Convolution.pointwise(x, weights: w, bias: nil, activation: .relu6, into: y, threads: t) }
                speedups[String(t)] = naiveSeconds / conv
                log(String(format: "  vs naive loop (%dx%d %d->%d), %d thread(s): %.0fx faster", layer.size, layer.size,
                           layer.cin, layer.cout, t, naiveSeconds / conv))
            }
            result["naive"] = ["layer": "\(layer.size)x\(layer.size) \(layer.cin)->\(layer.cout)",
                               "naive_ms": naiveSeconds * 1e3, "speedup": speedups]
        }
        return result
    }

    func general(peak: [Int: Double], log: (String) -> Void) throws -> [String: Any] {
        log("\n3x3 convolution, stride 2, SAME (+bias+relu6), block 0: 513x513x3 -> 257x257x24, im2col + sgemm")
        let x = try Self.random([513, 513, 3], seed: 3), w = try Self.random([3, 3, 3, 24], seed: 4)
        let b = try Self.random([24], seed: 5)
        let y = try Tensor(zeros: [257, 257, 24])
        let flops = Benchmark.convolutionFlops(outputPixels: 257 * 257, outputChannels: 24, reduction: 27)
        let workspace = ConvolutionWorkspace()
        var naiveSeconds: Double?
        if naive {
            naiveSeconds = try Benchmark.measure(warmup: 0, runs: 1) {
                _ = try NaiveKernels.convolution(x, weights: w, bias: b, stride: 2, dilation: 1, padding: .same, activation: .relu6)
            }.median
        }
        var rows: [[String: Any]] = []
        for t in threadCounts {
            let s = try time {
                try Convolution.general(x, weights: w, bias: b, stride: 2, activation: .relu6, into: y, workspace: workspace, threads: t)
            }
            let gf = Benchmark.gflops(flops: flops, seconds: s)
            var row: [String: Any] = ["threads": t, "ms": s * 1e3, "gflops": gf, "ratio_to_peak": gf / peak[t]!]
            var line = String(format: "  %d thread(s): %.2f ms, %.1f GFLOP/s, %.2f of sgemm peak", t, s * 1e3, gf, gf / peak[t]!)
            if let naiveSeconds {
                row["speedup_vs_naive"] = naiveSeconds / s
                line += String(format: ", %.0fx naive", naiveSeconds / s)
            }
            log(line)
            rows.append(row)
        }
        return ["layer": "513x513x3 -> 257x257x24 k3 s2", "naive_ms": naiveSeconds.map { $0 * 1e3 } ?? NSNull(), "runs": rows]
    }

    func depthwise(log: (String) -> Void) throws -> [[String: Any]] {
        log("\ndepthwise 3x3 SAME (+bias+relu6); GB/s counts input + output + weights once")
        log("  layer                    thr     ms    GB/s  vs naive")
        var rows: [[String: Any]] = []
        var totals: [Int: Double] = [:]
        for (index, layer) in Self.depthwiseLayers.enumerated() {
            let c = layer.channels
            let x = try Self.random([layer.size, layer.size, c], seed: index + 300)
            let w = try Self.random([3, 3, c], seed: index + 400), b = try Self.random([c], seed: index + 500)
            let out = (layer.size + layer.stride - 1) / layer.stride
            let y = try Tensor(zeros: [out, out, c])
            let bytes = Double(4 * (x.count + y.count + w.count + b.count))
            let name = "\(layer.size)x\(layer.size)x\(c) s\(layer.stride) d\(layer.dilation)"
            var naiveSeconds: Double?
            if naive {
                naiveSeconds = try Benchmark.measure(warmup: 0, runs: 1) {
                    _ = try NaiveKernels.depthwise(x, weights: w, bias: b, stride: layer.stride, dilation: layer.dilation,
                                                padding: .same, activation: .relu6)
                }.median
            }
            for t in threadCounts {
                let s = try time {
                    try Convolution.depthwise3x3(x, weights: w, bias: b, stride: layer.stride, dilation: layer.dilation,
                                                 activation: .relu6, into: y, threads: t)
                }
                totals[t, default: 0] += s * Double(layer.count)
                let gbs = Benchmark.gigabytesPerSecond(bytes: bytes, seconds: s)
                var row: [String: Any] = ["layer": name, "threads": t, "ms": s * 1e3, "gb_per_s": gbs,
                                          "count_in_network": layer.count]
                var speedup = "-"
                if let naiveSeconds {
                    row["speedup_vs_naive"] = naiveSeconds / s
                    speedup = String(format: "%.0fx", naiveSeconds / s)
                }
                log(String(format: "  %-23@  %3d  %6.3f  %6.1f  %@", name as NSString, t, s * 1e3, gbs, speedup as NSString))
                rows.append(row)
            }
        }
        for t in threadCounts {
            log(String(format: "  all depthwise layers of the network, %d thread(s): %.2f ms", t, totals[t]! * 1e3))
        }
        return rows
    }

    /// A MobileNet block (depthwise 3×3 + ReLU6, then 1×1 + ReLU6) run layer after layer versus
    /// fused in row bands: each core computes a few depthwise output rows into its own small
    /// buffer and immediately feeds them to the 1×1 GEMM, so the depthwise output never
    /// round-trips through memory. This is the pattern the kernel APIs are shaped for.
    func fusedBlocks(log: (String) -> Void) throws -> [[String: Any]] {
        log("\nMobileNet block, depthwise + pointwise: layer by layer vs fused in row bands")
        var rows: [[String: Any]] = []
        for (size, cin, cout) in [(129, 96, 96), (65, 192, 192), (33, 384, 384)] {
            let x = try Self.random([size, size, cin], seed: size)
            let dw = try Self.random([3, 3, cin], seed: size + 1), dwBias = try Self.random([cin], seed: size + 2)
            let pw = try Self.random([1, 1, cin, cout], seed: size + 3), pwBias = try Self.random([cout], seed: size + 4)
            let middle = try Tensor(zeros: [size, size, cin]), y = try Tensor(zeros: [size, size, cout])
            let bandRows = max(1, 512 / size)  // ~512 pixels per band, like the GEMM bands
            for t in threadCounts {
                let scratch = try (0..<t).map { _ in try Tensor(zeros: [bandRows, size, cin]) }
                let layered = try time {
                    try Convolution.depthwise3x3(x, weights: dw, bias: dwBias, activation: .relu6, into: middle, threads: t)
                    try Convolution.pointwise(middle, weights: pw, bias: pwBias, activation: .relu6, into: y, threads: t)
                }
                let fused = time {
                    Parallelism.forEachBand(t) { worker in
                        var row = Parallelism.bandRange(worker, of: t, count: size).lowerBound
                        let end = Parallelism.bandRange(worker, of: t, count: size).upperBound
                        while row < end {
                            let band = row..<min(row + bandRows, end)
                            let buffer = try! scratch[worker].slice(0..<band.count)
                            try! Convolution.depthwise3x3(x, weights: dw, bias: dwBias, activation: .relu6,
                                                          into: buffer, outputRows: band, threads: 1)
                            try! Convolution.pointwise(buffer, weights: pw, bias: pwBias, activation: .relu6,
                                                       into: try! y.slice(band), threads: 1)
                            row = band.upperBound
                        }
                    }
                }
                let name = "\(size)x\(size) \(cin)->\(cout)"
                log(String(format: "  %-18@ %d thread(s): layer by layer %.3f ms, fused bands %.3f ms (%.2fx)",
                           name as NSString, t, layered * 1e3, fused * 1e3, layered / fused))
                rows.append(["block": name, "threads": t, "layered_ms": layered * 1e3, "fused_ms": fused * 1e3,
                             "speedup": layered / fused])
            }
        }
        return rows
    }
}
