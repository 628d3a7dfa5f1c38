import Foundation

/// A process that busy-loops on one core while a benchmark runs, like a neighbor on a shared
/// host (`bench model --busy-neighbor`).
final class BusyNeighbor {
    private let process = Process()

    /// Starts `/bin/sh -c 'while :; do :; done'` (one runnable thread, never sleeping).
    init() throws {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "while :; do :; done"]
        try process.run()
        Thread.sleep(forTimeInterval: 0.05)  // let the scheduler place it
    }

    /// Stops the loop and waits for it.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}
