import Foundation
import PoseCore
#if canImport(Glibc)
import Glibc
#endif

extension RGBImage {
    /// Reads the image at `path`: a PNM file (`.ppm`, `.pgm`, `.pnm`) directly, any other image
    /// (JPEG, PNG, BMP, GIF, WebP, TIFF) through ffmpeg (``MediaReader``); for a video, its first
    /// frame. `"-"` reads standard input, recognized from its first bytes as a file is.
    ///
    ///     let photo = try RGBImage(contentsOfFile: "photo.jpg")
    ///
    /// - Throws: a ``FrameIOError`` naming `path` when the file cannot be opened, is not a regular
    ///   file (a FIFO or a device is refused at once, never waited on: read streams with
    ///   ``MediaReader``), is broken, holds no image, or needs ffmpeg and ffmpeg is not on `PATH`.
    public init(contentsOfFile path: String, limits: FrameLimits = .default) throws {
        if path != "-" { try Self.requireRegularFile(path) }
        let reader = try MediaReader(path: path, limits: limits)
        defer { reader.close() }
        guard let frame = try reader.next() else {
            throw FrameIOError.file(path: path, .invalidArgument("holds no image"))
        }
        self = frame.rgb()
    }

    /// Throws unless `path` is a regular file, checked on a descriptor opened with `O_NONBLOCK`
    /// (opening a FIFO without a writer otherwise waits, and no signal ends that wait).
    static func requireRegularFile(_ path: String) throws {
        let fd = FileName.withPath(path) { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK) }
        guard fd >= 0 else { throw FrameIOError.naming(path, FrameIOError.system(operation: "open \(path)", errno: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FrameIOError.naming(path, FrameIOError.system(operation: "stat \(path)", errno: errno)) }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FrameIOError.file(path: path, .invalidArgument("is \(RegularFile.kind(of: info.st_mode)), not an image file; read streams with MediaReader or MediaFrames"))
        }
    }
}
