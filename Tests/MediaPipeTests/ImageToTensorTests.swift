import Foundation
import FrameIO
import Testing
@testable import MediaPipe
import Tensor

/// `ImageToTensor` against MediaPipe's own model inputs, compared at the uint8 level (the float
/// values are `v · scale + offset` of a uint8 `v`): detector letterboxes, BlazePose crops and
/// hand crops of the six images with tensors, and the model goldens' inputs.
@Suite struct ImageToTensorTests {
    /// The number of values whose uint8 level differs, and the largest difference in levels.
    static func levelDifferences(_ ours: Tensor, _ reference: Tensor, converter: ImageToTensor) -> (count: Int, largest: Int) {
        #expect(ours.count == reference.count)
        let step = (converter.rangeMaximum - converter.rangeMinimum) / 255
        var count = 0, largest = 0
        ours.withUnsafeBufferPointer { a in
            reference.withUnsafeBufferPointer { b in
                for i in 0..<min(a.count, b.count) {
                    let levelA = Int(((a[i] - converter.rangeMinimum) / step).rounded())
                    let levelB = Int(((b[i] - converter.rangeMinimum) / step).rounded())
                    if levelA != levelB { count += 1; largest = max(largest, abs(levelA - levelB)) }
                }
            }
        }
        return (count, largest)
    }

    @Test(arguments: MediaPipeReference.imagesWithTensors)
    func detectorAndLandmarkInputsMatchMediaPipe(name: String) throws {
        let image = try MediaPipeReference.image(name)
        let pose = try MediaPipeReference.pose(name)

        let detector = try ImageToTensor.poseDetection.tensor(from: image)
        let detectorDifference = Self.levelDifferences(detector.tensor, try MediaPipeReference.tensor(name, "mp_pose_detection_input.npy"),
                                                       converter: .poseDetection)
        #expect(detectorDifference.count == 0, "pose detector input \(name): \(detectorDifference)")

        for model in ["full", "lite"] {
            let palm = try ImageToTensor.palmDetection.tensor(from: image)
            let palmDifference = Self.levelDifferences(palm.tensor, try MediaPipeReference.tensor(name, "mp_palm_detection_\(model)_input.npy"),
                                                       converter: .palmDetection)
            #expect(palmDifference.count == 0, "palm input \(name) \(model): \(palmDifference)")
        }

        let roi = try #require(pose.pose_rect_from_detection).rect
        let crop = try ImageToTensor.poseLandmark.tensor(from: image, roi: roi)
        // The region is square in pixels: no letterbox beyond float rounding.
        #expect(max(crop.padding.left, crop.padding.top) < 1e-6)
        let cropDifference = Self.levelDifferences(crop.tensor, try MediaPipeReference.tensor(name, "mp_pose_landmark_input.npy"),
                                                   converter: .poseLandmark)
        #expect(cropDifference.count == 0, "pose landmark input \(name): \(cropDifference)")
    }

    /// The hand crops: MediaPipe's README reports two values one step off (rounding ties of its
    /// double maths) in two of the eight crops, so up to 2 values one level off are allowed.
    @Test(arguments: ["mpii_004645041", "mpii_060754485", "person-linda"])
    func handCropsMatchMediaPipe(name: String) throws {
        let image = try MediaPipeReference.image(name)
        for model in ["full", "lite"] {
            let hands = try MediaPipeReference.hands(name, model: model)
            let roi = try #require(hands.hand_rects_from_palm_detections?.first).rect
            let crop = try ImageToTensor.handLandmark.tensor(from: image, roi: roi)
            let difference = Self.levelDifferences(crop.tensor, try MediaPipeReference.tensor(name, "mp_hand_landmark_\(model)_input.npy"),
                                                   converter: .handLandmark)
            #expect(difference.count <= 2 && difference.largest <= 1, "hand input \(name) \(model): \(difference)")
            print("MediaPipe parity \(name) hand crop \(model): \(difference.count) of \(crop.tensor.count) values off, by at most \(difference.largest) level")
        }
    }

    /// The whole-frame letterbox: its padding is what MediaPipe's `PadRoi` gives (float32 formula).
    @Test func letterboxPaddingFollowsTheAspect() throws {
        let (region, padding) = ImageToTensor.poseDetection.region(imageWidth: 640, imageHeight: 425, roi: nil)
        #expect(region.width == 640 && region.height == 640)
        #expect(padding.left == 0 && padding.right == 0)
        #expect(padding.top == (1 - (Float(425) / 640) / 1) / 2 && padding.bottom == padding.top)
    }

    /// A region with no area, or NaN, is one error, never a crash.
    @Test func degenerateRegionsAreRefused() throws {
        let image = RGBImage(width: 4, height: 4)
        for roi in [NormalizedRect(xCenter: 0.5, yCenter: 0.5, width: 0, height: 0),
                    NormalizedRect(xCenter: .nan, yCenter: 0.5, width: 1, height: 1)] {
            #expect(throws: MediaPipeError.self) { _ = try ImageToTensor.handLandmark.tensor(from: image, roi: roi) }
        }
        // A 1×1 image and a region far outside it are defined: replicate reads the one pixel, zero reads nothing.
        var one = RGBImage(width: 1, height: 1)
        one[0, 0] = RGBColor(255, 0, 0)
        let far = NormalizedRect(xCenter: 40, yCenter: -30, width: 2, height: 2, rotation: 1)
        let replicated = try ImageToTensor.handLandmark.tensor(from: one, roi: far).tensor.scalars
        #expect(replicated[0] == 1 && replicated[1] == 0)
        let zero = try ImageToTensor.palmDetection.tensor(from: one, roi: far).tensor.scalars
        #expect(zero.allSatisfy { $0 == 0 })
    }
}

/// The model goldens' inputs (`models/<model>/<image>_input_1.npy`, crop region in `_roi.json`).
@Suite struct ModelGoldenInputTests {
    @Test(arguments: [("pose_detection", "coco_000000000785"), ("pose_landmark_full", "coco_000000000785"),
                      ("palm_detection_full", "mpii_004645041"), ("palm_detection_lite", "mpii_004645041"),
                      ("hand_landmark_full", "mpii_004645041"), ("hand_landmark_lite", "mpii_004645041")])
    func inputsMatch(model: String, name: String) throws {
        let folder = MediaPipeReference.folder.appendingPathComponent("models").appendingPathComponent(model)
        let converter: ImageToTensor = switch model {
        case "pose_detection": .poseDetection
        case "pose_landmark_full": .poseLandmark
        case "palm_detection_full", "palm_detection_lite": .palmDetection
        default: .handLandmark
        }
        let roiFile = folder.appendingPathComponent(name + "_roi.json")
        let roi = FileManager.default.fileExists(atPath: roiFile.path) ? try MediaPipeReference.json(RectJSON.self, roiFile).rect : nil
        let ours = try converter.tensor(from: try MediaPipeReference.image(name), roi: roi).tensor
        let reference = try NumPyArray.read(contentsOf: folder.appendingPathComponent(name + "_input_1.npy"))
        let difference = ImageToTensorTests.levelDifferences(ours, reference, converter: converter)
        #expect(difference.count <= (model.hasPrefix("hand") ? 2 : 0) && difference.largest <= 1, "\(model) \(name): \(difference)")
    }
}
