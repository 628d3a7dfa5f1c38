import Foundation
import Testing
@testable import FrameIO
#if canImport(Glibc)
import Glibc
#endif

/// `OutputFile`: atomic replacement, nothing lost on failure, links followed, devices in place;
/// `ByteSink` flush policies; buffers that grow only with the data read.
@Suite(.serialized) struct OutputFileTests {
    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func replacesAtomicallyAndKeepsTheOldFileUntilCommit() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("out.jsonl").path
            try "old\n".write(toFile: path, atomically: false, encoding: .utf8)
            #expect(chmod(path, 0o640) == 0)
            let output = try OutputFile(path: path)
            try output.sink.write("new\n")
            try output.sink.flush()
            #expect(try read(path) == "old\n", "the destination is untouched until commit")
            try output.commit()
            #expect(try read(path) == "new\n")
            var info = stat()
            #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o640, "permissions are kept")

            let abandoned = try OutputFile(path: path)
            try abandoned.sink.write("half\n")
            abandoned.discard()
            #expect(try read(path) == "new\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: dir.path) == ["out.jsonl"])
        }
    }

    @Test func followsSymlinksAndWritesDevicesInPlace() throws {
        try withTemporaryDirectory { dir in
            let target = dir.appendingPathComponent("target.txt").path
            let link = dir.appendingPathComponent("link.txt").path
            let chain = dir.appendingPathComponent("chain.txt").path
            try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: "target.txt")
            try FileManager.default.createSymbolicLink(atPath: chain, withDestinationPath: link)
            let output = try OutputFile(path: chain)
            #expect(output.destination == target)
            try output.sink.write("through\n")
            try output.commit()
            #expect(try read(target) == "through\n")
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: chain) == link)

            let null = try OutputFile(path: "/dev/null")
            #expect(null.destination == nil)
            try null.sink.write("gone\n")
            try null.commit()
            var info = stat()
            #expect(stat("/dev/null", &info) == 0 && (info.st_mode & S_IFMT) == S_IFCHR)

            let full = try OutputFile(path: "/dev/full")
            try full.sink.write("x")
            #expect(throws: FrameIOError.writeFailed(name: "/dev/full", errno: ENOSPC)) { try full.commit() }
        }
    }

    /// `.within(seconds:)` holds records until holding longer would pass the bound (on a clock
    /// the test moves: the outcome never depends on how fast the machine is).
    @Test func recordsAreHeldOnlyBriefly() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        defer { close(fds[0]) }
        let sink = ByteSink(fileDescriptor: fds[1], closeOnDeinit: true)
        let time = ManualClock()
        sink.clock = { time.seconds }
        sink.flushPolicy = .within(seconds: 0.05)
        func available() -> Int32 { var n: Int32 = 0; _ = ioctl(fds[0], UInt(FIONREAD), &n); return n }
        try sink.write("a\n"); try sink.endRecord()
        #expect(available() == 0, "a fresh record may wait")
        time.advance(0.02)
        try sink.write("b\n"); try sink.endRecord()
        #expect(available() == 0, "held 20 ms, and the next record 20 ms away: within the bound")
        time.advance(0.02)
        try sink.write("c\n"); try sink.endRecord()
        #expect(available() == 6, "the first record would have waited past the bound (40 + 20 ms)")
        time.advance(0.2)
        try sink.write("d\n"); try sink.endRecord()
        #expect(available() == 8, "a slow record goes out on its own")
        sink.flushPolicy = .everyRecord
        try sink.write("e\n"); try sink.endRecord()
        #expect(available() == 10)
        #expect(ByteSink.FlushPolicy.forRecords(to: fds[1]) == .everyRecord, "a pipe gets every record at once")
    }

    @Test func buffersGrowOnlyWithTheDataRead() throws {
        let source = ByteSource(bytes: Array(repeating: 5, count: 3000))
        var storage: [UInt8] = []
        #expect(try source.readGrowing(into: &storage, count: 1 << 30) == 3000)
        #expect(storage.capacity <= 4 << 20, "claimed 1 GiB, got \(storage.capacity) bytes of storage")
        #expect(storage[0..<3000].allSatisfy { $0 == 5 })

        // A new buffer for a frame of video size is read into directly: exactly the bytes that
        // arrived, whether the frame is whole or cut short.
        let video = (0..<460_800).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        var fresh: [UInt8] = []
        #expect(try ByteSource(bytes: video).readGrowing(into: &fresh, count: video.count) == video.count)
        #expect(fresh == video)
        var cut: [UInt8] = []
        #expect(try ByteSource(bytes: Array(video[0..<1000])).readGrowing(into: &cut, count: video.count) == 1000)
        #expect(cut == Array(video[0..<1000]))

        // A reused buffer of the right size is filled in place.
        var reused = [UInt8](repeating: 0, count: 10)
        let base = reused.withUnsafeBufferPointer { $0.baseAddress }
        #expect(try ByteSource(bytes: Array(0..<10)).readGrowing(into: &reused, count: 10) == 10)
        #expect(reused == Array(0..<10) && reused.withUnsafeBufferPointer { $0.baseAddress } == base)

        // Lying headers: truncated-frame errors, and no image storage held afterwards.
        let reader = PNMReader(source: ByteSource(bytes: bytes("P5 16384 16384 255\nabc")))
        var image = RGBImage()
        #expect(thrownError { _ = try reader.read(into: &image) } == .truncatedFrame(format: "pnm", frameIndex: 0, bytesRead: 3, bytesExpected: 16384 * 16384))
        #expect(image.pixels.capacity < 1 << 20)
        let y4m = try Y4MReader(source: ByteSource(bytes: bytes("YUV4MPEG2 W16384 H16384 F30:1 C420jpeg\nFRAME\nabc")))
        var frame = YUVFrame()
        #expect(thrownError { _ = try y4m.read(into: &frame) } != nil)
        #expect(frame.data.capacity < 1 << 20)
    }
}

/// A clock a test moves by hand (seconds), for code that reads an injected clock.
final class ManualClock: @unchecked Sendable {
    private let lock = NSLock()
    private var now = 1000.0
    var seconds: Double { lock.lock(); defer { lock.unlock() }; return now }
    func advance(_ seconds: Double) { lock.lock(); now += seconds; lock.unlock() }
}
