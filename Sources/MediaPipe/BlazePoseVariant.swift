/// Which MediaPipe BlazePose's landmarks follow where MediaPipe's own two paths differ (docs/blazepose.md,
/// "Which MediaPipe").
///
/// MediaPipe 0.10.14's graph `pose_landmark_cpu` refines each landmark from the model's heatmap in a 7×7
/// window (`tensors_to_pose_landmarks_and_segmentation.pbtxt`: `kernel_size: 7`; its Tasks API's
/// `PoseLandmarker` sets 7 too). Its legacy Python API `mp.solutions.pose.Pose` runs the same graph but
/// loses that option: `SolutionBase` parses the expanded graph into Python protobuf messages and back,
/// and the option's extension (`RefineLandmarksFromHeatmapCalculatorOptions`), whose Python module the
/// solution never imports, is dropped, so the calculator runs with its proto default, 9×9. Importing
/// `mediapipe.calculators.util.refine_landmarks_from_heatmap_calculator_pb2` before making the `Pose`
/// makes the Python API equal the graph to the last bit. That is a defect of the Python wrapper, so the
/// graph's behaviour is the default; ``pythonSolution`` gives what `mp.solutions.pose` computes.
public enum BlazePoseVariant: String, Sendable, CaseIterable {
    /// The graph as MediaPipe wrote it (C++ graphs, the Tasks API): heatmap window 7. The default.
    case graph
    /// MediaPipe's legacy Python API `mp.solutions.pose` (0.10.14): heatmap window 9.
    case pythonSolution = "python-solution"

    /// The heatmap refinement this variant runs.
    public var refinement: RefineLandmarksFromHeatmap {
        RefineLandmarksFromHeatmap(kernelSize: self == .graph ? 7 : 9)
    }
}
