import PoseCore
import Tensor
import Foundation

/// Timing helpers shared by PoseKit's benchmarks (`posekit bench ...`).
///
/// ```swift
/// let t = Benchmark.measure(warmup: 2, runs: 9) { try? Convolution.pointwise(x, ...) }
/// print(t.median, Benchmark.gflops(flops: 2.0 * m * n * k, seconds: t.median))
/// ```
/// Speed is measured here, never in unit tests.
public enum Benchmark {
    /// Wall-clock samples of one measured operation, in seconds.
    public struct Timing: Sendable {
        /// Every timed run, in the order they ran.
        public let samples: [Double]
        /// Samples timed elsewhere (one per pass of a whole pipeline, say).
        public init(samples: [Double]) { self.samples = samples }
        /// The median run (``Median/of(_:)``: of an even count, the upper middle one): robust to
        /// the odd descheduled run on a shared machine.
        public var median: Double { Median.of(samples) }
        /// The fastest run.
        public var minimum: Double { samples.min() ?? .nan }
    }

    /// Runs `body` `warmup` times untimed, then `runs` times timed; returns every timed sample.
    ///
    /// When `minimumSeconds` > 0, keeps timing past `runs` until that much time was spent,
    /// so sub-millisecond kernels get enough samples for a stable median.
    public static func measure(
        warmup: Int = 2, runs: Int = 7, minimumSeconds: Double = 0, _ body: () throws -> Void
    ) rethrows -> Timing {
        for _ in 0..<warmup { try body() }
        var samples: [Double] = []
        var total = 0.0
        while samples.count < max(1, runs) || (total < minimumSeconds && samples.count < 10_000) {
            let start = MonotonicClock.now()
            try body()
            let seconds = MonotonicClock.now() - start
            samples.append(seconds)
            total += seconds
        }
        return Timing(samples: samples)
    }

    /// Times several operations side by side: after `warmup` rounds, each round runs every body
    /// once, in order, so all of them see the same phases of a shared, noisy machine. Returns one
    /// ``Timing`` per body. Use it for ratios (kernel vs library call on the same shape).
    public static func measureInterleaved(
        warmup: Int = 2, runs: Int = 7, minimumSeconds: Double = 0, _ bodies: [() throws -> Void]
    ) throws -> [Timing] {
        for _ in 0..<warmup { for body in bodies { try body() } }
        var samples = [[Double]](repeating: [], count: bodies.count)
        var total = 0.0
        while samples[0].count < max(1, runs) || (total < minimumSeconds && samples[0].count < 10_000) {
            for (i, body) in bodies.enumerated() {
                let start = MonotonicClock.now()
                try body()
                let seconds = MonotonicClock.now() - start
                samples[i].append(seconds)
                total += seconds
            }
        }
        return samples.map { Timing(samples: $0) }
    }

    /// Billions of floating-point operations per second.
    public static func gflops(flops: Double, seconds: Double) -> Double { flops / seconds / 1e9 }

    /// Bytes moved per second, in GB/s (10⁹ bytes).
    public static func gigabytesPerSecond(bytes: Double, seconds: Double) -> Double { bytes / seconds / 1e9 }

    /// Floating-point operations of a convolution producing `outputPixels · outputChannels`
    /// values, each a dot product of length `reduction` (multiply + add = 2 flops).
    public static func convolutionFlops(outputPixels: Int, outputChannels: Int, reduction: Int) -> Double {
        2 * Double(outputPixels) * Double(outputChannels) * Double(reduction)
    }
}
