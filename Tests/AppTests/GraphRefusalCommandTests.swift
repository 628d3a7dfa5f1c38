import Foundation
import Testing
import TFLite

/// Graph refusals as a user meets them (#45 part 6): a `.tflite` whose weights hold NaN or
/// +infinity is refused by `import`, `info` and `run --list` with one line naming the file and the
/// tensor, exit 1, and no bundle written. The fixture is MediaPipe's hand_landmark_lite.tflite
/// with one fp16 weight overwritten in place (its tensors found by TFLite's own reader).
@Suite struct GraphRefusalCommandTests {
    /// fp16 bit patterns, little-endian as TFLite stores them.
    static let nan16: [UInt8] = [0x00, 0x7E], infinity16: [UInt8] = [0x00, 0x7C]

    /// `hand_landmark_lite.tflite` with element 0 of its `which`th float16 constant set to `bits`.
    static func poisoned(_ bits: [UInt8], which: Int, at url: URL) throws -> String {
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: GraphImportCommandTests.handLite)))
        let model = try TFLiteModel(bytes: bytes, file: "hand_landmark_lite.tflite")
        let constants = model.tensors.indices.filter { model.tensors[$0].type == .float16 && model.data(ofTensor: $0) != nil }
        #expect(constants.count > which, "hand_landmark_lite holds \(constants.count) float16 constants")
        let tensor = constants[which]
        let range = try #require(model.data(ofTensor: tensor))
        bytes.replaceSubrange(range.lowerBound..<(range.lowerBound + 2), with: bits)
        try Data(bytes).write(to: url)
        return model.tensors[tensor].name
    }

    @Test func nonFiniteWeightsInATFLiteAreOneLineAndExitOne() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        for (bits, which, word) in [(Self.nan16, 0, "nan"), (Self.infinity16, 5, "inf")] {
            let model = dir.appendingPathComponent("poisoned-\(word).tflite")
            let tensor = try Self.poisoned(bits, which: which, at: model)
            let bundle = dir.appendingPathComponent("poisoned-\(word).pkw")
            for arguments in [["import", model.path, "-o", bundle.path], ["info", model.path], ["run", model.path, "--list"]] {
                let result = try CLI.run(arguments)
                #expect(result.status == 1, "\(arguments[0]): exit \(result.status)")
                #expect(result.stderr.split(separator: "\n").count == 1, "\(arguments[0]): \(result.stderr)")
                #expect(result.stderr.hasPrefix("posekit: error: \(model.path): "), "\(arguments[0]): \(result.stderr)")
                #expect(result.stderr.contains("holds \(word) at element 0: weights must be finite"), "\(arguments[0]): \(result.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: bundle.path), "a bundle was written from \(tensor)")
        }
    }
}
