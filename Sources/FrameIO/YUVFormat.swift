/// Chroma subsampling and sample depth of a Y'CbCr frame, as named by Y4M `C` tags.
///
/// | tag | planes | chroma plane size | chroma siting |
/// |---|---|---|---|
/// | `420jpeg`, `420` | Y Cb Cr | ⌈W/2⌉×⌈H/2⌉ | centered between luma samples |
/// | `420mpeg2` | Y Cb Cr | ⌈W/2⌉×⌈H/2⌉ | co-sited with even luma columns, vertically centered (ffmpeg's "left") |
/// | `420paldv` | Y Cb Cr | ⌈W/2⌉×⌈H/2⌉ | co-sited with the top-left luma sample |
/// | `411` | Y Cb Cr | ⌈W/4⌉×H | co-sited with every 4th luma column |
/// | `422` | Y Cb Cr | ⌈W/2⌉×H | co-sited with even luma columns |
/// | `444`, `444alpha` | Y Cb Cr (A) | W×H | — |
/// | `mono` | Y | — | — |
///
/// ffmpeg's deeper variants (`420p10`, `422p12`, `444p16`, `mono16`, …) store every sample as a
/// little-endian 16-bit word holding `bitDepth` significant bits.
public struct Y4MChroma: Sendable, Equatable, Hashable, CustomStringConvertible {
    public enum Subsampling: Sendable, Equatable, Hashable {
        case s420, s411, s422, s444, mono
    }
    /// Where a 4:2:0 chroma sample sits relative to the luma grid.
    public enum Siting: Sendable, Equatable, Hashable {
        /// Centerd in each 2×2 block (JPEG, the `420jpeg` tag).
        case center
        /// Horizontally on the even luma column, vertically centered (MPEG-2, H.264 default).
        case left
        /// On the top-left luma sample of each 2×2 block (PAL DV).
        case topLeft
    }

    public var subsampling: Subsampling
    public var siting: Siting
    /// Significant bits per sample: 8 (one byte) or 9…16 (two bytes, little-endian).
    public var bitDepth: Int
    /// `444alpha`: a fourth, full-size alpha plane follows Cr (read, then ignored).
    public var hasAlpha: Bool

    public init(subsampling: Subsampling, siting: Siting = .center, bitDepth: Int = 8, hasAlpha: Bool = false) {
        self.subsampling = subsampling
        self.siting = siting
        self.bitDepth = bitDepth
        self.hasAlpha = hasAlpha
    }

    public static let c420jpeg = Y4MChroma(subsampling: .s420, siting: .center)
    public static let c420mpeg2 = Y4MChroma(subsampling: .s420, siting: .left)
    public static let c420paldv = Y4MChroma(subsampling: .s420, siting: .topLeft)
    public static let c422 = Y4MChroma(subsampling: .s422, siting: .left)
    public static let c444 = Y4MChroma(subsampling: .s444)
    public static let mono = Y4MChroma(subsampling: .mono)

    /// Parses a `C` tag value (without the `C`); nil if unknown.
    public init?(tag: String) {
        switch tag {
        case "420jpeg", "420": self = .c420jpeg
        case "420mpeg2": self = .c420mpeg2
        case "420paldv": self = .c420paldv
        case "411": self = Y4MChroma(subsampling: .s411, siting: .left)
        case "422": self = .c422
        case "444": self = .c444
        case "444alpha": self = Y4MChroma(subsampling: .s444, hasAlpha: true)
        case "mono": self = .mono
        default:
            // ffmpeg's deep formats: 420p10, 422p12, 444p16, mono10, …
            let families: [(String, Y4MChroma)] = [("420p", .c420jpeg), ("422p", .c422), ("444p", .c444), ("mono", .mono)]
            guard let (prefix, base) = families.first(where: { tag.hasPrefix($0.0) }),
                  let depth = Int(tag.dropFirst(prefix.count)), (9...16).contains(depth) else { return nil }
            self = base
            bitDepth = depth
        }
    }

    /// The Y4M tag for this format (`420jpeg`, `420mpeg2`, `422p10`, …).
    public var tag: String {
        let family: String
        switch subsampling {
        case .s420:
            if bitDepth > 8 { family = "420p" } else {
                switch siting {
                case .center: return "420jpeg"
                case .left: return "420mpeg2"
                case .topLeft: return "420paldv"
                }
            }
        case .s411: return "411"
        case .s422: family = bitDepth > 8 ? "422p" : "422"
        case .s444: if hasAlpha { return "444alpha" }; family = bitDepth > 8 ? "444p" : "444"
        case .mono: family = "mono"
        }
        return bitDepth > 8 ? family + String(bitDepth) : family
    }

    public var description: String { tag }

    /// Horizontal and vertical chroma decimation factors.
    var decimation: (x: Int, y: Int) {
        switch subsampling {
        case .s420: return (2, 2)
        case .s411: return (4, 1)
        case .s422: return (2, 1)
        case .s444, .mono: return (1, 1)
        }
    }
}

/// The plane layout of one planar Y'CbCr frame: Y, then Cb, then Cr (then alpha), each row-major
/// with no padding; 1 byte per sample at 8 bits, 2 (little-endian) above.
public struct YUVFormat: Sendable, Equatable {
    public var width: Int
    public var height: Int
    public var chroma: Y4MChroma

    public init(width: Int, height: Int, chroma: Y4MChroma) {
        self.width = width
        self.height = height
        self.chroma = chroma
    }

    public var bytesPerSample: Int { chroma.bitDepth > 8 ? 2 : 1 }
    public var planeCount: Int { chroma.subsampling == .mono ? 1 : (chroma.hasAlpha ? 4 : 3) }

    /// Samples across and down plane `plane` (0 = Y, 1 = Cb, 2 = Cr, 3 = alpha).
    public func planeSize(_ plane: Int) -> (width: Int, height: Int) {
        if plane == 0 || plane == 3 { return (width, height) }
        let (dx, dy) = chroma.decimation
        return ((width + dx - 1) / dx, (height + dy - 1) / dy)
    }

    /// Byte offset of plane `plane` inside a frame.
    public func planeOffset(_ plane: Int) -> Int {
        var offset = 0
        for p in 0..<plane {
            let (w, h) = planeSize(p)
            offset += w * h * bytesPerSample
        }
        return offset
    }

    /// Bytes of pixel data per frame.
    public var frameByteCount: Int { planeOffset(planeCount) }
}

/// One planar Y'CbCr frame from a Y4M stream, with its position in the stream.
///
/// A `Y4MReader` refills the same value frame after frame (`read(into:)`), so its `data` storage
/// is allocated once.
public struct YUVFrame: Sendable {
    public internal(set) var format: YUVFormat
    /// Planes back to back as described by `format`.
    public var data: [UInt8]
    /// Zero-based index in the stream.
    public internal(set) var index: Int = 0
    /// Presentation time in seconds (`index / frameRate`), nil when the stream's rate is unknown.
    public internal(set) var timestamp: Double?
    /// Parameters from the `FRAME` line (rarely used; empty for ffmpeg output).
    public internal(set) var parameters: [String] = []

    /// A zero-filled frame of the given format.
    public init(format: YUVFormat) {
        self.format = format
        data = [UInt8](repeating: 0, count: format.frameByteCount)
    }

    /// An empty placeholder for `Y4MReader.read(into:)`.
    public init() {
        format = YUVFormat(width: 0, height: 0, chroma: .c420jpeg)
        data = []
    }

    public var width: Int { format.width }
    public var height: Int { format.height }
}
