import Foundation
import ModelGraph
import Tensor

/// Graph runners on one graph, one per concurrent caller: a runner holds one run's activations
/// (and runs under its own lock), so callers on several threads each take an idle runner, or a
/// new one when none is idle, and give it back. The graph's constants are shared by every runner.
final class GraphRunnerPool: @unchecked Sendable {
    let graph: Graph
    let threads: Int
    private var idle: [GraphRunner] = []
    private let lock = NSLock()

    init(graph: Graph, threads: Int) {
        self.graph = graph
        self.threads = threads
    }

    /// Runs the graph's one input `input` and returns its first output.
    func run(_ input: Tensor) throws -> Tensor {
        lock.lock()
        let taken = idle.popLast()
        lock.unlock()
        let runner = try taken ?? GraphRunner(graph: graph, threads: threads)
        defer {
            lock.lock()
            idle.append(runner)
            lock.unlock()
        }
        return try runner.run([input])[0]
    }
}
