import ArgumentParser
import PoseKit

/// What `posekit pose` writes: JSON Lines per frame, or one COCO results list over all images.
enum PoseOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, coco
}
