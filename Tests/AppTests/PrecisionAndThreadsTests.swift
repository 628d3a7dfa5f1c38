import Foundation
import PoseKit
import Testing

/// `--precision` reaches every network (PoseNet, BlazePose, the hands and the body model seeding
/// them) or is refused in one line before any work; an error under `eval --json` is one line.
/// Holds on either kind of CPU: where int8 (bf16) is unavailable the command is refused up front,
/// where it runs the command runs reduced and succeeds.
@Suite struct PrecisionAndThreadsTests {
    static let images = CLI.shared.appendingPathComponent("media/images")
    static let photo = images.appendingPathComponent("coco_000000000785.ppm").path
    static let clip: String = {
        // Three frames of a real clip as Y4M, made once.
        let frames = CLI.repositoryRoot.appendingPathComponent(".cache/precision-test-clip.y4m")
        if !FileManager.default.fileExists(atPath: frames.path) {
            try? FileManager.default.createDirectory(at: frames.deletingLastPathComponent(), withIntermediateDirectories: true)
            let source = CLI.shared.appendingPathComponent("media/videos/409416541_Independent-Study__Jumping_Jacks.mp4").path
            _ = try? CLI.runProcess(URL(fileURLWithPath: "/usr/bin/env"),
                                    ["ffmpeg", "-loglevel", "error", "-y", "-i", source, "-frames:v", "3", "-an", "-pix_fmt", "yuv420p",
                                     "-f", "yuv4mpegpipe", frames.path])
        }
        return frames.path
    }()

    /// Every command form that runs a MediaPipe graph or the hands' body model, with a reduced precision.
    static let commands: [[String]] = [
        ["pose", "--model", "blazepose", photo],
        ["pose", "--hands", photo],
        ["hands", photo],
        ["eval", "--model", "blazepose", "--ground-truth", images.appendingPathComponent("ground_truth.json").path, photo],
        ["eval", "--json", "--model", "blazepose", "--ground-truth", images.appendingPathComponent("ground_truth.json").path, photo],
    ]

    @Test(arguments: commands, [Precision.int8, .bf16])
    func aReducedPrecisionIsRefusedUpFrontOrRuns(_ command: [String], _ precision: Precision) throws {
        let result = try CLI.run(command + ["--precision", precision.rawValue, "--threads", "2"])
        if let problem = precision.unavailability {
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stderr == "posekit: error: --precision \(precision.rawValue): \(problem)\n", "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty, "\(command): work was done before the refusal")
        } else {
            #expect(result.status == 0, "\(command): \(result.stderr)")
            #expect(!result.stdout.isEmpty)
            if command.contains("--json") { #expect(result.stdoutText.contains("\"precision\": \"\(precision.rawValue)\"")) }
        }
    }

    /// `actions` with BlazePose, likewise (on frames of a clip).
    @Test func actionsWithBlazePoseTakesThePrecisionOrRefusesIt() throws {
        let result = try CLI.run(["actions", "--model", "blazepose", "--precision", "int8", Self.clip])
        if let problem = Precision.int8.unavailability {
            #expect(result.status == 1 && result.stderr == "posekit: error: --precision int8: \(problem)\n", "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        } else {
            #expect(result.status == 0 && result.lines.last?.contains("\"type\": \"summary\"") == true, "\(result.stderr)")
        }
    }

    /// An error `eval --json` meets is one plain line, never a type's dump.
    @Test func anEvalJsonErrorIsOneLine() throws {
        let result = try CLI.run(["eval", "--json", "--ground-truth", Self.images.appendingPathComponent("ground_truth.json").path,
                                  "--model", "blazepose", Self.images.appendingPathComponent("missing.ppm").path])
        #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!result.stderr.contains("("), "\(result.stderr)")
        // An error that says itself only as a LocalizedError (as PrecisionUnavailable does) is said by its description.
        struct OnlyLocalized: LocalizedError { var errorDescription: String? { "int8 needs VNNI" } }
        #expect(PlainErrorMessage.describe(OnlyLocalized()) == "int8 needs VNNI")
    }
}
