extension RGBImage {
    /// Reads the first image of a PNM file (`.ppm`, `.pgm`, `.pnm`) or the first frame of a Y4M
    /// file; `"-"` reads standard input. Other formats (JPEG, PNG) are not read here: convert them
    /// first, e.g. `ffmpeg -i photo.jpg photo.ppm`.
    ///
    /// - Throws: ``FrameIOError`` when the file cannot be opened, is not PNM or Y4M, is broken,
    ///   or holds no image.
    public init(contentsOfFile path: String, limits: FrameLimits = .default) throws {
        let reader = try FrameReader(path: path, limits: limits)
        guard try reader.advance() else {
            throw FrameIOError.invalidArgument("\(path) holds no image")
        }
        self = reader.rgb()
    }
}
