import Foundation
import FrameIO
import Testing
@testable import MediaPipe
import Tensor

/// A model that returns NaN in every output (`shapes`: each output's shape), or NaN only where asked.
final class NaNModel: MediaPipeModel {
    let outputs: [Tensor]
    init(_ outputs: [Tensor]) { self.outputs = outputs }
    convenience init(shapes: [[Int]]) throws {
        try self.init(shapes.map { try Tensor(shape: $0, values: [Float](repeating: .nan, count: $0.reduce(1, *))) })
    }
    func run(_ input: Tensor) throws -> [Tensor] { outputs }
}

/// BlazePose on input that is not a person in a frame: every case a defined result or one error line.
@Suite(.serialized) struct BlazePoseBadInputTests {
    static let landmarkShapes = [[1, 195], [1, 1], [1, 256, 256, 1], [1, 64, 64, 39], [1, 117]]

    static func allFinite(_ results: [BlazePoseResult]) -> Bool {
        results.allSatisfy { result in
            (result.landmarks + result.worldLandmarks).allSatisfy { $0.x.isFinite && $0.y.isFinite && $0.z.isFinite }
                && (result.segmentationMask?.values.allSatisfy { $0.isFinite && $0 >= 0 && $0 <= 1 } ?? true)
        }
    }

    static func maskPipeline() throws -> BlazePosePipeline {
        var configuration = BlazePosePipeline.Configuration()
        configuration.segmentation = true
        return try MediaPipeModels.blazePose(configuration)
    }

    @Test func noPersonGivesNoPose() throws {
        let pipeline = try Self.maskPipeline()
        #expect(try pipeline.processPoses(RGBImage(width: 320, height: 240)).isEmpty)
        #expect(try pipeline.process(RGBImage(width: 320, height: 240), timestampMicroseconds: 1) == nil)
    }

    /// A person, then two empty frames, then the person again: found, lost, found by the detector.
    /// As MediaPipe's legacy graph (measured on MediaPipe 0.10.14: docs/blazepose.md), the first
    /// frame back has the image on its own's landmark positions (their One-Euro filters reset on
    /// the frames without a pose), but visibilities and world landmarks continue from before the
    /// gap (their filters never see those frames): the reference is those filters run on the
    /// unsmoothed sequence's frames 0, 1 and 4 (the same regions: the auxiliary filters that steer
    /// them run with smoothing off too).
    @Test func personLeavingAndComingBack() throws {
        let person = try MediaPipeReference.image("person-linda")
        let empty = RGBImage(width: person.width, height: person.height)
        let frames = [person, person, empty, empty, person]
        let smoothing = BlazePosePipeline.Configuration()
        var raw = smoothing
        raw.smoothLandmarks = false
        var results: [[BlazePoseResult]] = [[], []]
        for (run, configuration) in [smoothing, raw].enumerated() {
            let pipeline = try MediaPipeModels.blazePose(configuration)
            for (i, frame) in frames.enumerated() {
                results[run].append(contentsOf: try pipeline.processPoses(frame, timestampMicroseconds: Int64(i + 1) * 33_333))
            }
            #expect(results[run].count == 3, "found on frames 0, 1 and 4 only")
        }
        let back = try #require(results[0].last), rawFrames = results[1]
        #expect(back.detection != nil, "the detector found the person again")
        let alone = try #require(try MediaPipeModels.blazePose().process(person))
        // Positions: the image on its own's, but for the pixels → normalized round trip of the filter.
        let worstPixel = zip(back.pixelLandmarks, alone.pixelLandmarks).map { max(abs($0.x - $1.x), abs($0.y - $1.y), abs($0.z - $1.z)) }.max()!
        #expect(worstPixel <= 1e-3 && back.nextRegion == alone.nextRegion, "first frame back: \(worstPixel) px from the image on its own")
        // Visibility and world: the filters continued over the gap.
        var visibility = VisibilitySmoothing(), worldVisibility = VisibilitySmoothing(), world = LandmarksSmoothing(.poseWorldLandmarks)
        var expectedVisibility: [Landmark] = [], expectedWorld: [Landmark] = []
        for (frame, result) in zip([1, 2, 5], rawFrames) {
            expectedVisibility = visibility.apply(result.landmarks)
            expectedWorld = world.apply(worldVisibility.apply(result.worldLandmarks), timestampMicroseconds: Int64(frame) * 33_333)
        }
        #expect(back.landmarks.map(\.visibility) == expectedVisibility.map(\.visibility))
        #expect(back.worldLandmarks == expectedWorld)
        let worldGap = zip(back.worldLandmarks, alone.worldLandmarks).map { max(abs($0.x - $1.x), abs($0.y - $1.y), abs($0.z - $1.z)) }.max()!
        let visibilityGap = zip(back.landmarks, alone.landmarks).map { abs(($0.visibility ?? 0) - ($1.visibility ?? 0)) }.max()!
        print("BlazePose person coming back (legacy, person-linda): positions \(worstPixel) px from the image alone; world up to \(worldGap * 1000) mm, visibility up to \(visibilityGap) from it (MediaPipe 0.10.14 itself: 0 px, 16.9 mm, 0.0077; ours within 4.4 mm, 0.0016 of its)")
    }

