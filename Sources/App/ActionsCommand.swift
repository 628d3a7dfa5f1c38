import ActionNet
import ArgumentParser
import Foundation

/// `posekit actions`: action labels, repetitions and a summary as JSON Lines.
struct ActionsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "actions",
        abstract: "Recognise exercises and count repetitions.",
        discussion: """
        Reads `posekit pose` JSON Lines (--poses FILE, or - for standard input) and writes one \
        {"type": "prediction", ...} line per window, one {"type": "rep", ...} line per counted \
        repetition and a final {"type": "summary", ...} line.
        """)

    @Argument(help: "Y4M video (not wired in this build; use --poses).")
    var input: String?

    @Option(name: .long, help: "`posekit pose` JSON Lines to read instead of frames (FILE or -).")
    var poses: String?

    @Option(name: .long, help: "Action classifier weights.")
    var weights: String = "Weights/actionnet.pkw"

    @Option(name: .long, help: "Windows whose top probability is lower are labelled low_confidence.")
    var confidence: Double = 0.5

    @Option(name: .long, help: "Model frames between windows (default: from the weight file).")
    var stride: Int?

    @Option(name: .long, help: "Frame rate assumed for lines without a \"time\".")
    var fps: Double = 30

    func run() throws {
        guard let poses else {
            throw ValidationError("frame input is not wired yet; pass --poses FILE|- with `posekit pose` JSON Lines")
        }
        guard fps.isFinite, fps > 0, fps <= 1000 else { throw ValidationError("--fps must be in (0, 1000]") }
        let engine = try makeEngine()
        var decoder = PoseJSONLinesDecoder(defaultFPS: fps)
        var out = FileHandleOutput()
        do {
            try forEachLine(of: poses) { line in
                guard let frame = try decoder.decode(line: line) else { return }
                for e in engine.process(frame) { out.write(e.jsonLine) }
            }
        } catch let e as ActionNetError {
            out.flush()
            throw ActionsFailure(description: e.description)
        }
        for e in engine.finish() { out.write(e.jsonLine) }
        out.flush()
    }

    func makeEngine() throws -> ActionEngine {
        do {
            return try ActionEngine(weightsURL: URL(fileURLWithPath: weights), confidenceThreshold: confidence, windowStride: stride)
        } catch let e as ActionNetError {
            throw ActionsFailure(description: e.description)
        }
    }

    /// Calls `body` for each line of a file or standard input, streaming (constant memory per line).
    func forEachLine(of path: String, _ body: (Substring) throws -> Void) throws {
        let handle: FileHandle
        if path == "-" {
            handle = FileHandle.standardInput
        } else {
            guard let h = FileHandle(forReadingAtPath: path) else { throw ActionsFailure(description: "cannot open \(path)") }
            handle = h
        }
        var pending = Data()
        let maxLine = 16 << 20
        while true {
            let chunk = handle.readData(ofLength: 1 << 16)
            if chunk.isEmpty { break }
            pending.append(chunk)
            while let nl = pending.firstIndex(of: 0x0A) {
                let line = String(decoding: pending[pending.startIndex..<nl], as: UTF8.self)
                pending.removeSubrange(pending.startIndex...nl)
                try body(Substring(line))
            }
            if pending.count > maxLine { throw ActionsFailure(description: "a --poses line is longer than 16 MiB") }
        }
        if !pending.isEmpty { try body(Substring(String(decoding: pending, as: UTF8.self))) }
    }
}

/// A run-time failure: ArgumentParser prints it as one `Error: ...` line (no usage text).
struct ActionsFailure: Error, CustomStringConvertible {
    let description: String
}

/// Buffered standard output.
struct FileHandleOutput {
    private var buffer = ""
    mutating func write(_ line: String) {
        buffer += line
        buffer += "\n"
        if buffer.utf8.count > 1 << 16 { flush() }
    }
    mutating func flush() {
        FileHandle.standardOutput.write(Data(buffer.utf8))
        buffer = ""
    }
}
