import Foundation
import FrameIO
import Testing
@testable import MediaPipe
import Tensor

/// Several people with BlazePose (`maximumPoses` > 1, as MediaPipe's `PoseLandmarker` runs it) on
/// an AI Challenger photo of `images-val` with three labelled people (the detector finds two of
/// them: the third is small and half hidden), checked against the image's ground truth: each pose
/// found lies on a different labelled person.
@Suite(.serialized) struct BlazePoseMultiPersonTests {
    static let image = "aic_fa436c914fe4a8ec1ec5474af4d3820b84d17561"
    /// BlazePose's indices of COCO-17's points (nose, eyes, ears, shoulders, elbows, wrists, hips, knees, ankles).
    static let coco17 = [0, 2, 5, 7, 8, 11, 12, 13, 14, 15, 16, 23, 24, 25, 26, 27, 28]

    struct GroundTruth: Decodable {
        struct Image: Decodable { var id: Int; var file_name: String }
        struct Annotation: Decodable { var image_id: Int; var keypoints: [Float]; var area: Float }
        var images: [Image]
        var annotations: [Annotation]
    }

    /// The labelled people of the image: their COCO-17 keypoints (nil where not labelled) and area.
    static func labelledPeople() throws -> [(points: [SIMD2<Float>?], area: Float)] {
        let truth = try MediaPipeReference.json(GroundTruth.self, sharedFolder().appendingPathComponent("media/images-val/ground_truth.json"))
        let id = try #require(truth.images.first { $0.file_name == image + ".jpg" }).id
        return truth.annotations.filter { $0.image_id == id }.map { annotation in
            let points = (0..<17).map { k -> SIMD2<Float>? in
                annotation.keypoints[3 * k + 2] > 0 ? SIMD2(annotation.keypoints[3 * k], annotation.keypoints[3 * k + 1]) : nil
            }
            return (points, annotation.area)
        }.filter { $0.points.contains { $0 != nil } }
    }

    /// Which labelled person a pose lies on (its labelled points within 0.25·√area on average), or nil.
    static func person(of result: BlazePoseResult, among people: [(points: [SIMD2<Float>?], area: Float)]) -> Int? {
        let pixels = result.pixelLandmarks
        var best: (index: Int, error: Float)?
        for (index, person) in people.enumerated() {
            var sum: Float = 0, count = 0
            for (k, point) in person.points.enumerated() {
                guard let point else { continue }
                let ours = pixels[coco17[k]]
                sum += ((ours.x - point.x) * (ours.x - point.x) + (ours.y - point.y) * (ours.y - point.y)).squareRoot()
                count += 1
            }
            let error = sum / Float(count) / person.area.squareRoot()
            if error <= 0.25 && error < (best?.error ?? .infinity) { best = (index, error) }
        }
        return best?.index
    }

    static func decoded() throws -> RGBImage {
        try MediaPipeReference.decodeJPEG(sharedFolder().appendingPathComponent("media/images-val/\(image).jpg").path)
    }

    static func pipeline(maximumPoses: Int) throws -> BlazePosePipeline {
        var configuration = BlazePosePipeline.Configuration()
        configuration.maximumPoses = maximumPoses
        return try MediaPipeModels.blazePose(configuration)
    }

    @Test func severalPeopleInOneImageAreDifferentLabelledPeople() throws {
        let people = try Self.labelledPeople()
        #expect(people.count == 3)
        let image = try Self.decoded()
        let results = try Self.pipeline(maximumPoses: 4).processPoses(image)
        let matched = results.map { Self.person(of: $0, among: people) }
        print("BlazePose several people, \(Self.image): \(results.count) poses, on labelled people \(matched)")
        #expect(results.count >= 2, "\(results.count) poses")
        #expect(matched.allSatisfy { $0 != nil }, "every pose lies on a labelled person: \(matched)")
        #expect(Set(matched.compactMap { $0 }).count == matched.count, "no labelled person twice: \(matched)")
        // The best-scoring person is MediaPipe's single-person answer, bit for bit.
        let single = try #require(try Self.pipeline(maximumPoses: 1).process(image))
        #expect(results.first == single)
        // At most the maximum.
        #expect(try Self.pipeline(maximumPoses: 1).processPoses(image).count == 1)
    }

    /// In video (the photo as three frames), as MediaPipe's `PoseLandmarker` tracks: while fewer
    /// than the maximum are tracked the detector runs, and a detection of a tracked person is that
    /// person again (their region replaced, no second pose): the same people on every frame, each
    /// on a different labelled person.
    @Test func trackedPeopleAreNotDuplicated() throws {
        let people = try Self.labelledPeople()
        let image = try Self.decoded()
        let pipeline = try Self.pipeline(maximumPoses: 4)
        var counts: [Int] = []
        for frame in 0..<3 {
            let results = try pipeline.processPoses(image, timestampMicroseconds: Int64(frame + 1) * 33_333)
            counts.append(results.count)
            let matched = results.map { Self.person(of: $0, among: people) }
            #expect(matched.allSatisfy { $0 != nil } && Set(matched.compactMap { $0 }).count == matched.count,
                    "frame \(frame): poses on labelled people \(matched)")
            for (i, a) in results.enumerated() {
                for b in results[(i + 1)...] {
                    #expect(a.region.axisAlignedBox.intersectionOverUnion(b.region.axisAlignedBox) <= 0.5, "frame \(frame): two regions on one person")
                }
            }
        }
        #expect(counts.allSatisfy { $0 == counts[0] } && counts[0] >= 2, "people per frame \(counts)")
    }
}
