import PoseCore
import PoseNet
import Foundation
import Tensor

/// Hand-built head tensors for benchmarks and tests.
public enum SyntheticHeads {
    /// `people` standing figures on a `gridSize²` grid at stride 16, laid out on a lattice so that
    /// no two share a keypoint neighborhood. Every cell's offsets and displacements point at the
    /// corresponding keypoint of the person whose keypoint is nearest, like a trained network's.
    ///
    /// - Returns: the heads and each person's 17 keypoints in model-input pixels.
    public static func crowd(gridSize: Int, people: Int) throws -> (output: PoseNetOutput, people: [[Point]]) {
        let stride = 16.0
        // A figure 4 cells wide and 8 tall, keypoints relative to its top-left corner (in cells).
        let figure: [(x: Double, y: Double)] = [
            (2, 0.5), (2.4, 0.2), (1.6, 0.2), (2.8, 0.4), (1.2, 0.4), (3, 1.6), (1, 1.6), (3.4, 3), (0.6, 3),
            (3.6, 4.2), (0.4, 4.2), (2.6, 4.6), (1.4, 4.6), (2.7, 6.2), (1.3, 6.2), (2.8, 7.8), (1.2, 7.8),
        ]
        let columns = max(1, gridSize / 5), rows = max(1, (people + columns - 1) / columns)
        let rowHeight = max(1, Double(gridSize) / Double(rows))
        var persons: [[Point]] = []
        for p in 0..<people {
            let left = Double(p % columns) * 5, top = Double(p / columns) * rowHeight
            let scaleY = min(1, (rowHeight - 0.5) / 8)
            persons.append(figure.map { Point(x: (left + $0.x) * stride, y: (top + $0.y * scaleY) * stride) })
        }
        let g = gridSize, parts = BodyPart.count, edges = Skeleton.treeEdges.count
        var heat = [Float](repeating: 0, count: g * g * parts)
        var offsets = [Float](repeating: 0, count: g * g * 2 * parts)
        var fwd = [Float](repeating: 0, count: g * g * 2 * edges)
        var bwd = [Float](repeating: 0, count: g * g * 2 * edges)
        func nearest(_ part: Int, _ cell: Point) -> Int {
            persons.indices.min { persons[$0][part].squaredDistance(to: cell) < persons[$1][part].squaredDistance(to: cell) }!
        }
        for y in 0..<g {
            for x in 0..<g {
                let cell = Point(x: Double(x) * stride, y: Double(y) * stride), base = y * g + x
                for part in 0..<parts {
                    let target = persons[nearest(part, cell)][part]
                    let d2 = target.squaredDistance(to: cell) / (stride * stride)
                    heat[base * parts + part] = Float(0.95 * exp(-d2 / 1.5))
                    offsets[base * 2 * parts + part] = Float(target.y - cell.y)
                    offsets[base * 2 * parts + parts + part] = Float(target.x - cell.x)
                }
                for (e, edge) in Skeleton.treeEdges.enumerated() {
                    let fromParent = persons[nearest(edge.parent.rawValue, cell)]
                    let fromChild = persons[nearest(edge.child.rawValue, cell)]
                    let pc = (fromParent[edge.child.rawValue], fromParent[edge.parent.rawValue])
                    let cp = (fromChild[edge.parent.rawValue], fromChild[edge.child.rawValue])
                    fwd[base * 2 * edges + e] = Float(pc.0.y - pc.1.y)
                    fwd[base * 2 * edges + edges + e] = Float(pc.0.x - pc.1.x)
                    bwd[base * 2 * edges + e] = Float(cp.0.y - cp.1.y)
                    bwd[base * 2 * edges + edges + e] = Float(cp.0.x - cp.1.x)
                }
            }
        }
        let output = try PoseNetOutput(
            heatmapScores: Tensor(shape: [g, g, parts], values: heat),
            offsets: Tensor(shape: [g, g, 2 * parts], values: offsets),
            displacementsFwd: Tensor(shape: [g, g, 2 * edges], values: fwd),
            displacementsBwd: Tensor(shape: [g, g, 2 * edges], values: bwd),
            outputStride: Int(stride))
        return (output, persons)
    }
}
