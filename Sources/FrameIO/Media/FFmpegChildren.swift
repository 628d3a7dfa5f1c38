import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The ffmpeg children this process runs and has not reaped yet, so that a program about to
/// exit can end them all at once (``MediaReader/endChildProcesses()``).
///
/// Every signal and `waitpid` for a child goes through here under one lock, and a child leaves
/// the set when it is reaped: once reaped, its process ID may belong to another process, which
/// must never get our signals.
enum FFmpegChildren {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var running: Set<pid_t> = []

    static func add(_ child: pid_t) {
        lock.lock(); defer { lock.unlock() }
        running.insert(child)
    }

    /// Sends `signal` to `child` unless it has been reaped.
    static func signal(_ child: pid_t, _ signal: Int32) {
        lock.lock(); defer { lock.unlock() }
        if running.contains(child) { kill(child, signal) }
    }

    /// `waitpid(child, &status, options)`; true once `child` is reaped (here or by
    /// ``endAll()``, whose status is then not known: `status` stays as it was).
    static func wait(_ child: pid_t, _ status: inout Int32, options: Int32) -> Bool {
        lock.lock(); defer { lock.unlock() }
        guard running.contains(child) else { return true }
        while true {
            let result = waitpid(child, &status, options)
            if result < 0 && errno == EINTR { continue }
            guard result == child || (result < 0 && errno == ECHILD) else { return false }
            running.remove(child)
            return true
        }
    }

    /// Kills and reaps every child not reaped yet.
    static func endAll() {
        lock.lock(); defer { lock.unlock() }
        for child in running {
            kill(child, SIGKILL)
            var status: Int32 = 0
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
        }
        running.removeAll()
    }
}

extension MediaReader {
    /// Ends every ffmpeg child this process runs to decode or encode media, at once, and reaps
    /// it: for a program about to exit while a frame sequence may still be open on another task.
    ///
    /// Dropping a ``MediaFrames`` iterator ends its own child too, but on the task that held it,
    /// which a program that calls `exit` does not wait for; ffmpeg would then outlive it until
    /// its next write into the closed pipe. `posekit` calls this before it exits. Media read
    /// or written after this call start new children as usual.
    public static func endChildProcesses() {
        FFmpegChildren.endAll()
    }
}
