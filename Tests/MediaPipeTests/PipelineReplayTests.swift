import Foundation
import FrameIO
import Testing
@testable import MediaPipe
import Tensor

/// A model that returns MediaPipe's recorded outputs for MediaPipe's recorded input, and refuses
/// any other input (compared at the uint8 level, as `ImageToTensorTests`): the pipelines' wiring
/// tested end to end on real images without running a network.
final class ReplayModel: MediaPipeModel {
    let input: Tensor
    let outputs: [Tensor]
    let converter: ImageToTensor
    private(set) var runs = 0

    init(input: Tensor, outputs: [Tensor], converter: ImageToTensor) {
        self.input = input
        self.outputs = outputs
        self.converter = converter
    }

    func run(_ given: Tensor) throws -> [Tensor] {
        runs += 1
        let difference = ImageToTensorTests.levelDifferences(given, input, converter: converter)
        guard difference.count <= 2 && difference.largest <= 1 else {
            throw ReferenceError.message("replay: input differs from MediaPipe's in \(difference.count) values")
        }
        return outputs
    }
}

@Suite struct PipelineReplayTests {
    static func files(_ name: String, _ files: [String]) throws -> [Tensor] {
        try files.map { try MediaPipeReference.tensor(name, $0) }
    }

    @Test(arguments: MediaPipeReference.imagesWithTensors)
    func blazePoseOnOneImageGivesMediaPipesResult(name: String) throws {
        let detector = ReplayModel(input: try MediaPipeReference.tensor(name, "mp_pose_detection_input.npy"),
                                   outputs: try Self.files(name, ["mp_pose_detection_out0_boxes.npy", "mp_pose_detection_out1_scores.npy"]),
                                   converter: .poseDetection)
        let landmarker = ReplayModel(input: try MediaPipeReference.tensor(name, "mp_pose_landmark_input.npy"),
                                     outputs: try Self.files(name, (0..<5).map { "mp_pose_landmark_out\($0).npy" }), converter: .poseLandmark)
        let pipeline = BlazePosePipeline(detector: detector, landmarker: landmarker)
        let result = try #require(try pipeline.process(try MediaPipeReference.image(name)))
        let reference = try MediaPipeReference.pose(name)
        #expect(detector.runs == 1 && landmarker.runs == 1)
        #expect(difference(try #require(result.detection), try #require(reference.pose_detection)) <= 1e-6)
        #expect(difference(result.region, try #require(reference.pose_rect_from_detection).rect) <= 1e-6)
        #expect(difference(result.nextRegion, try #require(reference.pose_rect_from_landmarks).rect) <= 2e-6)
        var pixels: Float = 0, world: Float = 0
        for (ours, theirs) in zip(result.pixelLandmarks, try #require(reference.pose_landmarks).landmark) {
            pixels = max(pixels, abs(ours.x - theirs.x * Float(reference.width)), abs(ours.y - theirs.y * Float(reference.height)))
        }
        for (ours, theirs) in zip(result.worldLandmarks, try #require(reference.pose_world_landmarks).landmark) {
            world = max(world, abs(ours.x - theirs.x), abs(ours.y - theirs.y), abs(ours.z - theirs.z))
        }
        #expect(result.landmarks.count == 33 && pixels <= 5e-4 && world <= 1e-7, "\(name): \(pixels) px, \(world) m")
    }

    @Test(arguments: [("mpii_004645041", 2), ("mpii_060754485", 2), ("person-linda", 1)])
    func handsOnOneImageGiveMediaPipesResult(name: String, maximumHands: Int) throws {
        for model in ["full", "lite"] {
            let palm = ReplayModel(input: try MediaPipeReference.tensor(name, "mp_palm_detection_\(model)_input.npy"),
                                   outputs: try Self.files(name, ["mp_palm_detection_\(model)_out0_boxes.npy", "mp_palm_detection_\(model)_out1_scores.npy"]),
                                   converter: .palmDetection)
            let landmarker = ReplayModel(input: try MediaPipeReference.tensor(name, "mp_hand_landmark_\(model)_input.npy"),
                                         outputs: try Self.files(name, (0..<4).map { "mp_hand_landmark_\(model)_out\($0).npy" }),
                                         converter: .handLandmark)
            var configuration = HandLandmarkPipeline.Configuration()
            configuration.maximumHands = maximumHands
            let pipeline = HandLandmarkPipeline(palmDetector: palm, landmarker: landmarker, configuration: configuration)
            let result = try pipeline.process(try MediaPipeReference.image(name))
            let reference = try MediaPipeReference.hands(name, model: model)
            #expect(result.palmDetectorRan && palm.runs == 1)
            let hand = try #require(result.hands.first)
            #expect(result.hands.count == min(maximumHands, reference.multi_hand_landmarks?.count ?? 0))
            let expectedHandedness = try #require(reference.multi_handedness?.first?.classification.first)
            #expect(hand.handedness.label.rawValue == expectedHandedness.label)
            var pixels: Float = 0
            for (ours, theirs) in zip(result.pixelLandmarks(of: hand), try #require(reference.multi_hand_landmarks?.first).landmark) {
                pixels = max(pixels, abs(ours.x - theirs.x * Float(reference.width)), abs(ours.y - theirs.y * Float(reference.height)))
            }
            #expect(pixels <= 2e-4, "\(name) \(model): \(pixels) px")
            #expect(difference(hand.nextRegion, try #require(reference.hand_rects_from_landmarks?.first).rect) <= 3e-6)
        }
    }

