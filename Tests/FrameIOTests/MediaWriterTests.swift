import Foundation
import Testing
@testable import FrameIO

/// Overlays out: raw Y4M and PPM as they are, MP4 / Matroska / WebM / PNG / JPEG through ffmpeg,
/// each read back; anything else refused before a byte is written.
struct MediaWriterTests {
    static let frameRate = Ratio(25, 1)

    /// `count` video frames of a moving gradient (its pictures and the frames they draw on).
    static func videoFrames(_ count: Int, width: Int = 64, height: Int = 48) -> [(RGBImage, VideoFrame)] {
        (0..<count).map { k in
            let image = MediaFramesTests.gradient(width: width, height: height, phase: 5 * k)
            return (image, VideoFrame(image: image, index: k, time: Double(k) / 25, frameRate: frameRate, isStillImage: false))
        }
    }

    /// Writes `frames` to `path` and commits.
    static func write(_ frames: [(RGBImage, VideoFrame)], to path: String) throws {
        let writer = try MediaWriter(path: path)
        try OutputFile.committing([writer.output]) {
            for (image, frame) in frames { try writer.write(image, of: frame) }
        }
    }

    static func readBack(_ path: String) async throws -> [VideoFrame] {
        var frames: [VideoFrame] = []
        for try await frame in MediaFrames(path: path) { frames.append(frame) }
        return frames
    }

    @Test func rawY4MKeepsTheFramesAndTheirRate() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("overlay.y4m").path
        let frames = Self.videoFrames(3)
        try Self.write(frames, to: path)
        let back = try await Self.readBack(path)
        #expect(back.count == 3 && back.allSatisfy { !$0.isStillImage && $0.frameRate == Self.frameRate })
        #expect(difference(back[2].rgb(), frames[2].0).mean < 6)
    }

    @Test func stillImagesBecomePPM() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("overlay.ppm").path
        let images = [MediaFramesTests.gradient(width: 30, height: 20, phase: 1), MediaFramesTests.gradient(width: 40, height: 10, phase: 2)]
        try Self.write(images.enumerated().map { ($0.element, VideoFrame(image: $0.element, index: $0.offset)) }, to: path)
        let back = try await Self.readBack(path)
        #expect(back.map { $0.rgb() } == images)
        let mixed = try MediaWriter(path: dir.appendingPathComponent("mixed.ppm").path)
        try mixed.write(images[0], of: VideoFrame(image: images[0]))
        let video = Self.videoFrames(1)[0]
        #expect(throws: FrameIOError.self) { try mixed.write(video.0, of: video.1) }
        mixed.output.discard()
    }

    /// Video through ffmpeg: every frame comes back, at the size and rate written, close to
    /// what was drawn (lossy codecs).
    @Test(arguments: ["mp4", "mkv", "webm"])
    func videoIsEncodedByFFmpeg(_ ext: String) async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("overlay.\(ext)").path
        let frames = Self.videoFrames(6)
        try Self.write(frames, to: path)
        let back = try await Self.readBack(path)
        #expect(back.count == 6)
        #expect(back.allSatisfy { $0.width == 64 && $0.height == 48 && $0.frameRate == Self.frameRate })
        #expect(difference(back[4].rgb(), frames[4].0).mean < 12)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)
    }

    /// One image through ffmpeg: PNG is lossless, so it comes back exactly; a video into an image
    /// format is refused before ffmpeg starts.
    @Test func anImageIsEncodedByFFmpeg() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let image = MediaFramesTests.gradient(width: 33, height: 21, phase: 4)
        let png = dir.appendingPathComponent("overlay.png").path
        try Self.write([(image, VideoFrame(image: image))], to: png)
        #expect(try await Self.readBack(png).map { $0.rgb() } == [image])
        let jpeg = dir.appendingPathComponent("overlay.jpg").path
        try Self.write([(image, VideoFrame(image: image))], to: jpeg)
        #expect(difference(try await Self.readBack(jpeg)[0].rgb(), image).mean < 8)

        let writer = try MediaWriter(path: dir.appendingPathComponent("video.png").path)
        let video = Self.videoFrames(1)[0]
        let error = #expect(throws: FrameIOError.self) { try writer.write(video.0, of: video.1) }
        #expect(error?.localizedDescription.hasSuffix("a PNG image holds one picture, and this input is a video; write video to .mp4, .mkv, .webm or .y4m") == true)
        writer.output.discard()
        #expect(!FileManager.default.fileExists(atPath: dir.appendingPathComponent("video.png").path))
    }

    /// Only what can be written is accepted, and the refusal names the path and the ways out.
    @Test(arguments: ["x.avi", "x", "x.txt", "x.gif"])
    func otherOutputsAreRefused(_ name: String) throws {
        let error = #expect(throws: FrameIOError.self) { try MediaWriter.check(path: "/tmp/\(name)") }
        let text = error?.localizedDescription ?? ""
        #expect(text.hasPrefix("/tmp/\(name): cannot write frames as "), "\(text)")
        #expect(text.hasSuffix("use .mp4, .mkv, .webm, .mov, .m4v, .png or .jpg (encoded by ffmpeg), .y4m or .ppm, or - for standard output"))
        for accepted in ["-", "/dev/null", "/tmp/x.y4m", "/tmp/x.PPM", "/tmp/x.mp4", "/tmp/x.webm", "/tmp/x.jpeg"] {
            #expect(throws: Never.self) { try MediaWriter.check(path: accepted) }
        }
    }

    /// A run that fails before the end keeps what ffmpeg finished; one that wrote nothing leaves
    /// no file behind, and ffmpeg is ended either way.
    @Test func aFailedRunKeepsWhatWasWritten() async throws {
        let dir = try makeTemporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("partial.mp4").path
        let writer = try MediaWriter(path: path)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try OutputFile.committing([writer.output]) {
                for (image, frame) in Self.videoFrames(3) { try writer.write(image, of: frame) }
                throw Stop()
            }
        }
        #expect(try await Self.readBack(path).count == 3)
        let nothing = dir.appendingPathComponent("nothing.mp4").path
        let unused = try MediaWriter(path: nothing)
        #expect(throws: Stop.self) { try OutputFile.committing([unused.output]) { throw Stop() } }
        #expect(!FileManager.default.fileExists(atPath: nothing))
    }
}
