import FrameIO

/// libFuzzer entry point: parse `data` as a Y4M stream and convert every frame to RGB and into a
/// network input buffer, exercising the header parser, the frame loop and the colour paths.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzY4M(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = FrameLimits(maxWidth: 1024, maxHeight: 1024, maxHeaderBytes: 4096)
    let source = ByteSource(bytes: bytes)
    _ = try? InputFormat.sniff(source)
    do {
        let reader = try Y4MReader(source: source, limits: limits)
        let converter = YUVToRGB(format: reader.header.format, conversion: reader.defaultConversion)
        var frame = YUVFrame()
        var image = RGBImage()
        while try reader.read(into: &frame) {
            converter.convert(frame, into: &image)
            precondition(image.width == frame.width && image.height == frame.height)
        }
    } catch is FrameIOError {
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
