import Detectors
import Foundation
import Testing
import FrameIO
import PoseCore
@testable import PoseNet

/// `--coordinates` and unclamped keypoints, on real frames.
@Suite struct CoordinatesTests {
    static let photo = sharedFolder().appendingPathComponent("media/images/coco_000000000785.ppm").path
    static let squatClip = sharedFolder().appendingPathComponent("media/videos/yuyoujiang_test_video__squat.mp4").path

    /// The numbers of one written line, by JSONSerialization: (width, height, box, [(x, y)]) of pose 0.
    static func firstPose(_ line: String) throws -> (width: Double, height: Double, coordinates: String?, box: [Double], points: [(Double, Double)]) {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        let pose = try #require((object["poses"] as? [[String: Any]])?.first)
        let keypoints = try #require(pose["keypoints"] as? [[String: Any]])
        return ((object["width"] as! NSNumber).doubleValue, (object["height"] as! NSNumber).doubleValue,
                object["coordinates"] as? String, (pose["box"] as! [NSNumber]).map(\.doubleValue),
                keypoints.map { (($0["x"] as! NSNumber).doubleValue, ($0["y"] as! NSNumber).doubleValue) })
    }

    /// A real photo's poses written in pixels, normalized and Vision coordinates: the normalized
    /// numbers are the pixel numbers over the size (Vision's y from the bottom), and each line
    /// reads back to the same pixels.
    @Test func threeCoordinateSystemsRoundTripToPixels() throws {
        let detector = try PoseDetector(model: .mobilenet075, configuration: PoseDetector.Configuration(inputSize: 257))
        let image = try RGBImage(contentsOfFile: Self.photo)
        let poses = try detector.poses(in: image)
        #expect(!poses.isEmpty)
        func line(_ coordinates: KeypointCoordinates) -> String {
            var json = JSONText()
            PoseJSONLinesEncoder.append(source: "785", frame: 0, width: image.width, height: image.height, time: nil,
                                        poses: poses, coordinates: coordinates, to: &json)
            return json.text
        }
        let pixels = try Self.firstPose(line(.pixels))
        #expect(pixels.coordinates == nil, "pixel lines are as before: no \"coordinates\"")
        let (w, h) = (Double(image.width), Double(image.height))
        for system in [KeypointCoordinates.normalized, .vision] {
            let text = line(system)
            let written = try Self.firstPose(text)
            #expect(written.coordinates == system.rawValue)
            for ((px, py), (x, y)) in zip(pixels.points, written.points) {
                // Both rounded when written: 1/200 pixel, and 5e-7 of the size.
                #expect(abs(x - px / w) <= 0.005 / w + 5e-7)
                #expect(abs(y - (system == .vision ? 1 - py / h : py / h)) <= 0.005 / h + 5e-7)
            }
            let box = written.box
            #expect(box[0] <= box[2] && box[1] <= box[3])
            let bottom = system == .vision ? 1 - pixels.box[3] / h : pixels.box[1] / h
            #expect(abs(box[1] - bottom) <= 0.005 / h + 5e-7, "y0 is the box's \(system == .vision ? "bottom" : "top")")
            // Read back: the detector's pixels, within the rounding of the written numbers.
            let back = try #require(try PoseJSONLinesDecoder.decodeAll(text).first)
            #expect(back.poses.count == poses.count)
            for (a, b) in zip(back.poses, poses) {
                for (p, q) in zip(a.keypoints, b.keypoints) {
                    #expect(abs(p.position.x - q.position.x) <= 5e-7 * w + 1e-9 && abs(p.position.y - q.position.y) <= 5e-7 * h + 1e-9)
                    #expect(p.visibility == nil)
                }
            }
        }
        // The conversions themselves: inverse of each other for points inside and outside the frame.
        for point in [Point(x: -12.5, y: 3), Point(x: 700, y: -0.25), Point(x: 320, y: 200)] {
            for system in KeypointCoordinates.allCases {
                let there = system.fromPixels(point, width: 640, height: 425)
                let back = system.toPixels(there, width: 640, height: 425)
                #expect(abs(back.x - point.x) < 1e-9 && abs(back.y - point.y) < 1e-9, "\(system) \(point)")
            }
        }
        #expect(KeypointCoordinates.vision.fromPixels(Point(x: 160, y: 425), width: 640, height: 425) == Point(x: 0.25, y: 0))
    }

    /// The first frame of the shared squat clip: the person's head is cut off by the top edge, and
    /// the network puts a confident eye above it. It is reported there (y < 0), not on the border.
    @Test func aConfidentKeypointOutsideTheFrameIsReportedThere() async throws {
        var first: VideoFrame?
        for try await frame in MediaFrames(path: Self.squatClip) { first = frame; break }
        let frame = try #require(first)
        let detector = try PoseDetector(model: .mobilenet075)
        let poses = try detector.poses(in: frame)
        let (width, height) = (Double(frame.width), Double(frame.height))
        func isOutside(_ p: Point) -> Bool { p.x < 0 || p.y < 0 || p.x > width || p.y > height }
        var outside: [(String, Keypoint)] = []
        for pose in poses {
            for (name, k) in zip(pose.keypointSet.names, pose.keypoints) where k.score >= 0.5 && isOutside(k.position) {
                outside.append((name, k))
            }
        }
        #expect(!outside.isEmpty, "no confident keypoint outside the \(frame.width)x\(frame.height) frame")
        #expect(outside.contains { $0.0.hasSuffix("Eye") && $0.1.position.y < 0 }, "\(outside)")
        // What consumers that need the image get: the same pose clamped onto it.
        let clamped = poses[0].clamped(width: frame.width, height: frame.height)
        #expect(clamped.keypoints.allSatisfy { (0...width - 1).contains($0.position.x) && (0...height - 1).contains($0.position.y) })
    }
}
