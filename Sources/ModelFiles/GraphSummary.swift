import Foundation
import ModelGraph
import PoseKit

/// The lines `posekit info` and `posekit import` print about an imported graph: inputs and
/// outputs (names, shapes with the batch axis, as `posekit run --list` and the model file give
/// them), operations by kind, parameters, multiply-adds.
public enum GraphSummary {
    /// The lines, each indented two spaces.
    public static func lines(_ graph: Graph) -> String {
        func value(_ id: ValueID) -> String { "\(PrintableText.make(graph.values[id].name)) \(GraphModelFile.batchShape(graph.values[id].shape))" }
        var out: [String] = []
        out.append("  network       graph: \(graph.nodes.count) operations, \(graph.inputs.count) input\(graph.inputs.count == 1 ? "" : "s"), \(graph.outputs.count) output\(graph.outputs.count == 1 ? "" : "s")")
        for id in graph.inputs { out.append("  input         \(value(id))") }
        for (i, id) in graph.outputs.enumerated() { out.append("  output \(i)      \(value(id))") }
        out.append("  operations    " + graph.operationCounts.map { "\($0.name) \($0.count)" }.joined(separator: ", "))
        out.append("  parameters    \(graph.parameterCount) (dense float32 constants)")
        var byKind: [String: Int] = [:]
        for i in graph.nodes.indices { byKind[graph.nodes[i].operation.name, default: 0] += graph.multiplyAdds(ofNode: i) }
        let parts = byKind.filter { $0.value > 0 }.sorted { $0.value > $1.value }.map { "\($0.key) \(millions($0.value))" }
        out.append("  multiply-adds \(millions(graph.multiplyAdds))" + (parts.isEmpty ? "" : " (\(parts.joined(separator: ", ")))"))
        return out.joined(separator: "\n")
    }

    /// What `posekit run --list` prints: `inputs`, then a line per input (index, name, shape with
    /// the batch axis), `outputs`, then a line per output.
    public static func inputsAndOutputs(_ graph: Graph) -> String {
        var lines: [String] = []
        for (title, ids) in [("inputs", graph.inputs), ("outputs", graph.outputs)] {
            lines.append(title)
            for (index, id) in ids.enumerated() {
                lines.append("  \(index)  \(PrintableText.make(graph.values[id].name))  \(GraphModelFile.batchShape(graph.values[id].shape))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `n` in millions with one decimal (two below 1 M): `429.9 M`.
    public static func millions(_ n: Int) -> String {
        String(format: n < 1_000_000 ? "%.2f M" : "%.1f M", Double(n) / 1e6)
    }
}
