import Detectors
import Foundation
import FrameIO
import PoseCore
import Streaming
import Testing
@testable import MediaPipe

/// Several people on video (`maximumPoses` 2, as MediaPipe's `PoseLandmarker` tracks them) on a real
/// two-person video made from two of the shared clips side by side: the man of the portrait
/// jumping-jacks clip on the left, the woman of the landscape one on the right, each 216 × 216
/// (ffmpeg's scale), 60 frames. The right person leaves (her half painted grey) for 10 frames and
/// comes back. The reference for each person is the single-person pipeline (MediaPipe's legacy
/// video mode, `maximumPoses` 1) on their half alone, with the same frames blanked.
@Suite(.serialized) struct BlazePoseTwoPeopleVideoTests {
    static let side = 216, frames = 60
    /// Frames where the right person is gone.
    static let away = 24..<34
    static let videos = sharedFolder().appendingPathComponent("media/videos")
    /// The grey the right half is painted with while she is away.
    static let grey: UInt8 = 128

    /// `frames` frames of a clip through an ffmpeg filter giving `side` × `side`.
    static func half(_ file: String, filter: String) throws -> [RGBImage] {
        let decoder = try RawRGBFrames(path: videos.appendingPathComponent(file).path, width: side, height: side,
                                       frames: frames, filter: filter)
        var images: [RGBImage] = []
        while let image = try decoder.next() { images.append(image) }
        try #require(images.count == frames, "\(file): \(images.count) frames decoded")
        return images
    }

    /// The two halves: the left person (portrait clip padded to a square), the right person (a
    /// square crop of the landscape clip, grey while she is away).
    static func halves() throws -> (left: [RGBImage], right: [RGBImage]) {
        let left = try half("ahmedlila_jumping-jacks-counter__3_Count_Jumping_Jacks.mp4",
                            filter: "pad=720:720:157:0,scale=\(side):\(side)")
        var right = try half("409416541_Independent-Study__Jumping_Jacks.mp4", filter: "crop=540:540:160:0,scale=\(side):\(side)")
        for i in away { right[i] = RGBImage(width: side, height: side, pixels: [UInt8](repeating: grey, count: side * side * 3)) }
        return (left, right)
    }

    /// `left` and `right` side by side.
    static func sideBySide(_ left: RGBImage, _ right: RGBImage) -> RGBImage {
        var pixels = [UInt8]()
        pixels.reserveCapacity(2 * side * side * 3)
        let row = side * 3
        for y in 0..<side {
            pixels += left.pixels[(y * row)..<((y + 1) * row)]
            pixels += right.pixels[(y * row)..<((y + 1) * row)]
        }
        return RGBImage(width: 2 * side, height: side, pixels: pixels)
    }

    /// Every frame's poses through the stream (MediaPipe's filters, PoseKit's identities).
    static func run(_ detector: BlazePoseDetector, _ images: [RGBImage]) async throws -> [[Pose]] {
        var remaining = Array(images.reversed())
        var poses: [[Pose]] = []
        for try await detected in detector.poses(from: RGBVideo { remaining.popLast() }) { poses.append(detected.poses) }
        return poses
    }

    static func intersectionOverUnion(_ a: BoundingBox, _ b: BoundingBox) -> Double {
        let w = max(0, min(a.maxX, b.maxX) - max(a.minX, b.minX)), h = max(0, min(a.maxY, b.maxY) - max(a.minY, b.minY))
        let union = a.area + b.area - w * h
        return union > 0 ? w * h / union : 0
    }

    /// Mean distance in pixels between two poses' 33 landmarks, `shift` pixels subtracted from `a`'s x.
    static func meanDistance(_ a: Pose, _ b: Pose, shift: Double) -> Double {
        zip(a.keypoints, b.keypoints).map { p, q in
            let dx = p.position.x - shift - q.position.x, dy = p.position.y - q.position.y
            return (dx * dx + dy * dy).squareRoot()
        }.reduce(0, +) / Double(a.keypoints.count)
    }

