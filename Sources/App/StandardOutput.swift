import PoseKit
#if canImport(Glibc)
@preconcurrency import Glibc
#endif

/// The last check on what went to standard output through C stdio (`print`, ArgumentParser's
/// help): a failed write (`> /dev/full`) must not end in status 0.
enum StandardOutput {
    /// Flushes stdout. On failure exits: 141 quietly when the reader has gone (like SIGPIPE),
    /// otherwise 1 with one line on stderr.
    static func flushOrExit() {
        errno = 0
        let flushFailed = fflush(stdout) != 0
        let code = errno
        guard flushFailed || ferror(stdout) != 0 else { return }
        if code == EPIPE || readerHasGone() { exit(141) }
        let reason = code != 0 ? String(cString: strerror(code)) : "an earlier write failed"
        printToStandardError("posekit: error: cannot write standard output: \(reason)")
        exit(1)
    }

    /// Prints `line` and sends it on at once (a benchmark's line is read as it comes, also
    /// through a pipe, where stdio would hold it until the end).
    static func printLine(_ line: String) {
        print(line)
        flushOrExit()
    }

    /// True when stdout is a pipe or socket whose reading end is closed.
    private static func readerHasGone() -> Bool {
        var entry = pollfd(fd: 1, events: 0, revents: 0)
        return poll(&entry, 1, 0) == 1 && entry.revents & Int16(POLLERR) != 0
    }
}
