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
    ///   - threads: threads each model and each crop runs on (the configuration's `threads` is set to it).
    ///   - precision: the arithmetic of both models' 1×1 convolutions.
    public convenience init(detector: Graph, landmarker: Graph, configuration: Configuration = Configuration(),
                            threads: Int = Parallelism.defaultThreads, precision: Precision = .fp32) throws {
        let skipped: Set<Int> = configuration.segmentation ? [] : [Self.segmentationOutput]
        var configuration = configuration
        configuration.threads = threads
        self.init(detector: try GraphModel(graph: detector, threads: threads, precision: precision),
                  landmarker: try GraphModel(graph: landmarker, skippingOutputs: skipped, threads: threads, precision: precision),
                  configuration: configuration)
    }
}