    /// A region half outside the frame reads the edge pixels (border replicate); its mask is zero
    /// where the crop does not reach and a probability elsewhere.
    @Test func regionHalfOutsideTheFrame() throws {
        let image = try MediaPipeReference.image("person-linda")
        let pipeline = try Self.maskPipeline()
        let region = NormalizedRect(xCenter: 0, yCenter: 0.5, width: 0.8, height: 0.8 * Float(image.width) / Float(image.height))
        let result = try pipeline.process(image, region: region, timestampMicroseconds: 1)
        if let result {
            #expect(Self.allFinite([result]))
            let mask = try #require(result.segmentationMask)
            #expect(mask[image.width - 1, image.height / 2] == 0, "no mask outside the crop")
        }
        // The same person cut in half by the frame's edge: found or not, never undefined.
        let halfWidth = image.width / 2
        var pixels: [UInt8] = []
        pixels.reserveCapacity(halfWidth * image.height * 3)
        for y in 0..<image.height {
            let start = y * image.width * 3
            pixels += image.pixels[start..<(start + halfWidth * 3)]
        }
        let half = RGBImage(width: halfWidth, height: image.height, pixels: pixels)
        #expect(Self.allFinite(try pipeline.processPoses(half)))
    }

    @Test func onePixelImage() throws {
        let pipeline = try Self.maskPipeline()
        let results = try pipeline.processPoses(RGBImage(width: 1, height: 1, pixels: [200, 120, 90]))
        #expect(results.isEmpty || Self.allFinite(results))
        #expect(try pipeline.processPoses(RGBImage(width: 1, height: 1, pixels: [200, 120, 90]), timestampMicroseconds: 1).count == results.count)
    }

    /// NaN from either model: no detection, or no pose; the next frame runs the detector again.
    @Test func modelReturningNaN() throws {
        let image = try MediaPipeReference.image("person-linda")
        let nanDetector = try NaNModel(shapes: [[1, 2254, 12], [1, 2254, 1]])
        let landmarker = try MediaPipeModels.model("pose_landmark_full", skipping: [2])
        #expect(try BlazePosePipeline(detector: nanDetector, landmarker: landmarker).processPoses(image).isEmpty)

        // A real detection, then a landmark model answering NaN, with a confident flag or a NaN one.
        let detector = try MediaPipeModels.model("pose_detection")
        var outputs = try NaNModel(shapes: Self.landmarkShapes).outputs
        let nanFlag = BlazePosePipeline(detector: detector, landmarker: NaNModel(outputs))
        #expect(try nanFlag.process(image, timestampMicroseconds: 1) == nil)
        outputs[1] = try Tensor(shape: [1, 1], values: [0.9])
        var configuration = BlazePosePipeline.Configuration()
        configuration.segmentation = true
        let nanLandmarks = BlazePosePipeline(detector: detector, landmarker: NaNModel(outputs), configuration: configuration)
        #expect(try nanLandmarks.process(image, timestampMicroseconds: 1) == nil)
        #expect(try nanLandmarks.process(image, timestampMicroseconds: 2) == nil)
        // NaN logits alone (landmarks real) give a mask of defined grey levels.
        let mask = try outputs[2].withUnsafeBufferPointer { try TensorsToSegmentation.mask(logits: $0) }
        #expect(mask.grayLevels.allSatisfy { $0 == 0 })
    }

    /// A region with a non-finite value: one error line from the crop; no pose from the tracker.
    @Test func nonFiniteRegion() throws {
        let region = NormalizedRect(xCenter: .nan, yCenter: 0.5, width: 0.5, height: 0.5)
        let pipeline = try MediaPipeModels.blazePose()
        #expect(throws: MediaPipeError.self) { _ = try pipeline.landmarks(RGBImage(width: 8, height: 8), region: region) }
        #expect(MediaPipeError.degenerateRegion(region).localizedDescription.hasPrefix("the crop region has no area or a non-finite value"))
        #expect(try pipeline.process(RGBImage(width: 8, height: 8), region: region, timestampMicroseconds: 1) == nil)
    }
}
