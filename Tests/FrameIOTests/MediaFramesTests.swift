import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
@testable import FrameIO

/// The async frame sequence: same frames as the synchronous reader, errors in order, and
/// back-pressure (a slow consumer keeps the producer from reading ahead).
struct MediaFramesTests {
    /// A Y4M stream of `count` frames of a moving gradient, made with the writer.
    static func makeY4M(width: Int, height: Int, count: Int, frameRate: Ratio = Ratio(30, 1)) throws -> [UInt8] {
        let sink = ByteSink()
        let writer = Y4MWriter(sink: sink, width: width, height: height, frameRate: frameRate)
        for k in 0..<count { try writer.write(gradient(width: width, height: height, phase: k)) }
        try sink.flush()
        return sink.bytes
    }

    static func gradient(width: Int, height: Int, phase: Int) -> RGBImage {
        var image = RGBImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                image[x, y] = RGBColor(UInt8((x + 7 * phase) & 255), UInt8((y * 3 + phase) & 255), UInt8((x ^ y) & 255))
            }
        }
        return image
    }

    @Test func deliversTheReadersFrames() async throws {
        let bytes = try Self.makeY4M(width: 48, height: 30, count: 5)
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("clip.y4m").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))

        let reader = try Y4MReader(source: ByteSource(bytes: bytes))
        var expected: [YUVFrame] = []
        while let frame = try reader.next() { expected.append(frame) }

        var frames: [VideoFrame] = []
        for try await frame in MediaFrames(path: path) { frames.append(frame) }
        #expect(frames.count == 5)
        #expect(frames.map { $0.planes?.data } == expected.map(\.data))
        #expect(frames.allSatisfy { !$0.isStillImage && $0.frameRate == Ratio(30, 1) })
        #expect(frames.map(\.index) == [0, 1, 2, 3, 4])
        #expect(frames.map(\.time) == expected.map(\.timestamp))
        #expect(frames[1].time == 1.0 / 30)
        #expect(frames[0].planeConversion == reader.defaultConversion)
        // RGB comes back close to what was written (4:2:0 and limited range lose a little).
        let error = difference(frames[3].rgb(), Self.gradient(width: 48, height: 30, phase: 3))
        #expect(error.mean < 6)

        // A second iteration reads the file again from the start.
        var again = 0
        for try await _ in MediaFrames(path: path) { again += 1 }
        #expect(again == 5)
    }

    @Test func throwsAfterTheCompleteFrames() async throws {
        var bytes = try Self.makeY4M(width: 16, height: 16, count: 3)
        bytes.removeLast(100)   // the third frame is cut short
        let truncated = Data(bytes)
        let pipe = Pipe()
        let writer = Thread { pipe.fileHandleForWriting.write(truncated); try? pipe.fileHandleForWriting.close() }
        writer.start()
        var delivered = 0
        var caught: FrameIOError?
        do {
            for try await _ in MediaFrames(fileHandle: pipe.fileHandleForReading) { delivered += 1 }
        } catch let error as FrameIOError {
            caught = error
        }
        #expect(delivered == 2)
        guard case .file("input", .truncatedFrame(_, let index, _, _))? = caught else {
            Issue.record("expected a truncated frame, got \(String(describing: caught))")
            return
        }
        #expect(index == 2)

        var missing: Error?
        do { for try await _ in MediaFrames(path: "/nonexistent/clip.y4m") {} } catch { missing = error }
        #expect("\(missing.map { "\($0)" } ?? "")".contains("/nonexistent/clip.y4m"))
        #expect(missing?.localizedDescription == "/nonexistent/clip.y4m: open: No such file or directory", "LocalizedError: \(missing!.localizedDescription)")
    }

    /// A stream of PNM images: each frame a still image of its own, indexed, untimed.
    @Test func pnmImagesAreStillFrames() async throws {
        let images = (0..<3).map { Self.gradient(width: 20, height: 10 + $0, phase: $0) }
        let bytes = images.flatMap { PPMWriter.encode($0) }
        var frames: [VideoFrame] = []
        for try await frame in MediaFrames(bytes: bytes) { frames.append(frame) }
        #expect(frames.map(\.index) == [0, 1, 2])
        #expect(frames.allSatisfy { $0.isStillImage && $0.time == nil && $0.frameRate == nil })
        #expect(frames.map { $0.rgb() } == images)
    }

    /// A broken frame in memory: the error names the input and the frame, after the good ones.
    @Test func errorsNameTheInput() async throws {
        var bytes = try Self.makeY4M(width: 16, height: 16, count: 2)
        bytes.removeLast(10)
        var delivered = 0
        var caught: Error?
        do { for try await _ in MediaFrames(bytes: bytes, name: "memory.y4m") { delivered += 1 } } catch { caught = error }
        #expect(delivered == 1)
        #expect(caught?.localizedDescription == "memory.y4m: y4m: input ends inside frame 1 (374 of 384 bytes)")
    }

    /// A writer thread pushes big frames into a pipe; the consumer takes two and stops. Reading
    /// on demand, the reader stops too, so the pipe fills up and the writer blocks a frame or two
    /// ahead (the pipe and the reader's buffer are smaller than a frame): the test waits for that
    /// event, a full pipe, and then counts. A reader that read ahead freely would drain the pipe
    /// until the writer finished, so the pipe would never fill (the hang guard fails it).
    @Test func aSlowConsumerHoldsTheProducerBack() async throws {
        let frameCount = 12
        let bytes = try Self.makeY4M(width: 1280, height: 720, count: frameCount)   // 1.4 MB per frame
        let written = Y4MPipeWriter(bytes, frameCount: frameCount)
        let readEnd = written.pipe.fileHandleForReading.fileDescriptor

        var iterator = MediaFrames(fileHandle: written.pipe.fileHandleForReading).makeAsyncIterator()
        var taken = 0
        for _ in 0..<2 { if try await iterator.next() != nil { taken += 1 } }
        let capacity = Int(fcntl(readEnd, 1032))   // F_GETPIPE_SZ (a GNU name Swift does not import)
        func waiting() -> Int { var n: Int32 = 0; _ = ioctl(readEnd, UInt(FIONREAD), &n); return Int(n) }
        let deadline = HangGuard.deadline
        while waiting() < capacity - 4096 && Date() < deadline { try await Task.sleep(for: .milliseconds(5)) }   // polls an event
        #expect(waiting() >= capacity - 4096, "the pipe never filled: the reader went on reading")
        let ahead = written.count - taken
        #expect(ahead <= 2, "the producer wrote \(written.count) frames while the consumer took \(taken)")
        while try await iterator.next() != nil { taken += 1 }
        #expect(taken == frameCount)
        #expect(written.count == frameCount)
    }

    /// ffmpeg keeps only its standard streams: a pipe this process opened without close-on-exec
    /// (as `Pipe()` does) reads as ended once this process closes its writing end, while ffmpeg
    /// still runs (a decoded frame is waiting to be taken).
    @Test func ffmpegInheritsNoOtherDescriptor() async throws {
        let pipe = Pipe()
        var iterator = MediaFrames(path: testClip).makeAsyncIterator()
        #expect(try await iterator.next() != nil)   // ffmpeg runs, blocked on the frames not taken
        try pipe.fileHandleForWriting.close()
        var entry = pollfd(fd: pipe.fileHandleForReading.fileDescriptor, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, 2000)
        var byte: UInt8 = 0
        #expect(ready == 1 && read(entry.fd, &byte, 1) == 0, "the pipe's writing end is still open somewhere (ffmpeg?)")
        #expect(try await iterator.next() != nil)   // ffmpeg was still there
    }
}

extension VideoFrame {
    /// The Y'CbCr planes of a video frame (nil for RGB).
    var planes: YUVFrame? { if case .yuv(let yuv, _) = pixels { yuv } else { nil } }
    var planeConversion: YUVToRGB.Conversion? { if case .yuv(_, let conversion) = pixels { conversion } else { nil } }
}
