import Foundation
import Testing
@testable import MediaPipe
import Tensor

/// Detection and landmark post-processing fed MediaPipe's own raw model outputs (`mp_*.npy`),
/// against what MediaPipe's graph produced from them (`mp_*_pipeline*.json`).
@Suite struct PostprocessingTests {
    @Test func anchorsHaveMediaPipesCountsAndOrder() {
        let pose = SSDAnchorOptions.poseDetection.anchors()
        #expect(pose.count == 28 * 28 * 2 + 14 * 14 * 2 + 7 * 7 * 6)
        #expect(pose.count == 2254)
        // First cell of the stride-8 map, then its second anchor; the last anchor is the last 7×7 cell.
        #expect(pose[0] == Anchor(xCenter: 0.5 / 28, yCenter: 0.5 / 28, width: 1, height: 1))
        #expect(pose[1] == pose[0])
        #expect(pose[2] == Anchor(xCenter: 1.5 / 28, yCenter: 0.5 / 28, width: 1, height: 1))
        #expect(pose[28 * 28 * 2] == Anchor(xCenter: 0.5 / 14, yCenter: 0.5 / 14, width: 1, height: 1))
        #expect(pose.last == Anchor(xCenter: 6.5 / 7, yCenter: 6.5 / 7, width: 1, height: 1))
        let palm = SSDAnchorOptions.palmDetection.anchors()
        #expect(palm.count == 24 * 24 * 2 + 12 * 12 * 6)
        #expect(palm.count == 2016)
        #expect(palm[24 * 24 * 2 + 6] == Anchor(xCenter: 1.5 / 12, yCenter: 0.5 / 12, width: 1, height: 1))
    }

    static func buffer(_ tensor: Tensor) -> [Float] { tensor.scalars }

    @Test(arguments: MediaPipeReference.imagesWithTensors)
    func poseDetectionAndRegionMatchMediaPipe(name: String) throws {
        let reference = try MediaPipeReference.pose(name)
        let size = ImageSize(width: reference.width, height: reference.height)
        let (_, padding) = ImageToTensor.poseDetection.region(imageWidth: size.width, imageHeight: size.height, roi: nil)
        let boxes = try MediaPipeReference.tensor(name, "mp_pose_detection_out0_boxes.npy").scalars
        let scores = try MediaPipeReference.tensor(name, "mp_pose_detection_out1_scores.npy").scalars
        let detections = try boxes.withUnsafeBufferPointer { b in
            try scores.withUnsafeBufferPointer { s in try DetectorPostprocessing.poseDetection.detections(boxes: b, scores: s, padding: padding) }
        }
        let first = try #require(detections.first)
        let expected = try #require(reference.pose_detection)
        #expect(first.score == expected.score[0])
        #expect(difference(first, expected) <= 1e-6, "\(name): detection differs by \(difference(first, expected))")
        let roi = DetectorPostprocessing.poseRegion(first, imageSize: size)
        let expectedROI = try #require(reference.pose_rect_from_detection).rect
        #expect(difference(roi, expectedROI) <= 1e-6, "\(name): region \(roi) vs \(expectedROI)")
    }

    @Test(arguments: MediaPipeReference.imagesWithTensors)
    func palmDetectionsAndRegionsMatchMediaPipe(name: String) throws {
        for model in ["full", "lite"] {
            let reference = try MediaPipeReference.hands(name, model: model)
            let size = ImageSize(width: reference.width, height: reference.height)
            let (_, padding) = ImageToTensor.palmDetection.region(imageWidth: size.width, imageHeight: size.height, roi: nil)
            let boxes = try MediaPipeReference.tensor(name, "mp_palm_detection_\(model)_out0_boxes.npy").scalars
            let scores = try MediaPipeReference.tensor(name, "mp_palm_detection_\(model)_out1_scores.npy").scalars
            let detections = try boxes.withUnsafeBufferPointer { b in
                try scores.withUnsafeBufferPointer { s in try DetectorPostprocessing.palmDetection.detections(boxes: b, scores: s, padding: padding) }
            }
            // `ClipDetectionVectorSize`: the first max_num_hands (2).
            let palms = Array(detections.prefix(2))
            let expected = reference.palm_detections ?? []
            #expect(palms.count == expected.count, "\(name) \(model): \(palms.count) palms, MediaPipe \(expected.count)")
            for (palm, expectedPalm) in zip(palms, expected) {
                #expect(palm.score == expectedPalm.score[0])
                #expect(difference(palm, expectedPalm) <= 1e-6, "\(name) \(model): palm differs by \(difference(palm, expectedPalm))")
            }
            for (palm, expectedROI) in zip(palms, reference.hand_rects_from_palm_detections ?? []) {
                let roi = DetectorPostprocessing.palmRegion(palm, imageSize: size)
                #expect(difference(roi, expectedROI.rect) <= 3e-6, "\(name) \(model): region \(roi) vs \(expectedROI.rect)")
            }
        }
    }

