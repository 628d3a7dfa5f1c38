import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes person masks to a path, as its extension asks:
///
/// | path | written as |
/// |---|---|
/// | `.pgm` | binary PGM (`P5`), 8-bit grey, one picture after another for video (as `ffmpeg -f image2pipe -c:v pgm` reads them) |
/// | `.png` | an 8-bit grey PNG (one picture; ffmpeg) |
/// | `.npy` | the probabilities themselves, float32, shape `[height, width]` for one image, `[frames, height, width]` for video |
/// | `.jpg`, `.mp4`, `.mkv`, `.webm`, `.mov`, `.y4m`, ... | grey frames through ``MediaWriter`` (JPEG and video are YCbCr: the grey is the luma) |
///
/// Grey outputs take 8-bit levels (255 = person), `.npy` the probabilities (``takesProbabilities``).
///
///     let masks = try MaskWriter(path: "mask.png")
///     try OutputFile.committing([masks.output]) { try masks.write(levels, width: w, height: h, of: frame) }
public final class MaskWriter {
    /// The output as given (named in errors).
    public let path: String
    private let pgm: ByteSink?
    private let media: MediaWriter?
    private let npy: NumPyMaskFile?
    private var size: (width: Int, height: Int)?
    /// The file written: commit it to keep what was written.
    public let output: OutputFile

    /// Whether ``write(probabilities:width:height:of:)`` is the call this output takes (`.npy`):
    /// it keeps the probabilities; every other output takes grey levels.
    public var takesProbabilities: Bool { npy != nil }

    private static func pathExtension(_ path: String) -> String { URL(fileURLWithPath: path).pathExtension.lowercased() }

    /// Throws a `FrameIOError` naming `path` unless masks can be written there.
    public static func check(path: String) throws {
        switch pathExtension(path) {
        case "pgm": return
        case "npy": try NumPyMaskFile.check(path: path)
        default: try MediaWriter.check(path: path)
        }
    }

    public init(path: String) throws {
        self.path = path
        switch Self.pathExtension(path) {
        case "pgm":
            output = try OutputFile(path: path)
            pgm = output.sink
            media = nil
            npy = nil
        case "npy":
            try NumPyMaskFile.check(path: path)
            output = try OutputFile(path: path)
            npy = try NumPyMaskFile(output: output)
            pgm = nil
            media = nil
        default:
            let writer = try MediaWriter(path: path, grey: true)
            media = writer
            output = writer.output
            pgm = nil
            npy = nil
        }
    }

    /// Appends one mask of `frame`: `levels` holds `width · height` grey levels, row-major.
    public func write(_ levels: [UInt8], width: Int, height: Int, of frame: VideoFrame) throws {
        precondition(levels.count == width * height, "MaskWriter: \(levels.count) levels for \(width)×\(height)")
        try checkSize(width: width, height: height)
        if let pgm {
            try pgm.write("P5\n\(width) \(height)\n255\n")
            try pgm.write(levels)
            try pgm.endRecord()
        } else if let media {
            var pixels = [UInt8](repeating: 0, count: width * height * 3)
            pixels.withUnsafeMutableBufferPointer { out in
                for (i, level) in levels.enumerated() { out[3 * i] = level; out[3 * i + 1] = level; out[3 * i + 2] = level }
            }
            try media.write(RGBImage(width: width, height: height, pixels: pixels), of: frame)
        } else if let npy {
            try npy.append(levels.map { Float($0) / 255 }, width: width, height: height, isStillImage: frame.isStillImage)
        }
    }

    /// Appends one mask of `frame` as `width · height` probabilities (0...1), row-major, kept as
    /// they are: for an output that ``takesProbabilities`` (`.npy`); the others take grey levels.
    public func write(probabilities: [Float], width: Int, height: Int, of frame: VideoFrame) throws {
        precondition(probabilities.count == width * height, "MaskWriter: \(probabilities.count) values for \(width)×\(height)")
        guard let npy else {
            throw FrameIOError.file(path: path, .invalidArgument("this mask output takes grey levels; only .npy keeps probabilities"))
        }
        try checkSize(width: width, height: height)
        try npy.append(probabilities, width: width, height: height, isStillImage: frame.isStillImage)
    }

    private func checkSize(width: Int, height: Int) throws {
        if let size, size != (width, height) {
            throw FrameIOError.file(path: path, .invalidArgument("a mask is \(width)x\(height) but the masks written are \(size.width)x\(size.height)"))
        }
        size = (width, height)
    }
}

/// Masks as one NumPy `.npy` array of float32 (little-endian, C order): a header sized for any
/// shape is written first and filled in when the output is committed (`[height, width]` for one
/// still image, `[frames, height, width]` otherwise), so the frames stream to the temporary file.
final class NumPyMaskFile {
    private let output: OutputFile
    private var frames = 0
    private var size = (width: 0, height: 0)
    private var allStill = true
    /// The header's length, magic included: room for any shape, a multiple of 64 as NumPy aligns it.
    static let headerLength = 128

    /// `.npy` needs a regular file: its header is completed in place at the end.
    static func check(path: String) throws {
        var info = stat()
        if OutputFile.standardStream(named: path) != nil || (stat(path, &info) == 0 && (info.st_mode & S_IFMT) != S_IFREG) {
            throw FrameIOError.file(path: path, .invalidArgument("a .npy mask is written to a regular file (its header is completed at the end)"))
        }
    }

    init(output: OutputFile) throws {
        self.output = output
        try output.sink.write([UInt8](repeating: 0x20, count: Self.headerLength))   // filled in at the commit
        output.beforeCommit = { [unowned self] in try self.finish() }
    }

    func append(_ values: [Float], width: Int, height: Int, isStillImage: Bool) throws {
        size = (width, height)
        frames += 1
        allStill = allStill && isStillImage
        try values.withUnsafeBytes { try output.sink.write(Array($0)) }   // little-endian hosts (x86-64, aarch64)
        try output.sink.endRecord()
    }

    /// The header for the shape written.
    static func header(shape: [Int]) -> [UInt8] {
        let shapeText = shape.count == 1 ? "(\(shape[0]),)" : "(" + shape.map(String.init).joined(separator: ", ") + ")"
        var dictionary = Array("{'descr': '<f4', 'fortran_order': False, 'shape': \(shapeText), }".utf8)
        let prefix: [UInt8] = [0x93] + Array("NUMPY".utf8) + [1, 0]
        let length = headerLength - prefix.count - 2
        dictionary += [UInt8](repeating: 0x20, count: max(0, length - dictionary.count - 1)) + [0x0A]
        return prefix + [UInt8(length & 0xFF), UInt8(length >> 8)] + dictionary
    }

    private func finish() throws {
        let shape = frames == 1 && allStill ? [size.height, size.width] : [frames, size.height, size.width]
        let header = Self.header(shape: shape)
        precondition(header.count == Self.headerLength, "NumPyMaskFile: header of \(header.count) bytes")
        try output.sink.flush()   // everything after the placeholder is in the file before the header goes in
        guard let temporary = output.temporaryPath else { return }
        let fd = open(temporary, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw FrameIOError.writeFailed(name: output.path, errno: errno) }
        defer { close(fd) }
        let written = header.withUnsafeBytes { pwrite(fd, $0.baseAddress!, $0.count, 0) }
        guard written == header.count else { throw FrameIOError.writeFailed(name: output.path, errno: written < 0 ? errno : EIO) }
    }
}
