import KernelBenchmarks
import ArgumentParser
import Foundation

/// `posekit bench kernels`: throughput of the Tensor kernels at the layer shapes of
/// MobileNetV1-0.75 PoseNet at 513×513, output stride 16, next to `cblas_sgemm` and the naive loops.
struct BenchKernels: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "kernels",
        abstract: "Benchmark the Tensor kernels (GFLOP/s, GB/s) against cblas_sgemm and naive loops.",
        discussion: """
            Shapes are those of MobileNetV1-0.75 PoseNet at 513x513, output stride 16. Every figure is \
            the median of several runs after warm-up, with 1 and 2 threads unless --threads is given. \
            The 1x1 convolution is timed next to one cblas_sgemm call (OpenBLAS threads = the same \
            thread count, no epilogue) on the same M x N x K: alternating runs with 1 thread; with \
            more, one after the other (OpenBLAS's spinning idle workers would skew alternation).
            """)

    @Flag(help: "Print one JSON object instead of tables.")
    var json = false

    @Option(help: "Measure only with this many threads (default: 1 and 2; \(Limits.threads.text)).")
    var threads: Int?

    @Option(help: "Timed runs per measurement (the median is reported; \(Limits.benchRuns.text)).")
    var runs = 7

    @Flag(help: "Skip the naive reference kernels (they take a few seconds).")
    var skipNaive = false

    func validate() throws {
        if let threads { try Limits.threads.check(threads, "--threads") }
        try Limits.benchRuns.check(runs, "--runs")
    }

    func run() throws {
        let report = try KernelBenchmark(threadCounts: threads.map { [$0] } ?? [1, 2], runs: runs, naive: !skipNaive)
            .run(log: json ? { _ in } : { StandardOutput.printLine($0) })
        if json {
            print(try BenchmarkReport.json(report))
        }
    }
}

