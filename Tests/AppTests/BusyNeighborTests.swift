import Foundation
import Testing

/// `bench model --busy-neighbor` starts a busy-looping process; posekit killed (SIGKILL: no
/// cleanup runs, as for any signal posekit does not catch) must not leave it spinning on a core.
@Suite(.serialized) struct BusyNeighborTests {
    static let marker = "posekit-busy-neighbor"

    @Test func aKilledBenchLeavesNoBusyLoopBehind() throws {
        let bench = Process()
        bench.executableURL = CLI.executable
        bench.arguments = ["bench", "model", "--models", "mobilenet050", "--sizes", "33", "--threads", "1",
                           "--runs", "10000", "--busy-neighbor"]
        bench.standardOutput = FileHandle.nullDevice
        bench.standardError = FileHandle.nullDevice
        try bench.run()
        defer { if bench.isRunning { kill(bench.processIdentifier, SIGKILL) } }
        // Wait for its neighbor to start (after the quiet timings): an event, bounded only by the hang guard.
        _ = LiveProcess.poll { !FFmpegInputTests.processes(mentioning: Self.marker).isEmpty || !bench.isRunning }
        #expect(!FFmpegInputTests.processes(mentioning: Self.marker).isEmpty, "the busy neighbor never started")
        kill(bench.processIdentifier, SIGKILL)
        bench.waitUntilExit()
        #expect(bench.terminationReason == .uncaughtSignal && bench.terminationStatus == SIGKILL)
        // The loop notices within a fraction of a second on a quiet machine; the test waits for
        // it to go, however long a loaded machine takes (the hang guard calls it left behind).
        _ = LiveProcess.poll { FFmpegInputTests.processes(mentioning: Self.marker).isEmpty }
        let left = FFmpegInputTests.processes(mentioning: Self.marker)
        for line in left { if let pid = Int32(line.prefix { $0 != ":" }) { kill(pid, SIGKILL) } }
        #expect(left.isEmpty, "left behind: \(left)")
    }
}
