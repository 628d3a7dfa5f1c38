import FrameIO
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// SIGINT, SIGTERM and SIGHUP stop a streaming command without losing a finished frame.
///
/// The handler only records the signal and wakes blocked reads (`InputCancellation`); the frame
/// loop then stops before the next frame, the command commits every output, and `main` exits
/// with 128 + the signal number (130, 143, 129), as a shell reports a process killed by it.
/// A second signal while stopping ends the process at once (the default action), in case an
/// output blocks forever.
///
/// The exit itself is one decision (``exit(_:)``), so that a signal arriving as the run ends (its
/// input ended at that moment) is never lost: the thread that exits blocks the stop signals,
/// looks for one recorded *or still pending* (sent, but its handler not yet run on another
/// thread: a parent's blocked mask or a busy machine delays that), waits up to 30 ms for a handler
/// the kernel has already started delivering to another thread, and claims the exit; a handler
/// that runs after the claim began but before it was won ends the process itself with the stop
/// status and line. A signal sent after the claim was won came after the run ended. (What is
/// left: a handler preempted for longer than those 30 ms between delivery and its first line.)
public enum SignalHandling {
    /// SIGINT, SIGTERM and SIGHUP.
    public static let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Where the exit stands: running (0), the exit being decided (1), decided by the exiting
    /// thread (2), taken by a signal handler (3). An atomic: handlers read and change it.
    private static let exitState = Atomic<Int>(0)
    /// "posekit: stopped by SIG…" lines for the handler to write (made before any handler runs).
    nonisolated(unsafe) private static var handlerMessages: [UnsafeMutablePointer<CChar>?] = []

    /// Installs the handlers (idempotent; call before the first frame is read).
    public static func install() {
        _ = exitState.load(ordering: .relaxed)   // initialized here, never first in a handler
        if handlerMessages.isEmpty {
            handlerMessages = stopSignals.map { strdup(stopMessage($0) + "\n") }
        }
        InputCancellation.prepare()
        // A parent may hand down a mask that blocks them (Foundation's Process does): unblock,
        // on this thread and so on every thread started after it.
        var unblock = sigset_t()
        sigemptyset(&unblock)
        for signalNumber in stopSignals { sigaddset(&unblock, signalNumber) }
        pthread_sigmask(SIG_UNBLOCK, &unblock, nil)
        for signalNumber in stopSignals {
            var action = sigaction()
            action.__sigaction_handler.sa_handler = { received in
                if InputCancellation.isCancelled {
                    signal(received, SIG_DFL)
                    raise(received)
                    return
                }
                InputCancellation.cancel(signal: received)
                // The run is exiting and has not decided yet: this signal decides, here and now.
                if SignalHandling.exitState.compareExchange(expected: 1, desired: 3, ordering: .sequentiallyConsistent).exchanged {
                    SignalHandling.writeStopMessageAndExit(received)
                }
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }

    /// Ends the process: with 128 + N and the stop line when stop signal N was recorded or is
    /// pending, else with `status`. Call with every output committed and flushed.
    public static func exit(_ status: Int32) -> Never {
        var stops = sigset_t()
        sigemptyset(&stops)
        for signalNumber in stopSignals { sigaddset(&stops, signalNumber) }
        // From here this thread takes no stop signal; another thread's handler sees state 1.
        pthread_sigmask(SIG_BLOCK, &stops, nil)
        exitState.store(1, ordering: .sequentiallyConsistent)
        var stop = InputCancellation.signal ?? pendingStopSignal()
        if stop == nil && !handlerMessages.isEmpty {
            // A signal the kernel already handed to another thread whose handler has not run yet
            // (a busy machine preempts it between the two) is neither pending nor recorded: give
            // such a handler a moment; one that runs now takes the exit itself (state 1 → 3).
            for _ in 0..<6 where InputCancellation.signal == nil { usleep(5_000) }
            stop = InputCancellation.signal
        }
        guard exitState.compareExchange(expected: 1, desired: 2, ordering: .sequentiallyConsistent).exchanged else {
            while true { pause() }   // a handler took the exit and is ending the process
        }
        if let stop {
            printToStandardError(stopMessage(stop))
            Glibc.exit(exitStatus(for: stop))
        }
        Glibc.exit(status)
    }

    /// A stop signal sent to the process but not yet handled by any thread (the calling thread
    /// blocks them; `sigpending` shows the process-wide ones too), or nil.
    public static func pendingStopSignal() -> Int32? {
        var pending = sigset_t()
        sigemptyset(&pending)
        guard sigpending(&pending) == 0 else { return nil }
        return stopSignals.first { sigismember(&pending, $0) == 1 }
    }

    /// The line a stop by `signal` ends with.
    public static func stopMessage(_ signal: Int32) -> String {
        "posekit: stopped by \(name(of: signal)); every finished frame was written"
    }

    /// In a handler: writes the prepared stop line and ends the process (async-signal-safe only).
    private static func writeStopMessageAndExit(_ signal: Int32) -> Never {
        for (index, signalNumber) in stopSignals.enumerated() where signalNumber == signal && index < handlerMessages.count {
            if let message = handlerMessages[index] { _ = write(2, message, strlen(message)) }
        }
        _exit(exitStatus(for: signal))
    }

    /// The exit status for a stop by `signal`: 128 + its number.
    public static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }

    /// `SIGINT`, `SIGTERM`, `SIGHUP` or the number.
    public static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }
}
