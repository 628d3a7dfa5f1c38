#if canImport(Glibc)
import Glibc
import PoseKit
#endif

/// Progress of a long run on stderr: frames done, frames/s, dropped frames.
///
/// Shown when stderr is a terminal or when forced (`--progress`), refreshed at most twice a
/// second, and never written to stdout, where the JSON Lines or frames go.
final class ProgressReporter {
    private let enabled: Bool
    private let isTerminal: Bool
    private let start = MonotonicClock.now()
    private var lastPrint = 0.0
    private(set) var frames = 0
    private(set) var dropped = 0

    init(forced: Bool) {
        isTerminal = isatty(2) != 0
        enabled = forced || isTerminal
    }

    /// Counts one processed frame and `dropped` frames skipped since the last call.
    func frameDone(dropped newlyDropped: Int = 0) {
        frames += 1
        dropped += newlyDropped
        guard enabled else { return }
        let now = MonotonicClock.now()
        if now - lastPrint >= (isTerminal ? 0.5 : 2) {
            lastPrint = now
            emit(final: false)
        }
    }

    /// Prints the closing line (when enabled).
    func finish() {
        guard enabled else { return }
        emit(final: true)
    }

    var elapsedSeconds: Double { MonotonicClock.now() - start }

    private func emit(final: Bool) {
        let seconds = max(elapsedSeconds, 1e-9)
        let rate = Double(frames) / seconds
        var line = "frames \(frames)  \(formatted(rate)) frames/s"
        if dropped > 0 { line += "  dropped \(dropped)" }
        if isTerminal {
            printToStandardError("\r\u{1B}[K" + line + (final ? "\n" : ""), newline: false)
        } else {
            printToStandardError(line)
        }
    }

    private func formatted(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
