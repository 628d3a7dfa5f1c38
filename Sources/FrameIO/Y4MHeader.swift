import PoseCore

/// A positive or zero fraction as written in Y4M headers (`F30000:1001`, `A1:1`, `A0:0`).
public struct Ratio: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(_ numerator: Int, _ denominator: Int) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// `0:0` means "unknown" in Y4M.
    public var isUnknown: Bool { numerator == 0 || denominator == 0 }

    /// `0:0`: a frame rate the stream does not state.
    public static let unknown = Ratio(0, 0)

    /// PoseKit's one frame-rate fallback (PoseCore's `PoseStream.fallbackFrameRate`, a whole
    /// number of frames per second) as a Y4M rate: what a stream without a rate is timed at and
    /// what video written for it declares.
    public static let fallbackFrameRate = Ratio(Int(PoseStream.fallbackFrameRate), 1)
    public var value: Double? { isUnknown ? nil : Double(numerator) / Double(denominator) }
    public var description: String { "\(numerator):\(denominator)" }

    /// Parses `N:D` with non-negative decimal integers.
    init?(parsing text: Substring) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let n = Self.parseCount(parts[0]), let d = Self.parseCount(parts[1]) else { return nil }
        self.init(n, d)
    }

    /// A decimal count with at most 9 digits (keeps products of fields far from overflow).
    static func parseCount(_ s: Substring) -> Int? {
        guard !s.isEmpty, s.count <= 9, s.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(s)
    }
}

/// Y'CbCr → RGB matrix coefficients.
public enum ColorMatrix: Sendable, Equatable {
    /// ITU-R BT.601 (SD video; ffmpeg's default for untagged streams).
    case bt601
    /// ITU-R BT.709 (HD video).
    case bt709
}

/// Code-value range of Y'CbCr samples.
public enum ColorRange: Sendable, Equatable {
    /// Y' in 16…235, Cb/Cr in 16…240 (scaled by 2^(bits-8) for deeper samples). The video default.
    case limited
    /// Every code value used (JPEG, `XCOLORRANGE=FULL`).
    case full
}

/// The stream header of a YUV4MPEG2 stream: `YUV4MPEG2 W640 H360 F30000:1001 Ip A1:1 C420mpeg2 XYSCSS=420MPEG2`.
public struct Y4MStreamHeader: Sendable, Equatable {
    /// Interlacing (`I` parameter).
    public enum Interlacing: Character, Sendable, Equatable {
        case progressive = "p", topFieldFirst = "t", bottomFieldFirst = "b", mixed = "m"
    }

    public var width: Int
    public var height: Int
    /// Frames per second; `0:0` (``Ratio/unknown``) when the stream says it is unknown or has no
    /// `F` parameter: either way PoseKit times it at its one fallback, ``Ratio/fallbackFrameRate``.
    public var frameRate: Ratio
    public var interlacing: Interlacing
    /// Pixel aspect ratio; `0:0` = unknown.
    public var pixelAspect: Ratio
    public var chroma: Y4MChroma
    /// `X` parameters in stream order, without the leading `X` (e.g. `YSCSS=420MPEG2`, `COLORRANGE=LIMITED`).
    public var extensions: [String]

    public init(width: Int, height: Int, frameRate: Ratio = .fallbackFrameRate, interlacing: Interlacing = .progressive,
                pixelAspect: Ratio = Ratio(1, 1), chroma: Y4MChroma = .c420jpeg, extensions: [String] = []) {
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.interlacing = interlacing
        self.pixelAspect = pixelAspect
        self.chroma = chroma
        self.extensions = extensions
    }

    /// The range declared by `XCOLORRANGE=FULL|LIMITED`, nil if not declared.
    public var declaredRange: ColorRange? {
        for x in extensions {
            if x == "COLORRANGE=FULL" { return .full }
            if x == "COLORRANGE=LIMITED" { return .limited }
        }
        return nil
    }

    public var format: YUVFormat { YUVFormat(width: width, height: height, chroma: chroma) }

    /// The header line, including the final newline.
    public var line: String {
        var s = "YUV4MPEG2 W\(width) H\(height) F\(frameRate) I\(interlacing.rawValue) A\(pixelAspect) C\(chroma.tag)"
        for x in extensions { s += " X" + x }
        return s + "\n"
    }

    /// Parses the parameters after `YUV4MPEG2 ` (without the newline).
    static func parse(_ bytes: [UInt8], limits: FrameLimits) throws -> Y4MStreamHeader {
        func bad(_ reason: String) -> FrameIOError { .invalidHeader(format: "y4m", frameIndex: 0, reason: reason) }
        let text = String(decoding: bytes, as: UTF8.self)
        var width: Int?, height: Int?
        var header = Y4MStreamHeader(width: 0, height: 0, frameRate: .unknown)
        for token in text.split(separator: " ", omittingEmptySubsequences: true) {
            let value = token.dropFirst()
            switch token.first! {
            case "W", "H":
                guard let n = Ratio.parseCount(value), n > 0 else {
                    let what = value.first == "-" ? "negative" : (Ratio.parseCount(value) == 0 ? "zero" : "not a valid number")
                    throw bad("\(token.first! == "W" ? "width" : "height") '\(value.prefix(16))' is \(what)")
                }
                if token.first! == "W" { width = n } else { height = n }
            case "F":
                guard let r = Ratio(parsing: value) else { throw bad("frame rate '\(value.prefix(24))' is not N:D") }
                header.frameRate = r
            case "A":
                guard let r = Ratio(parsing: value) else { throw bad("pixel aspect '\(value.prefix(24))' is not N:D") }
                header.pixelAspect = r
            case "I":
                guard value.count == 1, let i = Interlacing(rawValue: value.first!) else {
                    throw bad("interlacing '\(value.prefix(16))' is not p, t, b or m")
                }
                header.interlacing = i
            case "C":
                guard let c = Y4MChroma(tag: String(value)) else { throw FrameIOError.unknownChroma(String(value.prefix(24))) }
                header.chroma = c
            case "X":
                header.extensions.append(String(value))
            default:
                // The spec lets readers ignore unknown parameters.
                break
            }
        }
        guard let w = width else { throw bad("missing W (width)") }
        guard let h = height else { throw bad("missing H (height)") }
        try limits.check(width: w, height: h)
        header.width = w
        header.height = h
        return header
    }
}
