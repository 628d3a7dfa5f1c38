import Foundation
import Testing
import TestSupport
@testable import FrameIO
#if canImport(Glibc)
import Glibc
#endif

/// `RGBImage(contentsOfFile:)` reads one image file: a FIFO (or a device) is refused at once,
/// where the first version waited forever for a writer that never came.
struct ImageFileFIFOTests {
    @Test func aFIFOWithoutAWriterIsRefusedAtOnce() throws {
        try withTemporaryDirectory { dir in
            let fifo = dir.appendingPathComponent("photo.ppm").path
            #expect(mkfifo(fifo, 0o600) == 0)
            let condition = NSCondition()
            nonisolated(unsafe) var message: String?
            Thread.detachNewThread {
                let text: String
                do { _ = try RGBImage(contentsOfFile: fifo); text = "read" } catch { text = error.localizedDescription }
                condition.lock(); message = text; condition.broadcast(); condition.unlock()
            }
            condition.lock()
            let deadline = HangGuard.deadline   // refused at once, or never (a hang)
            while message == nil && condition.wait(until: deadline) {}
            let result = message
            condition.unlock()
            if result == nil { close(open(fifo, O_WRONLY)) }   // the old reader waits for a writer: end it
            #expect(result == "\(fifo): is a FIFO, not an image file; read streams with MediaReader or MediaFrames",
                    "\(result ?? "still waiting for a writer")")
        }
    }
}
