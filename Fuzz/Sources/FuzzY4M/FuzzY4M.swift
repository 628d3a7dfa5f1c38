import FrameIO

/// libFuzzer entry point: parse `data` as a Y4M stream, convert every frame to RGB and into a
/// network input buffer (fused path), and draw on it, exercising the header parser, the frame loop,
/// the colour paths and the resize tables for whatever sizes and chroma formats the fuzzer invents.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzY4M(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let limits = FrameLimits(maxWidth: 512, maxHeight: 512, maxHeaderBytes: 4096)
    let source = ByteSource(bytes: bytes)
    _ = try? InputFormat.sniff(source)
    do {
        let reader = try Y4MReader(source: source, limits: limits)
        let header = reader.header
        let converter = YUVToRGB(format: header.format, conversion: reader.defaultConversion)
        // Network side from the header so odd sizes and strides get exercised too.
        let side = 1 + (header.width * 7 + header.height * 3) % 40
        let writer = try? NetworkInputWriter(sourceWidth: header.width, sourceHeight: header.height, size: side,
                                             geometry: header.width % 2 == 0 ? .letterbox : .stretch,
                                             chroma: header.chroma, conversion: reader.defaultConversion)
        var input = [Float](repeating: .nan, count: side * side * 3)
        var frame = YUVFrame()
        var image = RGBImage()
        while try reader.read(into: &frame) {
            converter.convert(frame, into: &image)
            precondition(image.width == frame.width && image.height == frame.height)
            if let writer {
                input.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
                precondition(input.allSatisfy { $0 >= -1 && $0 <= 1 }, "network input out of range")
            }
            image.drawLine(x0: 0, y0: 0, x1: Float(image.width), y1: Float(image.height), thickness: 3, color: .red)
            image.fillCircle(centerX: Float(image.width) / 2, centerY: 1, radius: 2.5, color: .green)
            image.drawText("x\(frame.index)", x: 1, y: 1, scale: 1, color: .white, background: .black)
        }
    } catch is FrameIOError {
        // Expected for malformed input: the point is that it is an error, not a crash or hang.
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
