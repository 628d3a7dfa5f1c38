import ArgumentParser
import Foundation

/// What `posekit pose` writes: JSON Lines per frame, or one COCO results list over all images.
enum PoseOutputFormat: String, ExpressibleByArgument, CaseIterable {
    case jsonl, coco

    /// Whether an input path names a single image by its extension (stdin and other names are
    /// only known once their first bytes are read).
    static func looksLikeImage(_ path: String) -> Bool {
        ["ppm", "pgm", "pnm", "pbm", "pam"].contains(URL(fileURLWithPath: path).pathExtension.lowercased())
    }
}
