import Foundation
import Testing
@testable import FrameIO
import PoseCore

@Suite struct FrameReaderTests {
    @Test func y4mLoopMatchesTheParts() throws {
        try withTemporaryDirectory { dir in
            let path = dir.appendingPathComponent("c.y4m").path
            try ffmpeg(["-ss", "2", "-i", testClip, "-frames:v", "3", "-vf", "scale=200:112", "-pix_fmt", "yuv420p", "-f", "yuv4mpegpipe", path])
            let input = try FrameReader(path: path, matrix: .bt709)
            input.parallel = true
            #expect(input.format == .y4m && input.frameRate == Ratio(30, 1))
            #expect(input.conversion == YUVToRGB.Conversion(matrix: .bt709, range: .limited))
            let (_, frames) = try readAllY4M(path)
            var tensor = [Float](repeating: 0, count: 65 * 65 * 3)
            var rgb = RGBImage()
            var n = 0
            while try input.advance() {
                #expect(input.frameIndex == n && input.width == 200 && input.height == 112)
                #expect(abs(input.timestamp! - Double(n) / 30) < 1e-12)
                let mapping = tensor.withUnsafeMutableBufferPointer { input.writeNetworkInput(size: 65, into: $0) }
                #expect(mapping.scaleX == 65 / 200 && mapping.scaleY == 65 / 200)
                // Same floats as planning the writer by hand.
                let writer = try NetworkInputWriter(sourceWidth: 200, sourceHeight: 112, size: 65, chroma: .c420mpeg2, conversion: input.conversion)
                #expect(mapping.padding == writer.paddingBand && mapping.padding?.axis == .rows)
                var expected = [Float](repeating: 0, count: writer.outputCount)
                expected.withUnsafeMutableBufferPointer { writer.write(frames[n], into: $0) }
                #expect(tensor == expected)
                input.rgb(into: &rgb)
                #expect(rgb == frames[n].rgbImage(conversion: input.conversion))
                n += 1
            }
            #expect(n == 3)
        }
    }

    @Test func pnmStreamThroughAPipe() throws {
        var fds: [Int32] = [0, 0]
        #expect(pipe(&fds) == 0)
        let a = RGBImage(width: 3, height: 2, pixels: (0..<18).map { UInt8($0 * 10) })
        let b = RGBImage(width: 2, height: 2, pixels: [UInt8](repeating: 255, count: 12))
        let writeEnd = fds[1]
        let writer = Thread {
            let sink = ByteSink(fileDescriptor: writeEnd, closeOnDeinit: true)
            let out = PPMWriter(sink: sink)
            try! out.write(a); try! out.write(b); try! out.flush()
        }
        writer.start()
        let input = try FrameReader(source: ByteSource(fileDescriptor: fds[0], closeOnDeinit: true))
        #expect(input.format == .pnm && input.frameRate == nil && input.y4mHeader == nil)
        var seen: [RGBImage] = []
        var tensor = [Float](repeating: 0, count: 5 * 5 * 3)
        while try input.advance() {
            seen.append(input.rgb())
            _ = tensor.withUnsafeMutableBufferPointer { input.writeNetworkInput(size: 5, geometry: .stretch, into: $0) }
            #expect(input.timestamp == nil)
        }
        #expect(seen == [a, b])
        #expect(tensor.allSatisfy { $0 == 1 })  // the last image is white
    }

    @Test func rejectsUnknownInput() {
        #expect(thrownError { _ = try FrameReader(source: ByteSource(bytes: bytes("\u{89}PNG\r\n"))) } != nil)
    }
}
