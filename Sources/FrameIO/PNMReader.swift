/// Reads Netpbm images (`P6` color, `P5` gray, and their ASCII forms `P3`, `P2`) from a stream.
///
/// - Max values 1…65535: 16-bit samples are big-endian; every sample is scaled to 0…255
///   (`(v * 255 + maxval / 2) / maxval`), and gray images are expanded to RGB.
/// - Comments (`#` to end of line) are accepted wherever header whitespace is.
/// - Several images may follow each other in one stream, as `ffmpeg -f image2pipe -c:v ppm -`
///   writes them; whitespace between images is tolerated.
///
/// Frame loop, reusing one image buffer:
///
///     let reader = PNMReader(source: try ByteSource(path: "-"))
///     var image = RGBImage()
///     while try reader.read(into: &image) { ... }
public final class PNMReader {
    /// The PNM variants.
    public enum Kind: UInt8, Sendable {
        case asciiGray = 2, asciiRGB = 3, rawGray = 5, rawRGB = 6
        var isGray: Bool { self == .asciiGray || self == .rawGray }
        var isASCII: Bool { self == .asciiGray || self == .asciiRGB }
    }

    /// Header of the image read last.
    public struct Header: Sendable, Equatable {
        public var kind: Kind
        public var width: Int
        public var height: Int
        public var maxValue: Int
    }

    public let source: ByteSource
    public let limits: FrameLimits
    /// Images delivered so far; also the index of the next image.
    public private(set) var imageIndex = 0
    /// Header of the last image read.
    public private(set) var header: Header?
    private var scratch: [UInt8] = []       // one row of raw samples
    private var scale: [UInt8] = []          // maxval ≤ 255: sample → 8-bit
    private var scaleMax = -1

    public init(source: ByteSource, limits: FrameLimits = .default) {
        self.source = source
        self.limits = limits
    }

    /// Reads the next image into `image` (resizing it if needed).
    /// Returns false at a clean end of input (only whitespace left).
    public func read(into image: inout RGBImage) throws -> Bool {
        guard let header = try readHeader() else { return false }
        self.header = header
        // The pixels are allocated as they arrive (a lying header must not reserve gigabytes).
        image.beginArriving(width: header.width, height: header.height)
        do {
            if header.kind.isASCII { try readASCII(header, into: &image) } else { try readRaw(header, into: &image) }
        } catch {
            image.clear()
            throw error
        }
        imageIndex += 1
        return true
    }

    /// Reads the next image into a new buffer, or nil at the end of input.
    public func next() throws -> RGBImage? {
        var image = RGBImage()
        return try read(into: &image) ? image : nil
    }

    // MARK: header

    private func readHeader() throws -> Header? {
        // Skip whitespace between images; a clean end here is the end of the stream.
        while let b = try source.peekByte(), isSpace(b) { _ = try source.readByte() }
        guard let p = try source.readByte() else { return nil }
        guard let digit = try source.readByte() else {
            throw FrameIOError.truncatedHeader(format: "pnm", frameIndex: imageIndex)
        }
        guard p == UInt8(ascii: "P"), let kind = Kind(rawValue: digit &- UInt8(ascii: "0")) else {
            let found = FrameIOError.excerpt([p, digit] + (try source.peek(6)))
            if p == UInt8(ascii: "P"), [UInt8(ascii: "1"), UInt8(ascii: "4"), UInt8(ascii: "7")].contains(digit) {
                throw FrameIOError.invalidHeader(format: "pnm", frameIndex: imageIndex,
                                                 reason: "P\(UnicodeScalar(digit)) images are not supported (only P2, P3, P5, P6)")
            }
            throw FrameIOError.wrongMagic(format: "pnm", found: found)
        }
        let width = try readHeaderNumber("width")
        let height = try readHeaderNumber("height")
        // Refuse before allocating anything for the pixels.
        try limits.check(width: width, height: height)
        let maxValue = try readHeaderNumber("maxval")
        guard maxValue <= 65535 else {
            throw FrameIOError.invalidHeader(format: "pnm", frameIndex: imageIndex, reason: "maxval \(maxValue) above 65535")
        }
        // Exactly one whitespace byte ends the header (a comment may sit before it).
        guard var b = try source.readByte() else {
            throw FrameIOError.truncatedHeader(format: "pnm", frameIndex: imageIndex)
        }
        if b == UInt8(ascii: "#") {
            try skipComment()
            b = 0x0A
        }
        guard isSpace(b) else {
            throw FrameIOError.invalidHeader(format: "pnm", frameIndex: imageIndex,
                                             reason: "expected whitespace after maxval, found '\(FrameIOError.excerpt([b]))'")
        }
        return Header(kind: kind, width: width, height: height, maxValue: maxValue)
    }

    private func isSpace(_ b: UInt8) -> Bool { b == 0x20 || (b >= 0x09 && b <= 0x0D) }

    private func skipComment() throws {
        while let b = try source.readByte() { if b == 0x0A || b == 0x0D { return } }
    }

