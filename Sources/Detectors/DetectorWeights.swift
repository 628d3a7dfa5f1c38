import MediaPipe
import ModelGraph
import Tensor

/// How every detector loads its weights, one rule: a bundle by its `ModelCatalogue` name (or a
/// path) where `ModelLocator` finds it; a missing one names the places searched and
/// `posekit weights install`, a broken one names its file.
enum DetectorWeights {
    /// The imported graph of bundle `name` (BlazePose's, the hands').
    /// - Throws: `ModelLocator.NotFound`, or `MediaPipeError.modelFile` naming the file.
    static func graph(_ name: String) throws -> Graph {
        let url = try ModelLocator.resolve(name)
        do {
            return try Graph(bundle: try WeightBundle(contentsOf: url))
        } catch {
            throw MediaPipeError.modelFile(path: url.path, problem: error.localizedDescription)
        }
    }
}
