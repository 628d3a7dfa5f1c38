import Testing
@testable import FrameIO

@Suite struct PNMReaderTests {
    func read(_ data: [UInt8], limits: FrameLimits = .default) throws -> [RGBImage] {
        let reader = PNMReader(source: ByteSource(bytes: data), limits: limits)
        var out: [RGBImage] = []
        while let i = try reader.next() { out.append(i) }
        return out
    }

    @Test func binaryRGB() throws {
        let images = try read(bytes("P6\n2 1\n255\n") + [255, 0, 0, 1, 2, 3])
        #expect(images.count == 1)
        #expect(images[0].width == 2 && images[0].height == 1)
        #expect(images[0].pixels == [255, 0, 0, 1, 2, 3])
    }

    @Test func commentsAnywhereInHeader() throws {
        let text = "P6# after magic\n#full line\n 2#w\n\t1 # h\n255# last comment\n"
        let images = try read(bytes(text) + [9, 8, 7, 6, 5, 4])
        #expect(images[0].pixels == [9, 8, 7, 6, 5, 4])
    }

    @Test func grayExpandsAndSmallMaxvalScales() throws {
        // maxval 15: v → round(v·255/15) = 17·v.
        let images = try read(bytes("P5 3 1 15\n") + [0, 7, 15])
        #expect(images[0].pixels == [0, 0, 0, 119, 119, 119, 255, 255, 255])
    }

    @Test func sixteenBitBigEndianScalesTo8Bit() throws {
        // 0x0100 = 256 → (256·255 + 32767) / 65535 = 1;  0xFFFF → 255;  0x8000 → 128.
        let images = try read(bytes("P6 1 1 65535\n") + [0x01, 0x00, 0xFF, 0xFF, 0x80, 0x00])
        #expect(images[0].pixels == [1, 255, 128])
        let gray = try read(bytes("P5 2 1 1000\n") + [0x03, 0xE8, 0x01, 0xF4])  // 1000, 500
        #expect(gray[0].pixels == [255, 255, 255, 128, 128, 128])
    }

    @Test func asciiFormats() throws {
        let rgb = try read(bytes("P3\n# c\n2 1\n255\n255 0 0 # red\n0 0 255\n"))
        #expect(rgb[0].pixels == [255, 0, 0, 0, 0, 255])
        let gray = try read(bytes("P2 2 2 4\n0 1\n2 4\n"))
        // v·255/4 rounded: 0, 64, 128, 255
        #expect(gray[0].pixels == [0, 0, 0, 64, 64, 64, 128, 128, 128, 255, 255, 255])
    }

    @Test func concatenatedImages() throws {
        let data = bytes("P6\n1 1\n255\n") + [1, 2, 3] + bytes("P5\n2 1\n255\n") + [7, 9] + bytes("\n\nP3 1 1 255 4 5 6\n")
        let images = try read(data)
        #expect(images.count == 3)
        #expect(images[0].pixels == [1, 2, 3])
        #expect(images[1].pixels == [7, 7, 7, 9, 9, 9])
        #expect(images[2].pixels == [4, 5, 6])
    }

    @Test func readIntoReusesBuffer() throws {
        let data = bytes("P6 2 2 255\n") + [UInt8](repeating: 1, count: 12) + bytes("P6 2 2 255\n") + [UInt8](repeating: 2, count: 12)
        let reader = PNMReader(source: ByteSource(bytes: data))
        var image = RGBImage()
        var seen: [UInt8] = []
        while try reader.read(into: &image) { seen.append(image.pixels[0]) }
        #expect(seen == [1, 2])
        #expect(reader.imageIndex == 2)
    }

    @Test func truncatedDataKeepsEarlierImages() throws {
        let data = bytes("P6 1 1 255\n") + [1, 2, 3] + bytes("P6 2 1 255\n") + [1, 2, 3, 4]
        let reader = PNMReader(source: ByteSource(bytes: data))
        #expect(try reader.next()?.pixels == [1, 2, 3])
        #expect(thrownError { _ = try reader.next() } == .truncatedFrame(format: "pnm", frameIndex: 1, bytesRead: 4, bytesExpected: 6))
    }

