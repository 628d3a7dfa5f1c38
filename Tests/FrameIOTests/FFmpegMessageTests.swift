import Foundation
import Testing
@testable import FrameIO

/// The one line of ffmpeg's standard error a failed decode is reported with: its cause, and the
/// same words on every run (ffmpeg's context prefixes carry a memory address).
struct FFmpegMessageTests {
    /// Hand-written lines as ffmpeg 5 and 6 print them.
    @Test(arguments: [
        ("[mjpeg @ 0x55bbeb2c2640] unable to decode APP fields: Invalid data found when processing input",
         "mjpeg: unable to decode APP fields: Invalid data found when processing input"),
        ("[in#0/mov,mp4,m4a,3gp,3g2,mj2 @ 0x5] moov atom not found", "in#0/mov,mp4,m4a,3gp,3g2,mj2: moov atom not found"),
        ("[vist#0:0/h264 @ 0xa1b2] [dec:h264 @ 0xC3D4] Decoding error", "vist#0:0/h264: dec:h264: Decoding error"),
        ("clip.mp4: Invalid data found when processing input", "clip.mp4: Invalid data found when processing input"),
        ("[h264] no address", "[h264] no address"),
        ("[x @ 0xZZ] not an address", "[x @ 0xZZ] not an address"),
        ("[unclosed @ 0x12 text", "[unclosed @ 0x12 text"),
    ])
    func addressesAreLeftOut(_ line: String, _ expected: String) {
        #expect(FFmpeg.withoutAddresses(line) == expected)
    }

    /// The cause wins over ffmpeg's last words, the most telling kind first.
    @Test func theCauseIsChosen() {
        let lines = ["mov: moov atom not found", "clip.mp4: Invalid data found when processing input",
                     "Error marking filters as finished", "Conversion failed!"]
        #expect(FFmpeg.mostInformative(lines, naming: "clip.mp4") == "clip.mp4: Invalid data found when processing input")
        #expect(FFmpeg.mostInformative(["Output #0", "clip.mp4: opened", "Conversion failed!"], naming: "clip.mp4") == "clip.mp4: opened")
        #expect(FFmpeg.mostInformative(["a", "b"], naming: "") == "b")
    }

    /// A damaged JPEG read through the library twice (real ffmpeg): one message, naming the file,
    /// the same both times.
    @Test func aDamagedImageGivesOneMessage() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("broken.jpg")
        try Data([0xFF, 0xD8, 0xFF, 0xE0] + Array(" not really a JPEG".utf8)).write(to: broken)
        var messages: [String] = []
        for _ in 0..<2 {
            do {
                for try await _ in MediaFrames(path: broken.path) {}
                Issue.record("a damaged JPEG was read")
            } catch {
                messages.append(error.localizedDescription)
            }
        }
        #expect(messages.count == 2 && messages[0] == messages[1], "\(messages)")
        #expect(messages.first?.hasPrefix("\(broken.path): ffmpeg: ") == true, "\(messages)")
        #expect(messages.first?.contains(" @ 0x") == false, "\(messages)")
    }
}
