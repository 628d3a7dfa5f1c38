import Foundation
import Testing

/// `posekit hands --gestures`: the pinch path is written in the frame line's `--coordinates`
/// (issue #36: it was in pixels whatever was asked). A real pinching hand (CMU Panoptic, `media/hands`,
/// 400×300) given four times as a video pinches on the third frame; the normalized and Vision paths
/// are the pixel path divided by the frame's size (Vision's y from the bottom).
@Suite struct GestureCoordinatesCommandTests {
    static let pinchingHand = CLI.shared.appendingPathComponent("media/hands/panoptic_ex2_2.flv_000040_l.ppm").path

    static func pinchPaths(_ coordinates: String) throws -> (paths: [[[Double]]], names: Set<String>) {
        let input = pinchingHand
        let result = try CLI.run(["hands", "--hand-sources", "palms", "--gestures", "--coordinates", coordinates,
                                  "--video", input, input, input, input])
        #expect(result.status == 0, "\(result.stderr)")
        var paths: [[[Double]]] = [], names = Set<String>()
        for line in result.lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            guard object["type"] as? String == "gesture" else { continue }
            paths.append(try #require(object["path"] as? [[Double]]))
            names.insert(object["coordinates"] as? String ?? "pixels")
        }
        return (paths, names)
    }

    @Test func pinchPathFollowsTheCoordinates() throws {
        let pixels = try Self.pinchPaths("pixels"), normalized = try Self.pinchPaths("normalized"),
            vision = try Self.pinchPaths("vision")
        let points = pixels.paths.flatMap { $0 }
        #expect(!points.isEmpty, "the hand pinches")
        #expect(pixels.names == ["pixels"] && normalized.names == ["normalized"] && vision.names == ["vision"])
        #expect(normalized.paths.count == pixels.paths.count && vision.paths.count == pixels.paths.count)
        for (p, (n, v)) in zip(points, zip(normalized.paths.flatMap { $0 }, vision.paths.flatMap { $0 })) {
            // Pixels are written to 1/100 px, the others to 10⁻⁶ of the frame.
            #expect(abs(n[0] - p[0] / 400) <= 2e-5 && abs(n[1] - p[1] / 300) <= 3e-5, "\(n) against \(p)")
            #expect(abs(v[0] - p[0] / 400) <= 2e-5 && abs(v[1] - (1 - p[1] / 300)) <= 3e-5, "\(v) against \(p)")
        }
    }
}
