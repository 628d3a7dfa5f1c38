import FrameIO

/// libFuzzer entry point: parse `data` as a PNM stream (every image in it), then write each image
/// back as P6 and re-read it, which must give the same pixels.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNM(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Small limits keep each run fast; the limit check itself is part of what is fuzzed.
    let limits = FrameLimits(maxWidth: 1024, maxHeight: 1024, maxHeaderBytes: 4096)
    let source = ByteSource(bytes: bytes)
    _ = try? InputFormat.sniff(source)
    let reader = PNMReader(source: source, limits: limits)
    var image = RGBImage()
    do {
        while try reader.read(into: &image) {
            let encoded = PPMWriter.encode(image)
            guard let again = try PNMReader(source: ByteSource(bytes: encoded)).next(), again == image else {
                fatalError("P6 round trip changed the image")
            }
        }
    } catch is FrameIOError {
        // Expected for malformed input: the point is that it is an error, not a crash or hang.
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
