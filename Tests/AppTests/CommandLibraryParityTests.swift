import Foundation
import PoseKit
import Testing

/// The command is a client of the library: `posekit pose` writes exactly what the library's
/// public API gives for the same input, byte for byte (poses, ids, smoothing, frames in flight,
/// ffmpeg decoding, the model's input scaling), using only `import PoseKit`.
@Suite(.serialized) struct CommandLibraryParityTests {
    static let clip = CLI.shared.appendingPathComponent("media/videos/ahmedlila_jumping-jacks-counter__3_Count_Jumping_Jacks.mp4")
    static let photo = CLI.shared.appendingPathComponent("media/images/coco_000000000785.jpg")

    /// What the library gives for `path`, as `posekit pose` lines.
    static func libraryLines(_ path: String, configuration: PoseDetector.Configuration, smoothing: Bool = true,
                             frames: Int? = nil) async throws -> [UInt8] {
        let detector = try PoseDetector(model: .mobilenet075, configuration: configuration)
        var json = JSONText()
        for try await detected in detector.poses(inMediaAt: path, smoothing: smoothing) {
            if let frames, detected.index >= frames { break }
            PoseJSONLinesEncoder.append(source: path, frame: detected.index, width: detected.width, height: detected.height,
                                        time: detected.time, poses: detected.poses, to: &json)
        }
        return json.bytes
    }

    @Test(arguments: [[], ["--no-smooth"], ["--threads", "1"]])
    func poseOnAStreamIsTheLibrarysOutput(_ options: [String]) async throws {
        var configuration = PoseDetector.Configuration(inputSize: 257)
        if options.contains("--threads") { configuration.threads = 1 }
        let command = try CLI.run(["pose", "--input-size", "257"] + options + [Self.clip.path])
        #expect(command.status == 0, "stderr: \(command.stderr)")
        let library = try await Self.libraryLines(Self.clip.path, configuration: configuration, smoothing: !options.contains("--no-smooth"))
        #expect(command.lines.count > 250)
        #expect(Array(command.stdout) == library)
        let ids = command.lines.compactMap { $0.range(of: "\"id\": ") != nil ? $0 : nil }
        #expect(ids.count * 10 >= command.lines.count * 9, "nearly every frame of the clip has its person, with an id")
    }

    @Test func poseOnAnImageIsTheLibrarysOutput() async throws {
        let command = try CLI.run(["pose", Self.photo.path])
        #expect(command.status == 0, "stderr: \(command.stderr)")
        let library = try await Self.libraryLines(Self.photo.path, configuration: .default)
        #expect(Array(command.stdout) == library)
        let poses = try PoseDetector(model: .mobilenet075).poses(inImageAtPath: Self.photo.path)
        #expect(!poses.isEmpty && command.stdoutText.components(separatedBy: "\"keypoints\"").count - 1 == poses.count)
    }

    /// The library's media errors are the command's lines.
    @Test func mediaErrorsAreTheCommandsMessages() async throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let broken = dir.appendingPathComponent("broken.mp4")
        try Data([0, 0, 0, 0x18] + Array("ftypisom".utf8) + [UInt8](repeating: 0x5A, count: 200)).write(to: broken)
        let missing = dir.appendingPathComponent("missing.mp4")
        for input in [broken, missing] {
            let command = try CLI.run(["pose", input.path])
            var libraryError: Error?
            do { for try await _ in try PoseDetector(model: .mobilenet075).poses(inMediaAt: input.path) {} } catch { libraryError = error }
            let error = try #require(libraryError)
            #expect(command.stderr == "posekit: error: \(error.localizedDescription)\n")
            #expect(error.localizedDescription.hasPrefix(input.path + ": ") || error.localizedDescription.contains("open \(input.path)"))
        }
        let overlay = dir.appendingPathComponent("x.avi").path
        let command = try CLI.run(["pose", "--overlay", overlay, "--json", "/dev/null", Self.photo.path])
        let error = #expect(throws: FrameIOError.self) { try MediaWriter.check(path: overlay) }
        #expect(command.status == 1 && command.stderr == "posekit: error: \(error!.localizedDescription)\n")
    }
}
