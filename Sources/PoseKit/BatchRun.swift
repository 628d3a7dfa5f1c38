import Foundation
import FrameIO
import PoseNet
import Streaming
#if canImport(Glibc)
import Glibc
#endif

/// Runs a batch into `--output-dir`: each input's JSON Lines go to `DIR/NAME.jsonl` through an
/// `OutputFile`, so a file there is always complete.
///
/// - An input whose output file exists is skipped (resume after a crash, a stop or a failure).
/// - An input that fails keeps its finished lines in `DIR/NAME.jsonl.partial` (never mistaken for
///   complete; replaced by the next attempt) and is reported at the end, one line each; the
///   other inputs are still processed, and ``run(_:_:)`` returns how many failed (`posekit` then exits 1).
/// - A stop signal keeps the current input's finished lines in `.partial` too, then ends the run.
public struct BatchRun {
    /// The output directory (created if missing).
    public let directory: String
    /// Whether each output is flushed frame by frame (`--realtime`).
    public let realtime: Bool

    /// A batch into `directory`.
    public init(directory: String, realtime: Bool) {
        self.directory = directory
        self.realtime = realtime
    }

    /// `DIR`-relative output name: the input's file name without its extension, plus `.jsonl`.
    public static func outputName(for input: String) -> String {
        let file = URL(fileURLWithPath: input).lastPathComponent
        let stem = file.contains(".") && !file.hasPrefix(".") ? String(file[..<file.lastIndex(of: ".")!]) : file
        return stem + ".jsonl"
    }

    /// Processes `inputs` in order with `process(input, sink)`; returns the number of inputs that
    /// failed (each reported on standard error, then a summary), and throws errors that end the
    /// run (`endsTheRun`) at once.
    @discardableResult
    public func run(_ inputs: [String], _ process: (String, ByteSink) async throws -> Void) async throws -> Int {
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw RunError("cannot create --output-dir \(directory): \(PlainErrorMessage.describe(error))")
        }
        var failures: [String] = []
        var skipped = 0
        for input in inputs {
            let path = directory + "/" + Self.outputName(for: input)
            let partial = path + ".partial"
            if FileManager.default.fileExists(atPath: path) {
                skipped += 1
                continue
            }
            let output = try OutputFile(path: path, realtime: realtime)
            do {
                try await process(input, output.sink)
                try output.commit()
                _ = unlink(partial)
            } catch {
                if case FrameIOError.writeFailed = error { throw error }
                if output.sink.bytesWritten > 0 { try output.commit(renamingTo: partial) } else { output.discard() }
                if endsTheRun(error) { throw error }
                failures.append("posekit: error: \(PlainErrorMessage.describe(error, input: input))")
            }
        }
        if skipped > 0 {
            printToStandardError("posekit: skipped \(skipped) input(s) whose output is already in \(directory)")
        }
        for line in failures { printToStandardError(line) }
        if !failures.isEmpty {
            printToStandardError("posekit: \(failures.count) of \(inputs.count) input(s) failed; the others are in \(directory)")
        }
        return failures.count
    }
}

