import Testing
import PoseCore

/// The JSON Lines record of a COCO-17 (PoseNet) pose, byte for byte against a line written by
/// hand: keys, their order, part names and number forms stay as they were before keypoint sets
/// (a pose without visibility has no `"visibility"`, a pixel line no `"coordinates"`).
@Suite struct PoseLineFixtureTests {
    static let pose: Pose = {
        let keypoints = (0..<17).map { i in
            Keypoint(position: Point(x: 100 + Double(i) * 2.5, y: Double(i) * 10 - 3.125), score: 0.5 + Double(i) / 100)
        }
        return Pose(keypoints: keypoints, score: 0.87654, id: 3)
    }()

    static let parts = ["nose", "leftEye", "rightEye", "leftEar", "rightEar", "leftShoulder", "rightShoulder", "leftElbow",
                        "rightElbow", "leftWrist", "rightWrist", "leftHip", "rightHip", "leftKnee", "rightKnee", "leftAnkle",
                        "rightAnkle"]

    @Test func cocoSeventeenLineIsUnchanged() {
        var json = JSONText()
        PoseJSONLinesEncoder.append(source: "clip.y4m", frame: 7, width: 640, height: 480, time: 0.2333333,
                                    poses: [Self.pose], to: &json)
        // Written by hand from the README schema: y of the nose is -3.125 → -3.13 (a tie of an
        // exact binary value rounds away from zero), unclamped; the box spans every keypoint.
        let keypoints = (0..<17).map { i -> String in
            let x = ["100", "102.5", "105", "107.5", "110", "112.5", "115", "117.5", "120", "122.5", "125", "127.5", "130",
                     "132.5", "135", "137.5", "140"][i]
            let y = ["-3.13", "6.88", "16.88", "26.88", "36.88", "46.88", "56.88", "66.88", "76.88", "86.88", "96.88",
                     "106.88", "116.88", "126.88", "136.88", "146.88", "156.88"][i]
            let score = ["0.5", "0.51", "0.52", "0.53", "0.54", "0.55", "0.56", "0.57", "0.58", "0.59", "0.6", "0.61", "0.62",
                         "0.63", "0.64", "0.65", "0.66"][i]
            return "{\"part\": \"\(Self.parts[i])\", \"x\": \(x), \"y\": \(y), \"score\": \(score)}"
        }
        let expected = "{\"source\": \"clip.y4m\", \"frame\": 7, \"width\": 640, \"height\": 480, \"time\": 0.233, "
            + "\"poses\": [{\"id\": 3, \"score\": 0.8765, \"box\": [100, -3.13, 140, 156.88], \"keypoints\": ["
            + keypoints.joined(separator: ", ") + "]}]}\n"
        #expect(json.text == expected)
    }
}
