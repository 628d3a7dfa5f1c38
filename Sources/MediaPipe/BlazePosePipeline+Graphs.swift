import ModelGraph
import Tensor

extension BlazePosePipeline {
    /// The landmark model's segmentation output (`Identity_2`), by position.
    public static let segmentationOutput = 2

    /// The pipeline on imported graphs run by `GraphRunner`: the segmentation branch of
    /// `pose_landmark_full` is pruned (never computed) unless `configuration.segmentation` asks for
    /// the mask.
    /// - Parameters:
    ///   - detector: the imported `pose_detection` graph.
    ///   - landmarker: the imported `pose_landmark_full` graph.
    ///   - threads: threads each model runs on.
    public convenience init(detector: Graph, landmarker: Graph, configuration: Configuration = Configuration(),
                            threads: Int = Parallelism.defaultThreads) throws {
        let skipped: Set<Int> = configuration.segmentation ? [] : [Self.segmentationOutput]
        self.init(detector: try GraphModel(graph: detector, threads: threads),
                  landmarker: try GraphModel(graph: landmarker, skippingOutputs: skipped, threads: threads),
                  configuration: configuration)
    }
}