    @Test func twoPeopleKeepTheirIdentitiesAndOnePersonComesBack() async throws {
        let (left, right) = try Self.halves()
        let both = zip(left, right).map { Self.sideBySide($0, $1) }
        let people = try MediaPipeModels.blazePoseDetector(maximumPoses: 2)
        let single = try MediaPipeModels.blazePoseDetector()
        let found = try await Self.run(people, both)
        let leftAlone = try await Self.run(single, left), rightAlone = try await Self.run(single, right)
        try #require(found.count == Self.frames && leftAlone.count == Self.frames && rightAlone.count == Self.frames)

        var leftIDs: Set<Int> = [], rightIDsBefore: Set<Int> = [], rightIDsAfter: Set<Int> = []
        var distances: [Double] = [], worstOverlap = 0.0, back: Int?
        for (i, poses) in found.enumerated() {
            let expected = Self.away.contains(i) ? 1 : 2
            // Each pose on its own half; a person is never reported twice.
            let onLeft = poses.filter { $0.boundingBox.maxX <= Double(Self.side) + 8 }
            let onRight = poses.filter { $0.boundingBox.minX >= Double(Self.side) - 8 }
            #expect(poses.count == expected && onLeft.count == 1 && onRight.count == expected - 1,
                    "frame \(i): \(poses.count) poses, \(onLeft.count) on the left, \(onRight.count) on the right")
            for (a, p) in poses.enumerated() {
                for q in poses[(a + 1)...] { worstOverlap = max(worstOverlap, Self.intersectionOverUnion(p.boundingBox, q.boundingBox)) }
            }
            if let pose = onLeft.first, onLeft.count == 1 {
                leftIDs.insert(try #require(pose.id))
                if let alone = leftAlone[i].first { distances.append(Self.meanDistance(pose, alone, shift: 0)) }
            }
            if let pose = onRight.first, onRight.count == 1 {
                if i < Self.away.lowerBound { rightIDsBefore.insert(try #require(pose.id)) } else {
                    rightIDsAfter.insert(try #require(pose.id))
                    back = back ?? i
                }
                if let alone = rightAlone[i].first { distances.append(Self.meanDistance(pose, alone, shift: Double(Self.side))) }
            }
        }
        let sorted = distances.sorted()
        // Two stable identities; she comes back on the first frame she is there (the detector runs
        // while fewer than 2 are tracked) with her id again (PoseKit's tracker keeps a lost person
        // for `maximumAge`, 1 s, longer than her 10 frames away).
        #expect(leftIDs.count == 1 && rightIDsBefore.count == 1 && leftIDs.isDisjoint(with: rightIDsBefore))
        #expect(back == Self.away.upperBound && rightIDsAfter == rightIDsBefore, "back on frame \(back ?? -1) with ids \(rightIDsAfter)")
        #expect(worstOverlap < 0.1, "two poses' boxes overlap (IoU \(worstOverlap))")
        // Close to the single-person pipeline on each half alone. Not equal: on the two-person frame
        // the detector sees each person at half the scale (the 432 × 216 frame letterboxed to its
        // 224 input), so the first regions differ; her return is found on the wider frame again;
        // while she is away his region is the detection's on every frame (MediaPipe's association)
        // where alone it follows his landmarks; and a crop reaching past a half's edge reads the
        // other half where alone it repeats the edge. Measured: median 0.16 px, p90 0.47 px, max
        // 1.25 px (mean of the 33 landmarks, people about 190 px tall); bars 0.5 px and 3 px.
        #expect(sorted.count == 2 * Self.frames - Self.away.count)
        #expect(sorted[sorted.count / 2] <= 0.5 && sorted.last! <= 3)
        print("BlazePose two people on video: ids left \(leftIDs), right \(rightIDsBefore) then \(rightIDsAfter) (back on frame \(back ?? -1)); largest IoU of two poses \(worstOverlap); mean landmark distance to the single-person pipeline on the half alone: median \(sorted[sorted.count / 2]) px, p90 \(sorted[sorted.count * 9 / 10]) px, max \(sorted.last!) px over \(sorted.count) poses")
    }
}
