import Foundation
import FrameIO
import Testing
@testable import MediaPipe
import Tensor

/// BlazePose's person mask against MediaPipe's own (`coco_000000000785`, the one image with
/// `mp_segmentation_mask.npy`: MediaPipe's static-mode mask at 640×425), the mask smoothing
/// against its defining formula, and the segmentation branch left out when no mask is asked.
@Suite(.serialized) struct SegmentationTests {
    static let image = "coco_000000000785"

    /// MediaPipe's mask, and how far `mask` is from it: mean and largest absolute difference, and
    /// how many pixels differ by more than 1e-4.
    static func compareWithMediaPipe(_ mask: SegmentationMask) throws -> (mean: Double, largest: Float, over: Int) {
        let reference = try MediaPipeReference.tensor(image, "mp_segmentation_mask.npy")
        #expect(reference.shape == [425, 640] && mask.width == 640 && mask.height == 425)
        let expected = reference.scalars
        var sum = 0.0, largest: Float = 0, over = 0
        for (ours, theirs) in zip(mask.values, expected) {
            let d = abs(ours - theirs)
            sum += Double(d)
            largest = max(largest, d)
            if d > 1e-4 { over += 1 }
        }
        return (sum / Double(expected.count), largest, over)
    }

    /// From MediaPipe's own model tensors (replayed): the pipeline's sigmoid and warp back to the image.
    @Test func maskFromMediaPipesTensorsMatchesItsMask() throws {
        let detector = ReplayModel(input: try MediaPipeReference.tensor(Self.image, "mp_pose_detection_input.npy"),
                                   outputs: try PipelineReplayTests.files(Self.image, ["mp_pose_detection_out0_boxes.npy", "mp_pose_detection_out1_scores.npy"]),
                                   converter: .poseDetection)
        let landmarker = ReplayModel(input: try MediaPipeReference.tensor(Self.image, "mp_pose_landmark_input.npy"),
                                     outputs: try PipelineReplayTests.files(Self.image, (0..<5).map { "mp_pose_landmark_out\($0).npy" }),
                                     converter: .poseLandmark)
        var configuration = BlazePosePipeline.Configuration()
        configuration.segmentation = true
        let pipeline = BlazePosePipeline(detector: detector, landmarker: landmarker, configuration: configuration)
        let result = try #require(try pipeline.process(try MediaPipeReference.image(Self.image)))
        let (mean, largest, over) = try Self.compareWithMediaPipe(try #require(result.segmentationMask))
        // Measured: 272,000 pixels, 4 differ by more than 1e-6 (3 by more than 1e-4, up to 0.022):
        // at those the 1/32-pixel source position rounds the other way (the last bit of the float
        // matrix); mean 1e-7. A float bilinear warp instead: mean 7e-5.
        #expect(mean <= 1e-6 && over <= 8 && largest <= 0.03, "mask: mean \(mean), largest \(largest), \(over) pixels over 1e-4")
        print("MediaPipe parity mask from MediaPipe's tensors: mean \(mean), largest \(largest), \(over) pixels over 1e-4")
    }

    /// End to end: our crop, our network, our post-processing.
    @Test func maskEndToEndMatchesMediaPipesMask() throws {
        var configuration = BlazePosePipeline.Configuration()
        configuration.segmentation = true
        let pipeline = try MediaPipeModels.blazePose(configuration)
        let result = try #require(try pipeline.process(try MediaPipeReference.image(Self.image)))
        let (mean, largest, over) = try Self.compareWithMediaPipe(try #require(result.segmentationMask))
        // Measured: mean 3.3e-5, largest 0.135 (edge pixels, the network's last bits).
        #expect(mean <= 1e-4 && largest <= 0.2, "mask: mean \(mean), largest \(largest), \(over) pixels over 1e-4")
        print("MediaPipe parity mask end to end: mean \(mean), largest \(largest), \(over) pixels over 1e-4")
    }

    /// Without a mask asked for, the runner never computes the segmentation branch, and the
    /// pipeline neither reads it nor returns a mask.
    @Test func segmentationBranchIsSkippedUnlessAsked() throws {
        let full = try MediaPipeModels.model("pose_landmark_full")
        let pruned = try MediaPipeModels.model("pose_landmark_full", skipping: [BlazePosePipeline.segmentationOutput])
        #expect(pruned.stepCount < full.stepCount, "\(pruned.stepCount) steps without the mask, \(full.stepCount) with it")
        let pipeline = try MediaPipeModels.blazePose()
        let result = try #require(try pipeline.process(try MediaPipeReference.image(Self.image)))
        #expect(result.segmentationMask == nil)
        // Asking for a mask from a model that skips it is one clear error, not a wrong mask.
        var configuration = BlazePosePipeline.Configuration()
        configuration.segmentation = true
        let mismatched = BlazePosePipeline(detector: try MediaPipeModels.model("pose_detection"), landmarker: pruned, configuration: configuration)
        #expect(throws: MediaPipeError.outputSize(name: "segmentation", count: 1, expected: 65536)) {
            _ = try mismatched.process(try MediaPipeReference.image(Self.image))
        }
    }

    /// The blend follows `new = cur + (prev − cur)·u(cur)·0.7`; `u` is a polynomial fit of the
    /// squared binary entropy H(p)² (in bits), checked against it on a grid.
    @Test func smoothingFollowsItsDefinition() {
        for i in 0...100 {
            let p = Double(i) / 100
            let entropy = p <= 0 || p >= 1 ? 0 : -(p * log2(p) + (1 - p) * log2(1 - p))
            let reference = entropy * entropy
            #expect(abs(Double(SegmentationSmoothing.uncertainty(Float(p))) - reference) <= 5e-3, "u(\(p)) = \(SegmentationSmoothing.uncertainty(Float(p))), H² = \(reference)")
        }
        var smoothing = SegmentationSmoothing()
        let first = SegmentationMask(width: 3, height: 1, values: [0.5, 0.0, 0.9])
        #expect(smoothing.apply(first) == first, "the first mask passes through")
        let second = SegmentationMask(width: 3, height: 1, values: [0.5, 1.0, 0.2])
        let out = smoothing.apply(second)
        for i in 0..<3 {
            let cur = second.values[i], prev = first.values[i]
            let u = SegmentationSmoothing.uncertainty(cur)
            #expect(out.values[i] == cur + (prev - cur) * (u * 0.7))
        }
        // p = ½ is fully uncertain: 70 % of the previous value; p = 1 is certain: the new value.
        #expect(abs(out.values[0] - 0.5) < 1e-6 && abs(out.values[1] - 1) < 1e-3)
        smoothing.reset()
        #expect(smoothing.apply(second) == second, "after a reset the mask passes through")
    }
}

/// BlazePose free-running in video mode (our detector on frame 0, our regions from our own
/// landmarks every frame after) against MediaPipe's video mode on the same 120 frames.
@Suite(.serialized) struct FreeRunningParityTests {
    @Test func freeRunningTrackingStaysWithMediaPipe() throws {
        let frames = try MediaPipeReference.json([TrackingParityTests.Frame].self,
                                                 MediaPipeReference.pipelines.appendingPathComponent("video_jumping_jacks_120f_tracking.json"))
        let clip = sharedFolder().appendingPathComponent("media/videos/409416541_Independent-Study__Jumping_Jacks.mp4").path
        let decoder = try RawRGBFrames(path: clip, width: 960, height: 540, frames: frames.count)
        let pipeline = try MediaPipeModels.blazePose()
        var distances: [Float] = [], detectorFrames: [Int] = []
        for (index, frame) in frames.enumerated() {
            let image = try #require(try decoder.next())
            let result = try #require(try pipeline.process(image, timestampMicroseconds: frame.ts), "frame \(index): no pose")
            if result.detection != nil { detectorFrames.append(index) }
            for (ours, theirs) in zip(result.pixelLandmarks, try #require(frame.pose_landmarks).landmark) {
                let dx = ours.x - theirs.x * 960, dy = ours.y - theirs.y * 540
                distances.append((dx * dx + dy * dy).squareRoot())
            }
        }
        distances.sort()
        let median = distances[distances.count / 2], p90 = distances[distances.count * 9 / 10], worst = distances.last!
        // The bar: within 1 px median. Tiny differences feed back through the regions and
        // the One-Euro filter (β = 80), so free-running cannot match to the last bit.
        #expect(median <= 1, "free-running: median \(median) px")
        #expect(detectorFrames == [0], "the detector ran on frames \(detectorFrames); MediaPipe ran it on frame 0 only")
        print("MediaPipe parity free-running video (120 frames): landmarks median \(median) px, p90 \(p90) px, max \(worst) px; detector on frames \(detectorFrames)")
    }
}
