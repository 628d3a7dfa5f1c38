import FrameIO

/// libFuzzer entry point: parse `data` as a PNM stream (every image in it) through `FrameReader`,
/// write each image back as P6 and re-read it (must give the same pixels), and resize it into a
/// network input (values must stay in −1…1).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPNM(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // Small limits keep each run fast; the limit check itself is part of what is fuzzed.
    let limits = FrameLimits(maxWidth: 512, maxHeight: 512, maxHeaderBytes: 4096)
    // Straight to the PNM reader, so inputs that do not sniff as PNM still reach its error paths.
    let reader = PNMReader(source: ByteSource(bytes: bytes), limits: limits)
    var image = RGBImage()
    do {
        while try reader.read(into: &image) {
            let encoded = PPMWriter.encode(image)
            guard let again = try PNMReader(source: ByteSource(bytes: encoded)).next(), again == image else {
                fatalError("P6 round trip changed the image")
            }
        }
    } catch is FrameIOError {
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    // The same bytes through the sniffing frame loop and the network input path.
    do {
        let input = try FrameReader(source: ByteSource(bytes: bytes), limits: limits)
        var tensor = [Float](repeating: .nan, count: 9 * 9 * 3)
        while try input.advance() {
            _ = tensor.withUnsafeMutableBufferPointer { input.writeNetworkInput(size: 9, into: $0) }
            precondition(tensor.allSatisfy { $0 >= -1 && $0 <= 1 }, "network input out of range")
        }
    } catch is FrameIOError {
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