    /// Video mode: with as many hands tracked as allowed, the palm detector does not run; a lost
    /// hand (flag below 0.5) brings it back.
    @Test func palmDetectorRunsOnlyWhileHandsAreMissing() throws {
        let name = "mpii_004645041"
        let image = try MediaPipeReference.image(name)
        let palm = ReplayModel(input: try MediaPipeReference.tensor(name, "mp_palm_detection_full_input.npy"),
                               outputs: try Self.files(name, ["mp_palm_detection_full_out0_boxes.npy", "mp_palm_detection_full_out1_scores.npy"]),
                               converter: .palmDetection)
        let outputs = try Self.files(name, (0..<4).map { "mp_hand_landmark_full_out\($0).npy" })
        let landmarker = AnyInputModel(outputs: outputs)
        var configuration = HandLandmarkPipeline.Configuration()
        configuration.maximumHands = 1
        let pipeline = HandLandmarkPipeline(palmDetector: palm, landmarker: landmarker, configuration: configuration)
        let first = try pipeline.processVideoFrame(image)
        #expect(first.palmDetectorRan && first.hands.count == 1)
        let second = try pipeline.processVideoFrame(image)
        #expect(!second.palmDetectorRan && second.hands.count == 1 && palm.runs == 1)
        #expect(second.hands[0].region == first.hands[0].nextRegion)
        landmarker.flag = 0.2
        let third = try pipeline.processVideoFrame(image)
        #expect(!third.palmDetectorRan && third.hands.isEmpty)
        landmarker.flag = nil
        let fourth = try pipeline.processVideoFrame(image)
        #expect(fourth.palmDetectorRan && fourth.hands.count == 1 && palm.runs == 2)
        // A model returning NaN finds no hand and leaves nothing tracked.
        landmarker.flag = .nan
        #expect(try pipeline.processVideoFrame(image).hands.isEmpty)
    }
}

extension PipelineReplayTests {
    /// BlazePose in video mode: tracked without the detector while the pose holds; a lost pose
    /// (flag below 0.5, or NaN) brings the detector back; a 1×1 image is defined, never a crash.
    @Test func blazePoseTracksAndRecoversFromALoss() throws {
        let name = "coco_000000000785"
        let detector = AnyInputModel(outputs: try Self.files(name, ["mp_pose_detection_out0_boxes.npy", "mp_pose_detection_out1_scores.npy"]))
        let landmarker = AnyInputModel(outputs: try Self.files(name, (0..<5).map { "mp_pose_landmark_out\($0).npy" }))
        let pipeline = BlazePosePipeline(detector: detector, landmarker: landmarker)
        let image = try MediaPipeReference.image(name)
        let first = try #require(try pipeline.process(image, timestampMicroseconds: 33_333))
        #expect(first.detection != nil && detector.runs == 1)
        let second = try #require(try pipeline.process(image, timestampMicroseconds: 66_666))
        #expect(second.detection == nil && detector.runs == 1 && second.region == first.nextRegion)
        landmarker.flag = .nan
        #expect(try pipeline.process(image, timestampMicroseconds: 99_999) == nil)
        landmarker.flag = nil
        let fourth = try #require(try pipeline.process(image, timestampMicroseconds: 133_332))
        #expect(fourth.detection != nil && detector.runs == 2)
        // After a loss the filters start again: the first sample passes through unsmoothed.
        #expect(fourth.landmarks == first.landmarks)
        let tiny = try pipeline.process(RGBImage(width: 1, height: 1))
        #expect(tiny?.landmarks.count ?? 33 == 33)
    }
}

/// Returns fixed outputs for any input, its flag (output 1) overridable.
final class AnyInputModel: MediaPipeModel {
    let outputs: [Tensor]
    var flag: Float?
    private(set) var runs = 0
    init(outputs: [Tensor]) { self.outputs = outputs }
    func run(_ input: Tensor) throws -> [Tensor] {
        runs += 1
        guard let flag else { return outputs }
        var changed = outputs
        changed[1] = try Tensor(shape: [1, 1], values: [flag])
        return changed
    }
}