    @Test(arguments: MediaPipeReference.imagesWithTensors)
    func poseLandmarksMatchMediaPipe(name: String) throws {
        let reference = try MediaPipeReference.pose(name)
        let size = ImageSize(width: reference.width, height: reference.height)
        let roi = try #require(reference.pose_rect_from_detection).rect
        let (_, padding) = ImageToTensor.poseLandmark.region(imageWidth: size.width, imageHeight: size.height, roi: roi)
        let outputs = try (0..<5).map { try MediaPipeReference.tensor(name, "mp_pose_landmark_out\($0).npy").scalars }
        let pose = try outputs[0].withUnsafeBufferPointer { landmarks in
            try outputs[3].withUnsafeBufferPointer { heatmap in
                try outputs[4].withUnsafeBufferPointer { world in
                    try PoseLandmarks(landmarkTensor: landmarks, poseFlag: outputs[1][0], heatmap: heatmap, worldTensor: world,
                                      roi: roi, padding: padding)
                }
            }
        }
        let expected = try #require(reference.pose_landmarks).landmark
        let expectedWorld = try #require(reference.pose_world_landmarks).landmark
        #expect(pose.landmarks.count == 33 && expected.count == 33)
        var pixels: Float = 0, depth: Float = 0, probabilities: Float = 0, world: Float = 0
        for (ours, theirs) in zip(pose.landmarks, expected) {
            pixels = max(pixels, abs(ours.x - theirs.x) * Float(size.width), abs(ours.y - theirs.y) * Float(size.height))
            depth = max(depth, abs(ours.z - theirs.z))
            probabilities = max(probabilities, abs(ours.visibility! - theirs.visibility!), abs(ours.presence! - theirs.presence!))
        }
        for (i, (ours, theirs)) in zip(pose.worldLandmarks, expectedWorld).enumerated() {
            world = max(world, abs(ours.x - theirs.x), abs(ours.y - theirs.y), abs(ours.z - theirs.z))
            // `VisibilityCopyCalculator`: the image landmarks' visibility and presence.
            #expect(ours.visibility == pose.landmarks[i].visibility && ours.presence == pose.landmarks[i].presence)
        }
        // The README's achieved figures for MediaPipe's recorded tensors: ≤ 4.3e-4 px, z ≤ 8e-8,
        // visibility/presence ≤ 1.1e-7, world ≤ 8e-8 m.
        #expect(pixels <= 5e-4, "\(name): landmarks \(pixels) px")
        #expect(depth <= 1e-6, "\(name): z \(depth)")
        #expect(probabilities <= 2e-7, "\(name): visibility/presence \(probabilities)")
        #expect(world <= 1e-7, "\(name): world \(world) m")
        // Static mode: the region from the (unfiltered) auxiliary landmarks.
        let next = PoseLandmarksToRect.roi(auxiliary: pose.auxiliary, imageSize: size)
        let expectedNext = try #require(reference.pose_rect_from_landmarks).rect
        #expect(difference(next, expectedNext) <= 2e-6, "\(name): next region \(next) vs \(expectedNext)")
        print("MediaPipe parity \(name) pose: landmarks ≤ \(pixels) px, z ≤ \(depth), vis/presence ≤ \(probabilities), world ≤ \(world) m, next region ≤ \(difference(next, expectedNext))")
    }

