import Foundation
import PoseCore
import Testing

/// A pose whose points are another model's (`Pose.landmarksFrom`: BlazePose for everyone reports a person it cannot
/// read from PoseNet's pose) says so in `posekit pose`'s JSON Lines as `"landmarks_from"`, after `"score"`, and reads
/// back; a pose of its own model writes no such field; a value that is no model's name is refused.
@Suite struct PoseLandmarksFromTests {
    static func pose(from source: String?) -> Pose {
        var pose = Pose(keypoints: (0..<33).map { Keypoint(position: Point(x: Double($0), y: 2 * Double($0)), score: $0 < 17 ? 0.5 : 0) },
                        score: 0.3104, keypointSet: .blazePose33)
        pose.landmarksFrom = source
        return pose
    }

    @Test func theFieldIsWrittenAfterTheScoreAndReadBack() throws {
        var json = JSONText()
        PoseJSONLinesEncoder.append(source: "a.ppm", frame: 0, width: 64, height: 96, time: nil, poses: [Self.pose(from: "posenet")], to: &json)
        // Written by hand: the box spans (0, 0)–(32, 64).
        #expect(json.text.hasPrefix("{\"source\": \"a.ppm\", \"frame\": 0, \"width\": 64, \"height\": 96, \"poses\": [{\"score\": 0.3104, "
                                    + "\"landmarks_from\": \"posenet\", \"box\": [0, 0, 32, 64], \"keypoints\": [{\"part\": \"nose\""))
        var decoder = PoseJSONLinesDecoder()
        let frame = try #require(try decoder.decode(line: json.text))
        #expect(frame.poses == [Self.pose(from: "posenet")])

        var own = JSONText()
        PoseJSONLinesEncoder.append(source: "a.ppm", frame: 0, width: 64, height: 96, time: nil, poses: [Self.pose(from: nil)], to: &own)
        #expect(!own.text.contains("landmarks_from"))
        #expect(try decoder.decode(line: own.text)?.poses.first?.landmarksFrom == nil)
    }

    @Test func codableKeepsIt() throws {
        let pose = Self.pose(from: "posenet")
        #expect(try JSONDecoder().decode(Pose.self, from: JSONEncoder().encode(pose)) == pose)
        #expect(!String(decoding: try JSONEncoder().encode(Self.pose(from: nil)), as: UTF8.self).contains("landmarksFrom"))
    }

    @Test func aValueThatIsNoNameIsRefused() throws {
        var json = JSONText()
        PoseJSONLinesEncoder.append(source: "a.ppm", frame: 0, width: 64, height: 96, time: nil, poses: [Self.pose(from: "posenet")], to: &json)
        for bad in ["7", "\"\"", "null", "[\"posenet\"]", "\"\(String(repeating: "x", count: 65))\""] {
            var decoder = PoseJSONLinesDecoder()
            #expect(throws: PoseDataError.self) { try decoder.decode(line: json.text.replacingOccurrences(of: "\"posenet\"", with: bad)) }
        }
    }
}
