import ArgumentParser
import PoseKit

/// What `posekit pose` writes: JSON Lines per frame, or one COCO results list over all images.
enum PoseOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, coco

    /// Whether an input path names a single image by its extension (`MediaFormat.isPNMName`).
    static func looksLikeImage(_ path: String) -> Bool { MediaFormat.isPNMName(path) }
}
