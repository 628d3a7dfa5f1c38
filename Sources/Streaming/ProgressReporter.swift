import PoseCore
#if canImport(Glibc)
import Glibc
#endif

/// Progress of a long run on stderr: frames done, and when the input's length is known (frames
/// from the container, or its duration × frame rate: `MediaProbe`) the total, the percentage and
/// the time left; frames/s, dropped frames.
///
/// Shown when stderr is a terminal or when forced (`--progress`), refreshed at most twice a
/// second, and never written to stdout, where the JSON Lines or frames go. A run that never
/// finished a frame (an input that failed to open) prints nothing.
public final class ProgressReporter {
    private let enabled: Bool
    private let isTerminal: Bool
    private let start = MonotonicClock.now()
    private var lastPrint = 0.0
    /// Frames processed, and frames dropped (skipped as late), so far.
    public private(set) var frames = 0
    public private(set) var dropped = 0
    /// The current input's expected frames (nil: unknown), its frames done so far and when it started.
    private var expected: Int?
    private var framesOfInput = 0
    private var inputStart = MonotonicClock.now()

    /// A reporter shown when standard error is a terminal, or always when `forced`.
    public init(forced: Bool) {
        isTerminal = isatty(2) != 0
        enabled = forced || isTerminal
    }

    /// Whether progress is shown (the probe for a total is only worth it then).
    public var isEnabled: Bool { enabled }

    /// Starts an input of `expectedFrames` frames (nil: unknown length).
    public func begin(expectedFrames: Int?) {
        expected = expectedFrames
        framesOfInput = 0
        inputStart = MonotonicClock.now()
    }

    /// Counts one processed frame and `dropped` frames skipped since the last call.
    public func frameDone(dropped newlyDropped: Int = 0) {
        frames += 1
        framesOfInput += 1 + newlyDropped
        dropped += newlyDropped
        guard enabled else { return }
        let now = MonotonicClock.now()
        if now - lastPrint >= (isTerminal ? 0.5 : 2) {
            lastPrint = now
            emit(final: false)
        }
    }

    /// Prints the closing line (when enabled and a frame was done).
    public func finish() {
        guard enabled, frames > 0 else { return }
        emit(final: true)
    }

    /// Seconds since the reporter was made.
    public var elapsedSeconds: Double { MonotonicClock.now() - start }

    /// `frames 120/300 (40%)  35.2 frames/s  ETA 0:05`; without a known length `frames 120  35.2 frames/s`.
    public func line(final: Bool) -> String {
        let seconds = max(elapsedSeconds, 1e-9)
        let rate = Double(frames) / seconds
        var line = "frames \(frames)"
        if !final, let expected, expected > 0 {
            // The input's own frames (dropped ones included) against its expected length; a
            // container's count is an estimate, so never more than 100 % or a negative ETA.
            let total = max(expected, framesOfInput)
            line = "frames \(framesOfInput)/\(total) (\(framesOfInput * 100 / total)%)"
            let inputRate = Double(framesOfInput) / max(MonotonicClock.now() - inputStart, 1e-9)
            if framesOfInput > 0 { line += "  ETA \(Self.clock(Double(total - framesOfInput) / max(inputRate, 1e-9)))" }
        }
        line += "  \(formatted(rate)) frames/s"
        if dropped > 0 { line += "  dropped \(dropped)" }
        return line
    }

    private func emit(final: Bool) {
        let text = line(final: final)
        if isTerminal {
            printToStandardError("\r\u{1B}[K" + text + (final ? "\n" : ""), newline: false)
        } else {
            printToStandardError(text)
        }
    }

    /// `0:05`, `12:34`, `1:02:03`.
    public static func clock(_ seconds: Double) -> String {
        let s = Int(min(max(seconds, 0), 359_999).rounded())
        let (h, m, r) = (s / 3600, s / 60 % 60, s % 60)
        let two = { (v: Int) in v < 10 ? "0\(v)" : "\(v)" }
        return h > 0 ? "\(h):\(two(m)):\(two(r))" : "\(m):\(two(r))"
    }

    private func formatted(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
