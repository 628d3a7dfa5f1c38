import Foundation

/// A process that busy-loops on one core while a benchmark runs, like a neighbor on a shared
/// host (`bench model --busy-neighbor`).
final class BusyNeighbor {
    private let process = Process()

    /// Names the loop's command line, so that it can be found (`ps`, the tests).
    static let marker = "posekit-busy-neighbor"

    /// Starts a shell loop: one runnable thread, never sleeping. Every few hundred thousand turns
    /// it checks that posekit is still there and ends otherwise, so a posekit killed by a signal
    /// (which runs no `deinit`) leaves no busy loop behind.
    init() throws {
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", """
            : \(Self.marker); parent=$PPID; turns=0
            while :; do
              turns=$((turns + 1))
              if [ "$turns" -ge 200000 ]; then kill -0 "$parent" 2>/dev/null || exit 0; turns=0; fi
            done
            """]
        try process.run()
        Thread.sleep(forTimeInterval: 0.05)  // let the scheduler place it
    }

    /// Stops the loop and waits for it. SIGKILL, because SIGTERM may be blocked: a child inherits
    /// its parent's signal mask, and a posekit started with SIGTERM blocked would wait forever.
    func stop() {
        guard process.isRunning else { return }
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
    }

    deinit { stop() }
}
