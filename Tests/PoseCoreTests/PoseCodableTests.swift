import Foundation
import PoseCore
import Testing

/// `Pose`'s `Codable` form keeps every field a model may fill (visibility, presence, z, world) and
/// refuses a world array of the wrong length.
@Suite struct PoseCodableTests {
    /// A hand-checked BlazePose-shaped pose: 33 points, each field distinct so a swap would show.
    private func blazePose() -> Pose {
        let set = KeypointSet.blazePose33
        var pose = Pose(keypointSet: set, points: (0..<set.count).map { Point(x: Double($0), y: Double($0) + 0.5) },
                        scores: (0..<set.count).map { Double($0) / 64 }, visibilities: (0..<set.count).map { 1 - Double($0) / 64 },
                        score: 0.75, id: 3)
        for i in pose.keypoints.indices {
            pose.keypoints[i].presence = Double(i) / 100
            pose.keypoints[i].z = -Double(i) * 2
        }
        pose.world = (0..<set.count).map { WorldPoint(x: Double($0) / 10, y: -Double($0) / 20, z: 0.125) }
        return pose
    }

    @Test func roundTripKeepsPresenceDepthAndWorld() throws {
        let pose = blazePose()
        let data = try JSONEncoder().encode(pose)
        let decoded = try JSONDecoder().decode(Pose.self, from: data)
        #expect(decoded == pose)
        #expect(decoded.keypoints[5].presence == 0.05)
        #expect(decoded.keypoints[5].z == -10)
        #expect(decoded.world?[4] == WorldPoint(x: 0.4, y: -0.2, z: 0.125))
    }

    @Test func posenetPoseWritesNoNewFields() throws {
        let pose = Pose(keypointSet: .coco17, points: Array(repeating: Point(x: 1, y: 2), count: 17),
                        scores: Array(repeating: 0.5, count: 17))
        let text = String(decoding: try JSONEncoder().encode(pose), as: UTF8.self)
        #expect(!text.contains("presence") && !text.contains("\"z\"") && !text.contains("world"))
    }

    @Test func worldOfTheWrongLengthIsRefused() throws {
        var object = try JSONSerialization.jsonObject(with: JSONEncoder().encode(blazePose())) as! [String: Any]
        object["world"] = [["x": 0, "y": 0, "z": 0]]
        let data = try JSONSerialization.data(withJSONObject: object)
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Pose.self, from: data) }
    }
}
