import PoseEvaluation
import Foundation
import PoseCore
import PoseNet

/// Collects the poses of `posekit pose --format coco` and writes them as one COCO results list
/// (``CocoResults``), with each image's `image_id` from the ground truth or its file name.
struct CocoExport {
    private let truth: CocoKeypointDataset?
    private let truthPath: String?
    private var results: [(imageID: Int, pose: Pose)] = []
    /// Which input each image ID came from, so two inputs claiming one ID are caught.
    private var inputOfImageID: [Int: String] = [:]

    init(groundTruth: String?) throws {
        truthPath = groundTruth
        truth = try groundTruth.map { try CocoKeypointDataset(contentsOf: URL(fileURLWithPath: $0)) }
    }

    /// Adds one image's poses.
    mutating func add(_ poses: [Pose], input: String) throws {
        let id = try imageID(of: input)
        if let other = inputOfImageID[id], other != input {
            throw CLIError("\(input) and \(other) both give image_id \(id); give --ground-truth to take ids from it")
        }
        inputOfImageID[id] = input
        results += poses.map { (id, $0) }
    }

    func encoded() -> String { CocoResults.encode(results) }

    private func imageID(of input: String) throws -> Int {
        if let truth, let truthPath {
            guard let image = truth.image(named: input) else { throw CLIError("no image named like \(input) in \(truthPath)") }
            return image.id
        }
        guard input != "-", let id = CocoResults.imageID(fromFileName: input) else {
            throw CLIError("\(input): no digits in the file name to take an image_id from; give --ground-truth")
        }
        return id
    }
}
