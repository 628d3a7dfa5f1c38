import ModelGraph
import Tensor

/// An imported network (`ModelGraph.Graph`) run by `GraphRunner`, as a `MediaPipeModel`.
///
/// Outputs listed in `skippingOutputs` (positions in the model's output order) are not computed:
/// the runner prunes the nodes only they need (BlazePose's segmentation branch, 35 M
/// multiply-adds, when no mask is wanted) and `run` returns an empty tensor in their place. The
/// graph's 1×1 convolutions run in `precision` (`PrecisionUnavailable` for an explicit one this
/// CPU lacks, thrown here, before any frame).
public final class GraphModel: MediaPipeModel {
    private let runner: GraphRunner
    /// Per model output position: its index among the runner's outputs, or nil when skipped.
    private let positions: [Int?]
    private let placeholder: Tensor

    public init(graph: Graph, skippingOutputs skipped: Set<Int> = [], threads: Int = Parallelism.defaultThreads,
                precision: Precision = .fp32) throws {
        var computed: [ValueID] = [], positions: [Int?] = []
        for (position, id) in graph.outputs.enumerated() {
            if skipped.contains(position) {
                positions.append(nil)
            } else {
                positions.append(computed.count)
                computed.append(id)
            }
        }
        runner = try GraphRunner(graph: graph, outputs: computed, threads: threads, precision: precision)
        self.positions = positions
        placeholder = try Tensor(zeros: [1])
    }

    /// Steps the runner executes per run (fewer when outputs are skipped).
    public var stepCount: Int { runner.stepCount }

    public func run(_ input: Tensor) throws -> [Tensor] {
        let outputs = try runner.run([input])
        return positions.map { $0.map { outputs[$0] } ?? placeholder }
    }
}
