import Foundation
import Testing
@testable import PoseCore

/// A pose line is measured before it is decoded: more than 1000 poses (or values) is refused in
/// one pass over its bytes, so a 16 MB line never becomes a gigabyte of JSON objects.
struct PoseLineSizeTests {
    static func pose(_ i: Int) -> String {
        let keypoints = BodyPart.allCases.map { "{\"part\": \"\($0.name)\", \"x\": \(i % 100), \"y\": 2.5, \"score\": 0.5}" }
        return "{\"score\": 0.5, \"keypoints\": [\(keypoints.joined(separator: ", "))]}"
    }

    static func line(poses count: Int) -> String {
        "{\"frame\": 0, \"source\": \"a, [b], {\\\"poses\\\": [1, 2]}\", \"poses\": [\((0..<count).map(pose).joined(separator: ", "))]}"
    }

    @Test func aFullFrameIsRead() throws {
        var decoder = PoseJSONLinesDecoder()
        let frame = try decoder.decode(line: Self.line(poses: PoseJSONLinesDecoder.maximumPosesPerFrame))
        #expect(frame?.poses.count == 1000)
        // Brackets, commas and a "poses" key inside a string do not count.
        #expect(frame?.source == "a, [b], {\"poses\": [1, 2]}")
    }

    @Test func onePoseTooManyIsRefusedBeforeDecoding() {
        let line = Self.line(poses: 1001)
        #expect(PoseJSONLinesDecoder.sizeProblem(in: line) != nil)
        var decoder = PoseJSONLinesDecoder()
        #expect(throws: PoseDataError.self) { try decoder.decode(line: line) }
        // Counted as the bytes go, without memory: half a million empty poses.
        let huge = "{\"poses\": [" + String(repeating: "{}, ", count: 500_000) + "{}]}"
        #expect(PoseJSONLinesDecoder.sizeProblem(in: huge) == "the frame has 500001 poses, more than the 1000 accepted per frame")
        // A "poses" key deeper down is some pose's own field, not the frame's list.
        let nested = "{\"poses\": [{\"poses\": [" + String(repeating: "1, ", count: 2000) + "1]}]}"
        #expect(PoseJSONLinesDecoder.sizeProblem(in: nested) == nil)
    }

    @Test func tooManyValuesAreRefusedBeforeDecoding() {
        // One pose whose keypoints list holds half a million values.
        let line = "{\"poses\": [{\"keypoints\": [" + String(repeating: "0, ", count: 500_000) + "0]}]}"
        #expect(PoseJSONLinesDecoder.sizeProblem(in: line)?.contains("JSON values") == true)
    }
}

extension PoseJSONLinesDecoder {
    static func sizeProblem(in text: String) -> String? {
        Array(text.utf8).withUnsafeBytes { sizeProblem(in: $0) }
    }
}