    @Test func truncatedHeader() {
        #expect(thrownError { _ = try read(bytes("P6 2 1")) } == .truncatedHeader(format: "pnm", frameIndex: 0))
        #expect(thrownError { _ = try read(bytes("P")) } == .truncatedHeader(format: "pnm", frameIndex: 0))
        #expect(thrownError { _ = try read(bytes("P6 2 1 255")) } == .truncatedHeader(format: "pnm", frameIndex: 0))
    }

    @Test func badHeaders() {
        #expect(thrownError { _ = try read(bytes("GIF89a")) } == .wrongMagic(format: "pnm", found: "GIF89a"))
        #expect(thrownError { _ = try read(bytes("P6 -2 1 255\n")) } == .invalidHeader(format: "pnm", frameIndex: 0, reason: "width is negative"))
        if case .invalidHeader(_, _, let reason)? = thrownError({ _ = try read(bytes("P6 2 x 255\n")) }) {
            #expect(reason.hasPrefix("height is not a number"))
        } else { Issue.record("non-numeric height accepted") }
        #expect(thrownError { _ = try read(bytes("P6 0 1 255\n")) } == .invalidHeader(format: "pnm", frameIndex: 0, reason: "width is 0"))
        #expect(thrownError { _ = try read(bytes("P6 1 1 70000\n")) } == .invalidHeader(format: "pnm", frameIndex: 0, reason: "maxval 70000 above 65535"))
        #expect(thrownError { _ = try read(bytes("P5 1 1 10\n") + [11]) } == .invalidHeader(format: "pnm", frameIndex: 0, reason: "sample 11 above maxval 10"))
        #expect(thrownError { _ = try read(bytes("P6 99999999999999999999 1 255\n")) } == .invalidHeader(format: "pnm", frameIndex: 0, reason: "width is too large"))
        if case .invalidHeader(_, _, let reason)? = thrownError({ _ = try read(bytes("P4 1 1\n\0")) }) {
            #expect(reason.contains("not supported"))
        } else { Issue.record("P4 accepted") }
    }

    @Test func sizeLimitRefusesBeforeAllocating() {
        // 100000 x 100000 would be 30 GB; the default limit refuses it from the header alone.
        #expect(thrownError { _ = try read(bytes("P6 100000 100000 255\n")) }
                == .sizeExceedsLimit(width: 100000, height: 100000, maxWidth: 16384, maxHeight: 16384))
        let small = FrameLimits(maxWidth: 4, maxHeight: 4)
        #expect(thrownError { _ = try read(bytes("P6 5 1 255\n"), limits: small) }
                == .sizeExceedsLimit(width: 5, height: 1, maxWidth: 4, maxHeight: 4))
    }

    @Test func errorsAreOneLine() {
        let errors: [FrameIOError] = [
            .wrongMagic(format: "pnm", found: "\u{1}x"), .truncatedHeader(format: "y4m", frameIndex: 3),
            .truncatedFrame(format: "y4m", frameIndex: 2, bytesRead: 5, bytesExpected: 9),
            .invalidHeader(format: "pnm", frameIndex: 0, reason: "x"), .sizeExceedsLimit(width: 1, height: 2, maxWidth: 3, maxHeight: 4),
            .unknownChroma("421"), .missingFrameMarker(frameIndex: 1, found: "abc"), .brokenPipe,
            .system(operation: "read", errno: 5), .invalidArgument("bad"),
        ]
        for e in errors { #expect(!e.description.contains("\n") && !e.description.isEmpty) }
    }

    @Test func sniffing() throws {
        #expect(try InputFormat.sniff(ByteSource(bytes: bytes("YUV4MPEG2 W1 H1\n"))) == .y4m)
        #expect(try InputFormat.sniff(ByteSource(bytes: bytes("P6\n1 1\n255\n"))) == .pnm)
        #expect(try InputFormat.sniff(ByteSource(bytes: bytes("\nP3 1 1 1 0 0 0"))) == .pnm)
        #expect(thrownError { _ = try InputFormat.sniff(ByteSource(bytes: [0xFF, 0xD8, 0xFF])) } != nil)
        #expect(thrownError { _ = try InputFormat.sniff(ByteSource(bytes: [])) } != nil)
        // Sniffing consumes nothing.
        let source = ByteSource(bytes: bytes("P6 1 1 255\n") + [1, 2, 3])
        _ = try InputFormat.sniff(source)
        #expect(try PNMReader(source: source).next()?.pixels == [1, 2, 3])
    }
}
