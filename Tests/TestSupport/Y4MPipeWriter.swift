import Foundation

/// A Y4M stream written into a pipe by its own thread, as a producer process would, counting
/// what it has written: the tests of a slow consumer read ``pipe``'s reading end and check how
/// far the producer got ahead. The one pipe producer the test targets share.
public final class Y4MPipeWriter: @unchecked Sendable {
    /// Read from `pipe.fileHandleForReading`; the writing end is closed after the last frame.
    public let pipe = Pipe()
    private let lock = NSLock()
    private var written = 0

    /// Starts writing `bytes` (a Y4M stream of `frameCount` equal-size frames): the header, then
    /// one `write` per frame (each counted), or with `frameByFrame` false everything in one
    /// `write`, counted once at the end.
    public init(_ bytes: [UInt8], frameCount: Int, frameByFrame: Bool = true) {
        let handle = pipe.fileHandleForWriting
        Thread { [self] in
            if frameByFrame {
                let header = bytes.firstIndex(of: 0x0A)! + 1
                let frameBytes = (bytes.count - header) / frameCount
                handle.write(Data(bytes[0..<header]))
                for k in 0..<frameCount {
                    handle.write(Data(bytes[(header + k * frameBytes)..<(header + (k + 1) * frameBytes)]))
                    increment()
                }
            } else {
                handle.write(Data(bytes))
                increment()
            }
            try? handle.close()
        }.start()
    }

    /// The writes done so far: frames, or 1 once everything is written (`frameByFrame` false).
    public var count: Int { lock.lock(); defer { lock.unlock() }; return written }

    private func increment() { lock.lock(); written += 1; lock.unlock() }
}
