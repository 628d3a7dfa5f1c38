import Foundation
import Testing
@testable import FrameIO
import PoseCore

@Suite struct Y4MReaderTests {
    /// A 4x2 C420jpeg stream with `frames` frames whose bytes are all `frameIndex + 1`.
    func stream(_ header: String = "YUV4MPEG2 W4 H2 F30000:1001 It A0:0 C420jpeg XYSCSS=420JPEG XCOLORRANGE=FULL",
                frames: Int, frameLine: String = "FRAME") -> [UInt8] {
        var data = bytes(header + "\n")
        for i in 0..<frames { data += bytes(frameLine + "\n") + [UInt8](repeating: UInt8(i + 1), count: 8 + 2 + 2) }
        return data
    }

    @Test func headerParameters() throws {
        let reader = try Y4MReader(source: ByteSource(bytes: stream(frames: 0)))
        let h = reader.header
        #expect(h.width == 4 && h.height == 2)
        #expect(h.frameRate == Ratio(30000, 1001))
        #expect(h.interlacing == .topFieldFirst)
        #expect(h.pixelAspect == Ratio(0, 0) && h.pixelAspect.isUnknown)
        #expect(h.chroma == .c420jpeg)
        #expect(h.extensions == ["YSCSS=420JPEG", "COLORRANGE=FULL"])
        #expect(h.declaredRange == .full)
        #expect(reader.defaultConversion == YUVToRGB.Conversion(matrix: .bt601, range: .full))
        #expect(try reader.next() == nil)
    }

    @Test func defaultsWhenParametersAbsent() throws {
        let h = try Y4MReader(source: ByteSource(bytes: bytes("YUV4MPEG2 W2 H2\n"))).header
        #expect(h.frameRate == Ratio(0, 0) && h.chroma == .c420jpeg && h.interlacing == .progressive && h.declaredRange == nil)
        // No F: a rate the stream does not state, like F0:0 (FrameReader reports none).
        let reader = try FrameReader(source: ByteSource(bytes: stream("YUV4MPEG2 W4 H2", frames: 1)))
        #expect(reader.frameRate == nil)
    }

    @Test func theFallbackRateIsPoseCoresOne() {
        #expect(Ratio.fallbackFrameRate == Ratio(30, 1))
        #expect(Ratio.fallbackFrameRate.value == PoseStream.fallbackFrameRate)
        #expect(Y4MStreamHeader(width: 2, height: 2).frameRate == Ratio(30, 1))
    }

    @Test func framesTimestampsAndParameters() throws {
        let data = stream("YUV4MPEG2 W4 H2 F2929:100 Ib A1:1 C420mpeg2", frames: 3, frameLine: "FRAME Ip XFOO=1")
        let reader = try Y4MReader(source: ByteSource(bytes: data))
        #expect(reader.header.interlacing == .bottomFieldFirst)
        var frame = YUVFrame()
        var seen = 0
        while try reader.read(into: &frame) {
            #expect(frame.index == seen)
            #expect(frame.data == [UInt8](repeating: UInt8(seen + 1), count: 12))
            #expect(frame.parameters == ["Ip", "XFOO=1"])
            #expect(abs(frame.timestamp! - Double(seen) * 100 / 2929) < 1e-12)
            seen += 1
        }
        #expect(seen == 3)
        let unknownRate = try Y4MReader(source: ByteSource(bytes: stream("YUV4MPEG2 W4 H2 F0:0", frames: 1)))
        #expect(try unknownRate.next()?.timestamp == nil)
    }

