import Foundation
import Testing
@testable import ActionNet

/// Window files: the JSON reader gives what a JSON parser gives for `[T][3][18]`, refuses a
/// misfit at its first row, and no file past `PoseWindowFile.maximumFileBytes` is read.
struct WindowFileTests {
    static func window(frames: Int, seed: Int) -> [Float] {
        (0..<(frames * 54)).map { Float(($0 * 7919 + seed * 104_729) % 20_011) / 977 - 10 }
    }

    static func json(_ values: [Float], frames: Int, spacing: String = " ") -> String {
        (0..<frames).map { f in
            "[" + (0..<3).map { r in
                "[" + (0..<18).map { j in "\(values[(f * 3 + r) * 18 + j])" }.joined(separator: "," + spacing) + "]"
            }.joined(separator: ",\n") + "]"
        }.joined(separator: ",\t").surrounding("[", spacing + "]" + spacing)
    }

    @Test func jsonMatchesAJSONParser() throws {
        for (frames, spacing) in [(1, ""), (64, " "), (7, "\r\n  ")] {
            let text = Self.json(Self.window(frames: frames, seed: frames), frames: frames, spacing: spacing)
            let (shape, values) = try PoseWindowFile.read(Array(text.utf8))
            let parsed = try JSONSerialization.jsonObject(with: Data(text.utf8)) as! [[[NSNumber]]]
            #expect(shape == [frames, 3, 18])
            #expect(values == parsed.flatMap { $0.flatMap { $0.map { Float($0.doubleValue) } } })
        }
        let exponents = try PoseWindowFile.read(Array(Self.json([Float](repeating: 1, count: 54), frames: 1)
            .replacingOccurrences(of: "1.0", with: "-0.5e-1").utf8))
        #expect(exponents.values.allSatisfy { $0 == -0.05 })
    }

    @Test func misfitsAreRefusedWithWhatIsWrong() {
        let row = "[" + Array(repeating: "0.5", count: 18).joined(separator: ",") + "]"
        let frame = "[\(row),\(row),\(row)]"
        let cases: [(String, String)] = [
            ("[[\(row),\(row)]]", "frame 0 has 2 rows"),
            ("[[\(row),\(row),\(row),\(row)]]", "frame 0 has more than 3 rows"),
            ("[\(frame),[[0.5,0.5]]]", "ragged: frame 1 row 0 has 2 values"),
            ("[\(frame)", "JSON ends inside the window"),
            ("[\(frame)] []", "more after the window"),
            ("[[[0.5, 01, 2]]]", "not a number"),
            ("[[[0.5, NaN]]]", "something other than nested arrays"),
            ("[[[0.5, \"1\"]]]", "something other than nested arrays"),
            ("[\(frame.replacingOccurrences(of: "0.5", with: "1e39"))]", "is not finite"),
            ("{\"window\": 1}", "JSON holds something other than nested arrays of numbers"),
            ("\u{1}binary", "neither a .npy file nor JSON"),
            ("[]", "shape [0, 3, 18]"),
        ]
        for (text, words) in cases {
            do {
                _ = try PoseWindowFile.read(Array(text.utf8))
                Issue.record("\(text.prefix(40)) was read")
            } catch {
                #expect("\(error)".contains(words), "\(text.prefix(60)): \(error)")
            }
        }
    }

    @Test func filesPastTheLimitAreNotRead() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("window-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let big = dir.appendingPathComponent("big.json")
        #expect(FileManager.default.createFile(atPath: big.path, contents: nil))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: UInt64(PoseWindowFile.maximumFileBytes + 1))   // sparse: nothing to write
        try handle.close()
        do {
            _ = try PoseWindowFile.read(contentsOf: big)
            Issue.record("read")
        } catch {
            #expect("\(error)" == "\(big.path): window: \(PoseWindowFile.maximumFileBytes + 1) bytes, more than the 8388608 this file may hold")
        }
    }
}

private extension String {
    func surrounding(_ open: String, _ close: String) -> String { open + self + close }
}
