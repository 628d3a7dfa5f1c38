@testable import KernelBenchmarks
import Testing
@testable import Tensor

@Suite struct BenchmarkingTests {
    @Test func medianAndRates() throws {
        #expect(Benchmark.Timing(samples: [3, 1, 2]).median == 2)
        #expect(Benchmark.Timing(samples: [4, 1, 3, 2]).median == 3)   // the upper middle sample (PoseCore's Median)
        #expect(Benchmark.Timing(samples: [4, 1, 3, 2]).minimum == 1)
        #expect(Benchmark.gflops(flops: 4e9, seconds: 2) == 2)
        #expect(Benchmark.gigabytesPerSecond(bytes: 3e9, seconds: 1.5) == 2)
        #expect(Benchmark.convolutionFlops(outputPixels: 10, outputChannels: 3, reduction: 5) == 300)
    }

    @Test func runCounts() throws {
        var calls = 0
        let t = Benchmark.measure(warmup: 2, runs: 5) { calls += 1 }
        #expect(t.samples.count == 5 && calls == 7)
        var order: [Int] = []
        let ts = try Benchmark.measureInterleaved(warmup: 1, runs: 3, [{ order.append(0) }, { order.append(1) }])
        #expect(ts.count == 2 && ts.allSatisfy { $0.samples.count == 3 })
        #expect(order == [0, 1, 0, 1, 0, 1, 0, 1])
    }
}
