import Foundation
import PoseKit
import Testing

/// The sample's pinch-to-draw on real frames (issue #46): a real pinching hand (CMU Panoptic
/// `media/hands/panoptic_ex2_2.flv_000040_l`, its 120×80 patch around the labelled hand) pasted on 40
/// consecutive real frames of a shared clip (`409416541_Independent-Study__Jumping_Jacks.mp4`, the
/// 400×300 of wall and door right of the woman, who keeps moving) along a path: 6 px right per frame, a
/// sine up and down. `posekit hands --gestures` with its defaults must follow one hand with one id and
/// draw one unbroken stroke along the path.
@Suite struct PinchOnRealFramesTests {
    static let clip = CLI.shared.appendingPathComponent("media/videos/409416541_Independent-Study__Jumping_Jacks.mp4").path
    static let hand = CLI.shared.appendingPathComponent("media/hands/panoptic_ex2_2.flv_000040_l.ppm").path
    static let frames = 40

    /// Where the patch's top-left corner is on frame `i`.
    static func place(_ i: Int) -> (x: Int, y: Int) {
        (40 + 6 * i, 120 + Int((20 * sin(Double(i) / 6)).rounded()))
    }

    @Test func aPinchingHandMovedOverRealFramesDrawsOneStroke() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        try CLI.ffmpeg(["-i", Self.clip, "-frames:v", "\(Self.frames)", "-vf", "crop=400:300:560:0", dir.appendingPathComponent("bg%03d.ppm").path])
        let source = try RGBImage(contentsOfFile: Self.hand)
        let (px, py, pw, ph) = (140, 220, 120, 80)   // around the labelled hand, box (179.9, 260.3) 41.8 × 29.2
        var paths: [String] = []
        for i in 0..<Self.frames {
            var frame = try RGBImage(contentsOfFile: dir.appendingPathComponent(String(format: "bg%03d.ppm", i + 1)).path)
            let (x0, y0) = Self.place(i)
            for y in 0..<ph where y0 + y < frame.height && py + y < source.height {
                for x in 0..<pw where x0 + x < frame.width {
                    for c in 0..<3 { frame.pixels[((y0 + y) * frame.width + x0 + x) * 3 + c] = source.pixels[((py + y) * source.width + px + x) * 3 + c] }
                }
            }
            let path = dir.appendingPathComponent(String(format: "f%03d.ppm", i)).path
            try Data(PPMWriter.encode(frame)).write(to: URL(fileURLWithPath: path))
            paths.append(path)
        }
        let result = try CLI.run(["hands", "--gestures", "--video", "--fps", "30"] + paths)
        #expect(result.status == 0, "\(result.stderr)")
        // A gesture line's `path` holds the points its frame adds (docs/cli.md): the stroke is their sequence.
        var ids: [Set<Int>] = [], strokeEnds = 0, stroke: [[Double]] = [], gestureHands = Set<Int>()
        for line in result.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            if object["type"] as? String == "gesture" {
                gestureHands.insert(try #require(object["hand"] as? Int))
                if object["stroke_end"] as? Bool == true { strokeEnds += 1 }
                stroke += try #require(object["path"] as? [[Double]])
            } else {
                ids.append(Set((object["hands"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }))
            }
        }
        // The hand is found on every frame under one id.
        #expect(ids.count == Self.frames && ids.allSatisfy { $0.count == 1 } && Set(ids.flatMap { $0 }).count == 1, "\(ids)")
        // One stroke, never ended, holding a point for nearly every frame (the first are undecided, then delivered).
        #expect(strokeEnds == 0 && gestureHands == Set(ids.flatMap { $0 }), "\(strokeEnds) stroke ends, gestures of hands \(gestureHands)")
        #expect(stroke.count >= Self.frames - 3, "\(stroke.count) points")
        // It follows the path: each point 6 px right of the one before, give or take the hand's own jitter.
        for (a, b) in zip(stroke, stroke.dropFirst()) {
            #expect(abs((b[0] - a[0]) - 6) < 3 && abs(b[1] - a[1]) < 6, "\(a) → \(b)")
        }
    }
}