    @Test func everyChromaTag() throws {
        let sizes: [(String, Y4MChroma, Int)] = [
            // 5x3 frame: luma 15 samples; chroma plane sizes differ per format.
            ("420jpeg", .c420jpeg, 15 + 2 * 3 * 2), ("420", .c420jpeg, 15 + 2 * 6), ("420mpeg2", .c420mpeg2, 27),
            ("420paldv", .c420paldv, 27), ("411", Y4MChroma(subsampling: .s411, siting: .left), 15 + 2 * 2 * 3),
            ("422", .c422, 15 + 2 * 3 * 3), ("444", .c444, 45), ("444alpha", Y4MChroma(subsampling: .s444, hasAlpha: true), 60),
            ("mono", .mono, 15), ("420p10", Y4MChroma(subsampling: .s420, bitDepth: 10), 54),
            ("422p12", Y4MChroma(subsampling: .s422, siting: .left, bitDepth: 12), 2 * 33),
            ("444p16", Y4MChroma(subsampling: .s444, bitDepth: 16), 90), ("mono16", Y4MChroma(subsampling: .mono, bitDepth: 16), 30),
        ]
        for (tag, chroma, frameBytes) in sizes {
            let data = bytes("YUV4MPEG2 W5 H3 C\(tag)\nFRAME\n") + [UInt8](repeating: 0, count: frameBytes)
            let reader = try Y4MReader(source: ByteSource(bytes: data))
            #expect(reader.header.chroma == chroma, "\(tag)")
            #expect(reader.header.format.frameByteCount == frameBytes, "\(tag)")
            #expect(try reader.next() != nil, "\(tag)")
            if tag != "420" { #expect(Y4MChroma(tag: chroma.tag) == chroma, "\(tag) round trip") }
        }
    }

    @Test func headerLineRoundTrip() throws {
        let h = Y4MStreamHeader(width: 6, height: 4, frameRate: Ratio(24000, 1001), interlacing: .mixed,
                                pixelAspect: Ratio(0, 0), chroma: Y4MChroma(subsampling: .s420, bitDepth: 10), extensions: ["COLORRANGE=LIMITED"])
        let parsed = try Y4MReader(source: ByteSource(bytes: bytes(h.line))).header
        #expect(parsed == h)
    }

    @Test func badHeaders() {
        func open(_ s: String) -> FrameIOError? { thrownError { _ = try Y4MReader(source: ByteSource(bytes: bytes(s))) } }
        #expect(open("YUV4MPEG W2 H2\n") == .wrongMagic(format: "y4m", found: "YUV4MPEG W"))
        #expect(open("P6 1 1 255\n") == .wrongMagic(format: "y4m", found: "P6 1 1 255"))
        #expect(open("YUV4MP") == .truncatedHeader(format: "y4m", frameIndex: 0))
        #expect(open("YUV4MPEG2 W2 H2") == .truncatedHeader(format: "y4m", frameIndex: 0))
        #expect(open("YUV4MPEG2 W-2 H2\n") == .invalidHeader(format: "y4m", frameIndex: 0, reason: "width '-2' is negative"))
        #expect(open("YUV4MPEG2 W2 Habc\n") == .invalidHeader(format: "y4m", frameIndex: 0, reason: "height 'abc' is not a valid number"))
        #expect(open("YUV4MPEG2 W0 H2\n") == .invalidHeader(format: "y4m", frameIndex: 0, reason: "width '0' is zero"))
        #expect(open("YUV4MPEG2 H2\n") == .invalidHeader(format: "y4m", frameIndex: 0, reason: "missing W (width)"))
        #expect(open("YUV4MPEG2 W2 H2 F30\n") == .invalidHeader(format: "y4m", frameIndex: 0, reason: "frame rate '30' is not N:D"))
        #expect(open("YUV4MPEG2 W2 H2 Ix\n") == .invalidHeader(format: "y4m", frameIndex: 0, reason: "interlacing 'x' is not p, t, b or m"))
        #expect(open("YUV4MPEG2 W2 H2 C421\n") == .unknownChroma("421"))
        #expect(open("YUV4MPEG2 W20000 H20000\n") == .sizeExceedsLimit(width: 20000, height: 20000, maxWidth: 16384, maxHeight: 16384))
        // An endless header line is cut off at the limit instead of being buffered.
        let long = FrameLimits(maxHeaderBytes: 100)
        let e = thrownError { _ = try Y4MReader(source: ByteSource(bytes: bytes("YUV4MPEG2 W2 H2 X" + String(repeating: "a", count: 1000))), limits: long) }
        #expect(e == .invalidHeader(format: "y4m", frameIndex: 0, reason: "stream header longer than 100 bytes"))
    }

    /// Reads until an error; returns the frames delivered before it and the error.
    func readUntilError(_ data: [UInt8]) throws -> (Int, FrameIOError?) {
        let reader = try Y4MReader(source: ByteSource(bytes: data))
        var frame = YUVFrame()
        var count = 0
        do { while try reader.read(into: &frame) { count += 1 } } catch let e as FrameIOError { return (count, e) }
        return (count, nil)
    }

    @Test func truncatedFrameReportsIndexAfterDeliveringEarlierFrames() throws {
        let full = stream(frames: 3)
        let (n1, e1) = try readUntilError(Array(full.dropLast(5)))
        #expect(n1 == 2 && e1 == .truncatedFrame(format: "y4m", frameIndex: 2, bytesRead: 7, bytesExpected: 12))
        let (n2, e2) = try readUntilError(Array(full.dropLast(12 + 3)))  // inside "FRAME\n" of frame 2
        #expect(n2 == 2 && e2 == .truncatedHeader(format: "y4m", frameIndex: 2))
        let (n3, e3) = try readUntilError(Array(full.dropLast(12 + 1)))  // "FRAME" without newline
        #expect(n3 == 2 && e3 == .truncatedHeader(format: "y4m", frameIndex: 2))
    }

    @Test func garbageAndMissingMarkers() throws {
        let one = stream(frames: 1)
        let (n1, e1) = try readUntilError(one + bytes("JUNKJUNK"))
        #expect(n1 == 1 && e1 == .missingFrameMarker(frameIndex: 1, found: "JUNKJUNK"))
        // A frame of the wrong size makes the next marker land in pixel data.
        let (n2, e2) = try readUntilError(one + bytes("FRAME\n") + [UInt8](repeating: 7, count: 13) + bytes("FRAME\n"))
        #expect(n2 == 2 && e2 == .missingFrameMarker(frameIndex: 2, found: "\\x7FRAME\\xa"))
        let (n3, e3) = try readUntilError(one + bytes("FRAMES\n"))
        #expect(n3 == 1 && e3 == .missingFrameMarker(frameIndex: 1, found: "FRAMES"))
    }

    @Test func readsFromFIFOInConstantMemory() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("fifo").path
            #expect(mkfifo(path, 0o600) == 0)
            // 200 frames of 64x64 4:2:0 (6 KiB each) through a FIFO with a small read buffer.
            let frameBytes = 64 * 64 * 3 / 2
            let frames = 200
            let writer = Thread {
                let sink = try! ByteSink(path: path)
                try! sink.write("YUV4MPEG2 W64 H64 F25:1 C420jpeg\n")
                for i in 0..<frames {
                    try! sink.write("FRAME\n")
                    try! sink.write([UInt8](repeating: UInt8(i % 256), count: frameBytes))
                }
                try! sink.flush()
            }
            writer.start()
            let reader = try Y4MReader(source: try ByteSource(path: path, bufferSize: 4096))
            var frame = YUVFrame()
            var count = 0
            while try reader.read(into: &frame) {
                #expect(frame.data.first == UInt8(count % 256) && frame.data.last == UInt8(count % 256))
                count += 1
            }
            #expect(count == frames)
        }
    }
}
