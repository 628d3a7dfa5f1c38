import Foundation
import Testing
import PoseKit

/// `posekit pose --coordinates`: the same poses in each system, read back to the same pixels.
@Suite(.serialized) struct CoordinatesCommandTests {
    static let photo = CLI.shared.appendingPathComponent("media/images/coco_000000000785.ppm").path

    @Test func visionAndNormalizedLinesAreThePixelLineConverted() throws {
        let run = { (system: String) throws -> String in
            let result = try CLI.run(["pose", "--input-size", "257", "--coordinates", system, Self.photo])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            return try #require(result.lines.first)
        }
        let pixels = try #require(try PoseJSONLinesDecoder.decodeAll(try run("pixels")).first)
        #expect(!pixels.poses.isEmpty)
        for system in ["normalized", "vision"] {
            let line = try run(system)
            #expect(line.contains("\"height\": 425, \"coordinates\": \"\(system)\", \"poses\""), "\(line.prefix(120))")
            let back = try #require(try PoseJSONLinesDecoder.decodeAll(line).first)
            #expect(back.poses.count == pixels.poses.count)
            for (a, b) in zip(back.poses, pixels.poses) {
                for (p, q) in zip(a.keypoints, b.keypoints) {
                    // Pixels are written to 1/100, normalized values to 1e-6 of 640 or 425 pixels.
                    #expect(abs(p.position.x - q.position.x) <= 0.006 && abs(p.position.y - q.position.y) <= 0.006)
                }
            }
        }
        let refused = try CLI.run(["pose", "--format", "coco", "--coordinates", "vision", Self.photo])
        #expect(refused.status != 0 && refused.stderr.contains("--coordinates is for JSON Lines"), "\(refused.stderr)")
        let unknown = try CLI.run(["pose", "--coordinates", "inches", Self.photo])
        #expect(unknown.status != 0 && unknown.stderr.contains("pixels"), "\(unknown.stderr)")
    }
}
