import ActionNet
import FrameIO
import PoseCore
import PoseNet
import Streaming

extension ActionEngine {
    /// The events of `posekit pose` JSON Lines at `path` (- for standard input) into `sink`, each
    /// frame's one record, the summary last: a file is sorted by time first, a stream must
    /// already be in order (see `PoseFrameOrder`); a frame without width and height is refused
    /// when the classifier `needsSize` (a Create ML classifier's coordinates). Lines without a
    /// frame rate get `defaultFPS`. A file's errors name it.
    public func recognize(posesFrom path: String, defaultFPS: Double, needsSize: Bool, into sink: ByteSink) throws {
        var decoder = PoseJSONLinesDecoder(defaultFPS: defaultFPS)
        let lines: LineReader
        do { lines = try LineReader(path: path) } catch { throw RunError(PlainErrorMessage.describe(error, input: path)) }
        lines.source.beforeWaiting = { try? sink.flush() }  // a failure resurfaces on the next write
        do {
            if path != "-" && RegularFile.exists(atPath: path) {
                var frames: [PoseFrame] = []
                try lines.forEachLine { line in
                    if let frame = try decoder.decode(line: line) { frames.append(frame) }
                }
                for frame in try PoseFrameOrder.sorted(frames) { try sink.writeRecord(process(sized(frame, needsSize))) }
            } else {
                var order = PoseFrameOrder()
                try lines.forEachLine { line in
                    if let frame = try decoder.decode(line: line) { try sink.writeRecord(process(sized(order.admit(frame), needsSize))) }
                }
            }
        } catch where path != "-" && !endsTheRun(error) {
            throw RunError(PlainErrorMessage.describe(error, input: path))   // `poses.jsonl: poses line 3: ...`
        }
        try sink.writeRecord(finish())
    }

    /// `frame`, checked to carry its image size when a Create ML classifier needs it.
    private func sized(_ frame: PoseFrame, _ needsSize: Bool) throws -> PoseFrame {
        guard !needsSize || (frame.width > 0 && frame.height > 0) else {
            throw RunError("frame \(frame.frame) has no width and height; a Create ML classifier's coordinates need them (posekit pose writes them)")
        }
        return frame
    }
}

extension ByteSink {
    /// One JSON line per event, written as bytes; the frame's record ends here (streams see it
    /// at once, and a reader that has gone stops the input).
    public func writeRecord(_ events: [ActionEvent]) throws {
        if !events.isEmpty {
            var lines = JSONText(capacity: 512 * events.count)
            for event in events { event.append(to: &lines); lines.newline() }
            try write(lines.bytes)
        }
        try endRecord()
    }
}
