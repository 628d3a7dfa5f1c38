import Foundation
import FrameIO
import PoseCore

/// Collects the poses of `posekit pose --format coco` and writes them as one COCO results list
/// (``CocoResults``), with each image's `image_id` from the ground truth or its file name.
public struct CocoExport {
    private let truth: CocoKeypointDataset?
    private let truthPath: String?
    private var results: [(imageID: Int, pose: Pose)] = []
    /// Each input's image id, decided before any input is read (``uniqueInputs(_:arguments:)``).
    private var imageIDOfInput: [String: Int] = [:]

    public init(groundTruth: String?) throws {
        truthPath = groundTruth
        truth = try groundTruth.map { try CocoKeypointDataset(contentsOf: URL(fileURLWithPath: $0)) }
    }

    /// `inputs` (directories expanded from `arguments`) with each image once (``SameImageInputs``):
    /// every input's image id is found here, so a missing or repeated one is refused before the
    /// network runs.
    public mutating func uniqueInputs(_ inputs: [String], arguments: [String], warn: (String) -> Void) throws -> [String] {
        let matched = try SameImageInputs.unique(inputs, arguments: arguments, imageID: imageID(of:), warn: warn) { [truthPath] id, first, second in
            if let truthPath { return ("image \(id) of \(truthPath)", "give only one of them") }
            let stem = { (path: String) in URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent }
            // Copies of one picture stay one image whatever the ids come from; different pictures
            // whose names share their digits need ids from the ground truth.
            return ("image_id \(id) (the digits of their names)",
                    stem(first) == stem(second) ? "give only one of them" : "give --ground-truth to take ids from it, or only one of them")
        }
        for (input, id) in matched { imageIDOfInput[input] = id }
        return matched.map(\.input)
    }

    /// Adds one image's poses, clamped into its `width × height` pixels (COCO's labels lie on the
    /// image; `eval` scores what it detects the same way).
    public mutating func add(_ poses: [Pose], input: String, width: Int, height: Int) throws {
        let id = try imageIDOfInput[input] ?? imageID(of: input)
        results += poses.map { (id, $0.clamped(width: width, height: height)) }
    }

    public func encoded() -> String { CocoResults.encode(results) }

    private func imageID(of input: String) throws -> Int {
        if input == "-" {
            throw EvaluationInputError("--format coco takes each image_id from a file name, and standard input (-) has none; give the image as a file")
        }
        if MediaFormat.forExtension(of: input)?.media == .video || URL(fileURLWithPath: input).pathExtension.lowercased() == "y4m" {
            throw EvaluationInputError("\(input): --format coco is for images; use JSON Lines for video")
        }
        if let truth, let truthPath {
            guard let image = truth.image(named: input) else { throw EvaluationInputError("\(input): no image of that name in \(truthPath)") }
            return image.id
        }
        guard let id = CocoResults.imageID(fromFileName: input) else {
            throw EvaluationInputError("\(input): no digits in the file name to take an image_id from; give --ground-truth")
        }
        return id
    }
}
