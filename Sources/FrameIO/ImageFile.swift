extension RGBImage {
    /// Reads the image at `path`: a PNM file (`.ppm`, `.pgm`, `.pnm`) directly, any other image
    /// (JPEG, PNG, BMP, GIF, WebP, TIFF) through ffmpeg (``MediaReader``); for a video, its first
    /// frame. `"-"` reads standard input, which must hold PNM or Y4M.
    ///
    ///     let photo = try RGBImage(contentsOfFile: "photo.jpg")
    ///
    /// - Throws: a ``FrameIOError`` naming `path` when the file cannot be opened, is broken, holds
    ///   no image, or needs ffmpeg and ffmpeg is not on `PATH`.
    public init(contentsOfFile path: String, limits: FrameLimits = .default) throws {
        let reader = try MediaReader(path: path, limits: limits)
        defer { reader.close() }
        guard let frame = try reader.next() else {
            throw FrameIOError.file(path: path, .invalidArgument("holds no image"))
        }
        self = frame.rgb()
    }
}
