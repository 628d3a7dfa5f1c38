#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A process-wide "stop reading now" switch that a signal handler can throw.
///
/// `cancel(signal:)` only stores a number and writes one byte to a pipe, both async-signal-safe.
/// Every `ByteSource` reading a pipe, FIFO, terminal or socket waits on that pipe as well as on its
/// input (`poll(2)`), so a read blocked on a silent live stream returns at once with
/// `FrameIOError.interrupted` on whichever thread it runs. Regular files never block for long and
/// are read directly; frame loops check `isCancelled` between frames.
///
///     InputCancellation.prepare()          // once, before installing the signal handlers
///     signal handler: InputCancellation.cancel(signal: sig)
public enum InputCancellation {
    // Plain integers with constant initial values: statically initialized, so the signal handler
    // touches no lazily initialized or reference-counted state.
    nonisolated(unsafe) private static var readEnd: Int32 = -1
    nonisolated(unsafe) private static var writeEnd: Int32 = -1
    nonisolated(unsafe) private static var pendingSignal: Int32 = 0

    /// Creates the wake-up pipe (idempotent). Call before a signal handler can call `cancel`.
    public static func prepare() {
        guard readEnd < 0 else { return }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        writeEnd = fds[1]
        readEnd = fds[0]
    }

    /// Records `signal` (the first one wins) and wakes every blocked reader. Async-signal-safe.
    public static func cancel(signal: Int32) {
        if pendingSignal == 0 { pendingSignal = signal }
        var byte: UInt8 = 1
        if writeEnd >= 0 { _ = write(writeEnd, &byte, 1) }
    }

    /// True once `cancel` was called.
    public static var isCancelled: Bool { pendingSignal != 0 }

    /// The signal that cancelled input, or nil.
    public static var signal: Int32? { pendingSignal == 0 ? nil : pendingSignal }

    /// Throws `FrameIOError.interrupted` once cancelled (frame loops call this between frames).
    public static func check() throws {
        if pendingSignal != 0 { throw FrameIOError.interrupted(signal: pendingSignal) }
    }

    /// The descriptor that becomes readable on cancellation, or -1 before `prepare()`.
    static var wakeDescriptor: Int32 { readEnd }
}
