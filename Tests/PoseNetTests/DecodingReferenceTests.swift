import Foundation
import Testing
@testable import PoseNet
import PoseCore

/// The shared data folder: `$POSEKIT_SHARED`, else `<repo root>/../shared`.
func sharedFolder() -> URL {
    if let path = ProcessInfo.processInfo.environment["POSEKIT_SHARED"] { return URL(fileURLWithPath: path) }
    let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    return repoRoot.deletingLastPathComponent().appendingPathComponent("shared")
}

/// The decodes stored in a reference case's meta.json.
struct ReferenceDecodes: Decodable {
    struct Keypoint: Decodable { let part: String; let score: Double; let x: Double; let y: Double }
    struct Single: Decodable { let keypoints: [Keypoint] }
    struct Multi: Decodable { struct P: Decodable { let score: Double; let keypoints: [Keypoint] }; let poses: [P]; let method: String }
    let single_pose_decode: Single
    let multi_pose_decode: Multi
    let multi_pose_decode_refine1: Multi
    let input_size: Int
    let original_size: [Int]
    let scale_to_original: Double
}

let referenceCases: [String] = {
    let index = sharedFolder().appendingPathComponent("reference/index.json")
    struct Entry: Decodable { let `case`: String }
    guard let data = try? Data(contentsOf: index), let entries = try? JSONDecoder().decode([Entry].self, from: data) else {
        return ["<reference/index.json missing>"]
    }
    return entries.map(\.case)
}()

func loadCase(_ name: String) throws -> (PoseNetOutput, ReferenceDecodes) {
    let folder = sharedFolder().appendingPathComponent("reference").appendingPathComponent(name)
    let output = try PoseNetOutput(referenceFolder: folder)
    let meta = try JSONDecoder().decode(ReferenceDecodes.self, from: Data(contentsOf: folder.appendingPathComponent("meta.json")))
    return (output, meta)
}

/// Positions within 1e-3 px, scores within 1e-5, parts in BodyPart order.
func expectMatches(_ pose: Pose, _ keypoints: [ReferenceDecodes.Keypoint], _ label: String) {
    #expect(keypoints.count == 17, "\(label): reference has \(keypoints.count) keypoints")
    #expect(pose.keypointSet == .coco17)
    for (i, (k, ref)) in zip(pose.keypoints, keypoints).enumerated() {
        #expect(pose.keypointSet.names[i] == ref.part, "\(label): part \(pose.keypointSet.names[i]) vs \(ref.part)")
        #expect(abs(k.position.x - ref.x) <= 1e-3 && abs(k.position.y - ref.y) <= 1e-3,
                "\(label) \(ref.part): (\(k.position.x), \(k.position.y)) vs (\(ref.x), \(ref.y))")
        #expect(abs(k.score - ref.score) <= 1e-5, "\(label) \(ref.part): score \(k.score) vs \(ref.score)")
    }
}

@Suite struct DecodingReferenceTests {
    @Test(arguments: referenceCases)
    func singlePoseMatchesReference(_ name: String) throws {
        let (output, meta) = try loadCase(name)
        let pose = decodeSinglePose(output)
        expectMatches(pose, meta.single_pose_decode.keypoints, "\(name) single")
        let mean = meta.single_pose_decode.keypoints.map(\.score).reduce(0, +) / 17
        #expect(abs(pose.score - mean) <= 1e-5)
    }

    @Test(arguments: referenceCases, [2, 1])
    func multiPoseMatchesReference(_ name: String, refineSteps: Int) throws {
        let (output, meta) = try loadCase(name)
        let reference = refineSteps == 2 ? meta.multi_pose_decode : meta.multi_pose_decode_refine1
        // Parameters as stated in meta.json's method text.
        if refineSteps == 2 {
            for phrase in ["part threshold 0.5", "local maximum radius 1", "nms radius 20", "max 10", "offsetRefineStep 2"] {
                #expect(reference.method.contains(phrase), "method text no longer says \(phrase)")
            }
        } else {
            #expect(reference.method.contains("offsetRefineStep 1"))
        }
        let parameters = MultiPoseParameters(maxPoses: 10, partScoreThreshold: 0.5, nmsRadius: 20,
                                             localMaximumRadius: 1, refineSteps: refineSteps)
        let poses = try decodeMultiplePoses(output, parameters: parameters)
        #expect(poses.count == reference.poses.count, "\(name) refine \(refineSteps): \(poses.count) poses vs \(reference.poses.count)")
        for (i, (pose, ref)) in zip(poses, reference.poses).enumerated() {
            #expect(abs(pose.score - ref.score) <= 1e-5, "\(name) refine \(refineSteps) pose \(i): score \(pose.score) vs \(ref.score)")
            expectMatches(pose, ref.keypoints, "\(name) refine \(refineSteps) pose \(i)")
        }
    }

    @Test(arguments: referenceCases)
    func letterboxMapsToOriginalPixels(_ name: String) throws {
        let (output, meta) = try loadCase(name)
        let transform = InputPlacement(imageWidth: meta.original_size[0], imageHeight: meta.original_size[1],
                                       inputSize: meta.input_size, fit: .letterbox).inputToImage
        // The mapping is the inverse of the writer's single-precision scale (InputPlacement).
        let relative = 1e-7
        #expect(abs(transform.scaleX - meta.scale_to_original) <= relative * meta.scale_to_original)
        let pose = decodeSinglePose(output)
        let mapped = pose.mapped(by: transform)
        for (a, b) in zip(pose.keypoints, mapped.keypoints) {
            #expect(abs(b.position.x - a.position.x * meta.scale_to_original) <= relative * abs(a.position.x * meta.scale_to_original) + 1e-9)
            #expect(abs(b.position.y - a.position.y * meta.scale_to_original) <= relative * abs(a.position.y * meta.scale_to_original) + 1e-9)
            #expect(a.score == b.score)
        }
    }
}