    @Test(arguments: ["mpii_004645041", "mpii_060754485", "person-linda"])
    func handLandmarksMatchMediaPipe(name: String) throws {
        for model in ["full", "lite"] {
            let reference = try MediaPipeReference.hands(name, model: model)
            let size = ImageSize(width: reference.width, height: reference.height)
            // The raw tensors are those of the first hand region (palm order, nothing tracked yet).
            let roi = try #require(reference.hand_rects_from_palm_detections?.first).rect
            let (_, padding) = ImageToTensor.handLandmark.region(imageWidth: size.width, imageHeight: size.height, roi: roi)
            let outputs = try (0..<4).map { try MediaPipeReference.tensor(name, "mp_hand_landmark_\(model)_out\($0).npy").scalars }
            let hand = try outputs[0].withUnsafeBufferPointer { landmarks in
                try outputs[3].withUnsafeBufferPointer { world in
                    try HandLandmarks(landmarkTensor: landmarks, handFlag: outputs[1][0], leftProbability: outputs[2][0],
                                      worldTensor: world, roi: roi, padding: padding)
                }
            }
            let expected = try #require(reference.multi_hand_landmarks?.first).landmark
            let expectedWorld = try #require(reference.multi_hand_world_landmarks?.first).landmark
            let expectedHandedness = try #require(reference.multi_handedness?.first?.classification.first)
            var pixels: Float = 0, depth: Float = 0, world: Float = 0
            for (ours, theirs) in zip(hand.landmarks, expected) {
                pixels = max(pixels, abs(ours.x - theirs.x) * Float(size.width), abs(ours.y - theirs.y) * Float(size.height))
                depth = max(depth, abs(ours.z - theirs.z))
            }
            for (ours, theirs) in zip(hand.worldLandmarks, expectedWorld) {
                world = max(world, abs(ours.x - theirs.x), abs(ours.y - theirs.y), abs(ours.z - theirs.z))
            }
            #expect(hand.presence >= 0.5)
            #expect(hand.handedness.label.rawValue == expectedHandedness.label && hand.handedness.index == expectedHandedness.index)
            #expect(abs(hand.handedness.score - expectedHandedness.score) <= 1e-7)
            // README: ≤ 1.1e-4 px, world ≤ 1.4e-7 m.
            #expect(pixels <= 2e-4, "\(name) \(model): landmarks \(pixels) px")
            #expect(depth <= 1e-6, "\(name) \(model): z \(depth)")
            #expect(world <= 2e-7, "\(name) \(model): world \(world) m")
            let next = HandLandmarksToRect.roi(hand.landmarks, imageSize: size)
            let expectedNext = try #require(reference.hand_rects_from_landmarks?.first).rect
            #expect(difference(next, expectedNext) <= 3e-6, "\(name) \(model): next region \(next) vs \(expectedNext)")
            print("MediaPipe parity \(name) hand \(model): landmarks ≤ \(pixels) px, z ≤ \(depth), world ≤ \(world) m, next region ≤ \(difference(next, expectedNext))")
        }
    }

    /// The next region from MediaPipe's own landmarks of every hand it found (all 14 images):
    /// `HandLandmarksToRect` on the 12 points gives MediaPipe's `hand_rects_from_landmarks`.
    @Test func handRegionsFromMediaPipesLandmarks() throws {
        var checked = 0
        for name in MediaPipeReference.images {
            for model in ["full", "lite"] {
                let reference = try MediaPipeReference.hands(name, model: model)
                let size = ImageSize(width: reference.width, height: reference.height)
                for (hand, expected) in zip(reference.multi_hand_landmarks ?? [], reference.hand_rects_from_landmarks ?? []) {
                    let landmarks = hand.landmark.map { Landmark(x: $0.x, y: $0.y, z: $0.z) }
                    let rect = HandLandmarksToRect.roi(landmarks, imageSize: size)
                    #expect(difference(rect, expected.rect) <= 3e-6, "\(name) \(model): \(rect) vs \(expected.rect)")
                    checked += 1
                }
            }
        }
        #expect(checked == 8)
    }
}
