import Foundation
import Testing
@testable import FrameIO

/// Media recognized on a stream by its first bytes, as a path is: frames from bytes in memory, a
/// pipe and a file handle equal the frames ffmpeg gives for the same file by path; MP4 index
/// placement read from the boxes; the message for what is no image or video.
struct StreamSniffingTests {
    static let jpeg = sharedDirectory.appendingPathComponent("media/images/coco_000000000785.jpg")

    static func frames(_ sequence: MediaFrames) async throws -> [VideoFrame] {
        var out: [VideoFrame] = []
        for try await frame in sequence { out.append(frame) }
        return out
    }

    @Test func aJPEGInMemoryOrInAPipeIsTheFileByPath() async throws {
        let byPath = try await Self.frames(MediaFrames(path: Self.jpeg.path))
        let bytes = [UInt8](try Data(contentsOf: Self.jpeg))
        let inMemory = try await Self.frames(MediaFrames(bytes: bytes, name: "photo"))
        #expect(byPath.count == 1 && inMemory.count == 1)
        #expect(inMemory.first?.isStillImage == true && inMemory.first?.rgb() == byPath.first?.rgb())
        // Through a pipe, written by another thread in small pieces (as a slow producer would).
        let pipe = Pipe()
        let writer = pipe.fileHandleForWriting
        Thread.detachNewThread {
            for start in stride(from: 0, to: bytes.count, by: 4096) {
                try? writer.write(contentsOf: Data(bytes[start..<min(start + 4096, bytes.count)]))
            }
            try? writer.close()
        }
        let piped = try await Self.frames(MediaFrames(fileHandle: pipe.fileHandleForReading, name: "pipe"))
        #expect(piped.map { $0.rgb() } == byPath.map { $0.rgb() })
    }

    /// Both MP4 layouts, in memory: index first (streamed to ffmpeg) and index last (copied to a
    /// temporary file, since ffmpeg seeks): the frames ffmpeg gives for the file by path.
    @Test func mp4sWithTheIndexFirstOrLastAreRead() async throws {
        try await withTemporaryDirectoryAsync { dir in
            for (name, flags) in [("first.mp4", ["-movflags", "+faststart"]), ("last.mp4", [String]())] {
                let path = dir.appendingPathComponent(name).path
                try ffmpeg(["-ss", "2", "-i", testClip, "-frames:v", "4", "-an", "-vf", "scale=160:90", "-c:v", "mpeg4"] + flags + [path])
                let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
                #expect(MediaFormat.needsSeeking(Array(bytes.prefix(65536)), format: .mp4) == (name == "last.mp4"), "\(name)")
                let byPath = try await Self.frames(MediaFrames(path: path))
                let streamed = try await Self.frames(MediaFrames(bytes: bytes, name: name))
                #expect(byPath.count == 4 && streamed.map { $0.rgb() } == byPath.map { $0.rgb() }, "\(name)")
                #expect(streamed.map(\.time) == byPath.map(\.time))
            }
        }
    }

    /// The box walk on hand-made headers: sizes, a 64-bit size, a fragment first, a cut header.
    @Test func theIndexPlacementComesFromTheBoxes() {
        func box(_ type: String, _ size: Int) -> [UInt8] {
            [UInt8((size >> 24) & 0xFF), UInt8((size >> 16) & 0xFF), UInt8((size >> 8) & 0xFF), UInt8(size & 0xFF)]
                + Array(type.utf8) + [UInt8](repeating: 0, count: max(0, min(size, 64) - 8))
        }
        let ftyp = box("ftyp", 24)
        #expect(!MediaFormat.needsSeeking(ftyp + box("moov", 16), format: .mp4))
        #expect(!MediaFormat.needsSeeking(ftyp + box("free", 16) + box("moof", 16), format: .mp4))
        #expect(MediaFormat.needsSeeking(ftyp + box("free", 16) + box("mdat", 16), format: .mp4))
        let large = [0, 0, 0, 1] + Array("wide".utf8) + [0, 0, 0, 0, 0, 0, 0, 24] + [UInt8](repeating: 0, count: 8)
        #expect(!MediaFormat.needsSeeking(ftyp + large + box("moov", 16), format: .mp4))
        #expect(MediaFormat.needsSeeking(ftyp, format: .mp4), "cut before either box: copied to be safe")
        #expect(MediaFormat.needsSeeking(ftyp + box("junk", 0), format: .mp4), "a zero size runs to the end")
        #expect(!MediaFormat.needsSeeking(box("mdat", 16), format: .matroska), "only MP4 is walked")
    }

    /// What is no image or video: one message with the formats read and the start described
    /// without escapes.
    @Test func unknownInputsAreDescribedPlainly() async throws {
        for (bytes, start) in [(Array("hello\nworld\n".utf8), "it starts with the text \"hello world\""),
                               ([0x7F, 0x45, 0x4C, 0x46, 0x02, 0x0A], "it starts with the bytes 7f 45 4c 46 02 0a"),
                               ([], "it is empty")] as [([UInt8], String)] {
            var caught: Error?
            do { _ = try await Self.frames(MediaFrames(bytes: bytes, name: "notes.txt")) } catch { caught = error }
            let message = caught?.localizedDescription ?? ""
            #expect(message == "notes.txt: not an image or video PoseKit reads (\(start)); it reads \(MediaFormat.acceptedFormats)", "\(message)")
            #expect(!message.contains("\\"))
        }
    }
}

/// ``withTemporaryDirectory(_:)`` for an asynchronous body.
func withTemporaryDirectoryAsync<T>(_ body: (URL) async throws -> T) async throws -> T {
    let dir = try makeTemporaryDirectory()
    defer { try? FileManager.default.removeItem(at: dir) }
    return try await body(dir)
}