    /// Skips whitespace and comments, then reads a positive decimal number.
    private func readHeaderNumber(_ field: String) throws -> Int {
        guard let value = try readNumber(field, frameIsData: false) else {
            throw FrameIOError.truncatedHeader(format: "pnm", frameIndex: imageIndex)
        }
        if value == 0 {
            throw FrameIOError.invalidHeader(format: "pnm", frameIndex: imageIndex, reason: "\(field) is 0")
        }
        return value
    }

    /// Skips whitespace and comments, then reads a decimal number; nil at end of input.
    private func readNumber(_ field: String, frameIsData: Bool) throws -> Int? {
        var b: UInt8
        while true {
            guard let c = try source.readByte() else { return nil }
            if c == UInt8(ascii: "#") { try skipComment(); continue }
            if isSpace(c) { continue }
            b = c
            break
        }
        guard b >= 0x30 && b <= 0x39 else {
            let what = b == UInt8(ascii: "-") ? "negative" : "not a number ('\(FrameIOError.excerpt([b] + (try source.peek(7))))')"
            throw FrameIOError.invalidHeader(format: "pnm", frameIndex: imageIndex, reason: "\(field) is \(what)")
        }
        var value = Int(b - 0x30)
        while let c = try source.peekByte(), c >= 0x30 && c <= 0x39 {
            _ = try source.readByte()
            value = value * 10 + Int(c - 0x30)
            if value > 1 << 40 {
                throw FrameIOError.invalidHeader(format: "pnm", frameIndex: imageIndex, reason: "\(field) is too large")
            }
        }
        return value
    }

    // MARK: pixels

    private func scaleTable(_ maxValue: Int) -> [UInt8] {
        if scaleMax != maxValue {
            scale = (0...maxValue).map { UInt8(($0 * 255 + maxValue / 2) / maxValue) }
            scaleMax = maxValue
        }
        return scale
    }

    private func readRaw(_ h: Header, into image: inout RGBImage) throws {
        let channels = h.kind.isGray ? 1 : 3
        let bytesPerSample = h.maxValue > 255 ? 2 : 1
        let rowBytes = h.width * channels * bytesPerSample
        let total = rowBytes * h.height
        if channels == 3 && bytesPerSample == 1 {
            // Common case: straight into the image.
            let n = try source.readGrowing(into: &image.pixels, count: total)
            if n < total { throw truncated(read: n, expected: total) }
            if h.maxValue != 255 {
                let table = scaleTable(h.maxValue)
                try image.pixels.withUnsafeMutableBufferPointer { px in
                    for i in 0..<px.count {
                        let v = Int(px[i])
                        if v > h.maxValue { throw sampleTooLarge(v, h.maxValue) }
                        px[i] = table[v]
                    }
                }
            }
            return
        }
        if scratch.count < rowBytes { scratch = [UInt8](repeating: 0, count: rowBytes) }
        let table = h.maxValue <= 255 ? scaleTable(h.maxValue) : []
        let maxValue = h.maxValue
        let width = h.width
        for y in 0..<h.height {
            let n = try scratch.withUnsafeMutableBytes { try source.read(into: UnsafeMutableRawBufferPointer(rebasing: $0[0..<rowBytes])) }
            if n < rowBytes { throw truncated(read: y * rowBytes + n, expected: total) }
            image.reserveArrived(bytes: (y + 1) * width * 3)
            try scratch.withUnsafeBufferPointer { raw in
                try image.pixels.withUnsafeMutableBufferPointer { px in
                    let row = y * width * 3
                    for i in 0..<(width * channels) {
                        let v = bytesPerSample == 2 ? Int(raw[2 * i]) << 8 | Int(raw[2 * i + 1]) : Int(raw[i])
                        if v > maxValue { throw sampleTooLarge(v, maxValue) }
                        let s = bytesPerSample == 2 ? UInt8((v * 255 + maxValue / 2) / maxValue) : table[v]
                        if channels == 1 {
                            px[row + 3 * i] = s; px[row + 3 * i + 1] = s; px[row + 3 * i + 2] = s
                        } else {
                            px[row + i] = s
                        }
                    }
                }
            }
        }
    }

    private func readASCII(_ h: Header, into image: inout RGBImage) throws {
        let channels = h.kind.isGray ? 1 : 3
        let samples = h.width * h.height * channels
        let maxValue = h.maxValue
        for i in 0..<samples {
            guard let v = try readNumber("sample", frameIsData: true) else {
                throw truncated(read: i, expected: samples)
            }
            if v > maxValue { throw sampleTooLarge(v, maxValue) }
            let s = UInt8((v * 255 + maxValue / 2) / maxValue)
            image.reserveArrived(bytes: (i / channels + 1) * 3)
            if channels == 1 {
                image.pixels[3 * i] = s; image.pixels[3 * i + 1] = s; image.pixels[3 * i + 2] = s
            } else {
                image.pixels[i] = s
            }
        }
    }

    private func truncated(read: Int, expected: Int) -> FrameIOError {
        .truncatedFrame(format: "pnm", frameIndex: imageIndex, bytesRead: read, bytesExpected: expected)
    }

    private func sampleTooLarge(_ v: Int, _ maxValue: Int) -> FrameIOError {
        .invalidHeader(format: "pnm", frameIndex: imageIndex, reason: "sample \(v) above maxval \(maxValue)")
    }
}
