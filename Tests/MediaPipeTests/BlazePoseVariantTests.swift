import Foundation
import MediaPipe
import Tensor
import Testing

/// Which MediaPipe BlazePose follows (docs/blazepose.md, "Which MediaPipe"): the graph refines landmarks from
/// the heatmap in a 7×7 window, MediaPipe's legacy Python API `mp.solutions.pose` in a 9×9 one (its wrapper
/// loses the graph's option). On MediaPipe's own recorded landmark and heatmap tensors of the six reference
/// images, each variant's refinement against a naive masked sum over the whole 64×64 map (the window's cells
/// picked by distance from the landmark's cell, clipped to the map). The default's end-to-end parity with the
/// graph is `EndToEndParityTests`'.
@Suite struct BlazePoseVariantTests {
    /// The refined (x, y) of landmark `i` (normalized to the crop) by a naive sum over every cell of the map.
    static func naive(x: Float, y: Float, channel i: Int, heatmap: [Float], window: Int) -> (Float, Float)? {
        let column = Int(x * 64), row = Int(y * 64), half = (window - 1) / 2
        // MediaPipe's bounds check never tests the row against the map's height (RefineLandmarksFromHeatmap).
        guard column >= 0, column < 64, row >= 0 else { return nil }
        var sum: Double = 0, sx: Double = 0, sy: Double = 0, most: Double = 0
        for r in 0..<64 {
            for c in 0..<64 where abs(r - row) <= half && abs(c - column) <= half {
                let p = 1 / (1 + exp(-Double(heatmap[(r * 64 + c) * 39 + i])))
                sum += p; sx += Double(c) * p; sy += Double(r) * p; most = max(most, p)
            }
        }
        guard most >= 0.5, sum > 0 else { return nil }
        return (Float(sx / sum / 64), Float(sy / sum / 64))
    }

    @Test(arguments: MediaPipeReference.imagesWithTensors)
    func eachVariantRefinesInItsWindow(_ name: String) throws {
        let landmarkTensor = try MediaPipeReference.tensor(name, "mp_pose_landmark_out0.npy")
        let heatmapTensor = try MediaPipeReference.tensor(name, "mp_pose_landmark_out3.npy")
        let heatmap = heatmapTensor.scalars
        #expect(BlazePoseVariant.graph.refinement.kernelSize == 7 && BlazePoseVariant.pythonSolution.refinement.kernelSize == 9)
        var moved = 0
        for variant in BlazePoseVariant.allCases {
            var landmarks = try landmarkTensor.withUnsafeBufferPointer { try TensorsToLandmarks.pose.landmarks($0) }
            let raw = landmarks
            try heatmap.withUnsafeBufferPointer { try variant.refinement.refine(&landmarks, heatmap: $0, height: 64, width: 64, channels: 39) }
            for i in 0..<39 {
                let window = variant.refinement.kernelSize
                if let (x, y) = Self.naive(x: raw[i].x, y: raw[i].y, channel: i, heatmap: heatmap, window: window) {
                    #expect(abs(landmarks[i].x - x) < 1e-5 && abs(landmarks[i].y - y) < 1e-5, "\(name) \(variant) landmark \(i)")
                    if variant == .pythonSolution, abs(x - raw[i].x) > 1e-4 { moved += 1 }
                } else {
                    #expect(landmarks[i].x == raw[i].x && landmarks[i].y == raw[i].y, "\(name) \(variant) landmark \(i) left as it was")
                }
            }
        }
        #expect(moved > 0, "the heatmap moves landmarks on \(name)")
    }

    @Test func theDefaultIsTheGraph() {
        #expect(BlazePosePipeline.Configuration().variant == .graph)
    }
}
