import Foundation
import Testing
@testable import FrameIO

@Suite(.serialized) struct WriterTests {
    /// Three real frames as RGB, decoded by ffmpeg.
    func realFrames(_ dir: URL, width: Int = 160, height: Int = 90) throws -> [RGBImage] {
        let ppm = dir.appendingPathComponent("src.ppm").path
        try ffmpeg(["-ss", "2", "-i", testClip, "-frames:v", "3", "-vf", "scale=\(width):\(height)", "-pix_fmt", "rgb24",
                    "-f", "image2pipe", "-c:v", "ppm", ppm])
        return try readAllPNM(ppm)
    }

    @Test(arguments: [Y4MWriter.Chroma.c444, .c420])
    func y4mRoundTripThroughFFmpeg(_ chroma: Y4MWriter.Chroma) throws {
        try withTemporaryDirectory { dir in
            // Odd size on purpose: 4:2:0 chroma planes round up.
            let frames = try realFrames(dir, width: 161, height: 91)
            let out = dir.appendingPathComponent("ours.y4m").path
            let writer = Y4MWriter(sink: try ByteSink(path: out), width: 161, height: 91, frameRate: Ratio(30000, 1001), chroma: chroma)
            for f in frames { try writer.write(f) }
            try writer.flush()
            // ffmpeg decodes our stream: same frame count and size, pixels close to the originals.
            let decoded = dir.appendingPathComponent("decoded.ppm").path
            try ffmpeg(["-f", "yuv4mpegpipe", "-i", out, "-sws_flags", "bilinear+accurate_rnd+full_chroma_int",
                        "-pix_fmt", "rgb24", "-f", "image2pipe", "-c:v", "ppm", decoded])
            let back = try readAllPNM(decoded)
            #expect(back.count == frames.count)
            for (a, b) in zip(frames, back) {
                #expect(b.width == 161 && b.height == 91)
                let mean = difference(a, b).mean
                #expect(mean < (chroma == .c444 ? 0.8 : 3), "\(chroma): mean |Δ| \(mean)")
            }
            // And our own reader agrees with ffmpeg about the stream.
            let (header, ours) = try readAllY4M(out)
            #expect(ours.count == 3 && header.frameRate == Ratio(30000, 1001) && header.declaredRange == .limited)
            #expect(header.chroma == (chroma == .c444 ? .c444 : .c420jpeg))
        }
    }

    @Test func ppmRoundTrip() throws {
        try withTemporaryDirectory { dir in
            let frames = try realFrames(dir)
            let out = dir.appendingPathComponent("ours.ppm").path
            let writer = PPMWriter(sink: try ByteSink(path: out))
            for f in frames { try writer.write(f) }
            try writer.flush()
            #expect(try readAllPNM(out) == frames)
            let raw = try ffmpeg(["-f", "image2pipe", "-c:v", "ppm", "-i", out, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"])
            #expect([UInt8](raw) == frames.flatMap(\.pixels))
        }
    }

    @Test func closedPipeIsBrokenPipeNotSIGPIPE() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        close(fds[0])  // nobody will read
        let sink = ByteSink(fileDescriptor: fds[1], closeOnDeinit: true, bufferSize: 4096)
        let writer = PPMWriter(sink: sink)
        let image = RGBImage(width: 64, height: 64)
        #expect(thrownError { try writer.write(image); try writer.flush() } == .brokenPipe)
        // And it stays broken: later writes fail the same way instead of retrying.
        #expect(thrownError { try writer.write(image) } == .brokenPipe)
    }

    @Test func writerRejectsWrongSize() throws {
        let writer = Y4MWriter(sink: ByteSink(), width: 4, height: 4)
        #expect(thrownError { try writer.write(RGBImage(width: 2, height: 2)) } != nil)
    }

    @Test func memorySinkY4MLayout() throws {
        let sink = ByteSink()
        let writer = Y4MWriter(sink: sink, width: 2, height: 2, chroma: .c420)
        try writer.write(RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 255, count: 12)))
        let header = "YUV4MPEG2 W2 H2 F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\nFRAME\n"  // the default rate: the one fallback
        #expect(Array(sink.bytes.prefix(header.utf8.count)) == bytes(header))
        // White in limited range: Y 235, Cb = Cr = 128.
        #expect(Array(sink.bytes.suffix(6)) == [235, 235, 235, 235, 128, 128])
    }
}
