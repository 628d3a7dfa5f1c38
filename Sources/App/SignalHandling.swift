import PoseKit
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
enum SignalHandling {
    static let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// Installs the handlers (idempotent; call before the first frame is read).
    static func install() {
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
            }
            sigemptyset(&action.sa_mask)
            action.sa_flags = SA_RESTART
            sigaction(signalNumber, &action, nil)
        }
    }

    /// The exit status for a stop by `signal`: 128 + its number.
    static func exitStatus(for signal: Int32) -> Int32 { 128 + signal }

    /// `SIGINT`, `SIGTERM`, `SIGHUP` or the number.
    static func name(of signal: Int32) -> String {
        switch signal {
        case SIGINT: return "SIGINT"
        case SIGTERM: return "SIGTERM"
        case SIGHUP: return "SIGHUP"
        default: return "signal \(signal)"
        }
    }
}
