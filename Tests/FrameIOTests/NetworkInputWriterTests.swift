import PoseCore
import Foundation
import Testing
import TestSupport
@testable import FrameIO

@Suite struct NetworkInputWriterTests {
    /// Network floats back to bytes: (v + 1)·255/2.
    static func toBytes(_ input: [Float]) -> [UInt8] {
        input.map { UInt8(min(max((($0 + 1) * 255 / 2).rounded(), 0), 255)) }
    }

    static func write(_ image: RGBImage, size: Int, geometry: InputPlacement.Fit) throws -> [Float] {
        let writer = try NetworkInputWriter(sourceWidth: image.width, sourceHeight: image.height, size: size, geometry: geometry)
        var input = [Float](repeating: .nan, count: writer.outputCount)
        input.withUnsafeMutableBufferPointer { writer.write(image, into: $0) }
        return input
    }

    /// The reference pipeline's own model inputs (Pillow: pad to square, BILINEAR resize), stored in shared/reference.
    @Test(arguments: [("coco_000000196141", 513), ("coco_000000000785", 257), ("coco_000000197388", 353)])
    func matchesPillowReferenceInputs(_ name: String, _ size: Int) throws {
        let image = try readAllPNM(sharedDirectory.appendingPathComponent("media/images/\(name).ppm").path)[0]
        let caseDir = try FileManager.default.contentsOfDirectory(atPath: sharedDirectory.appendingPathComponent("reference").path)
            .first { $0.contains(name) && $0.contains("__\(size)_") }!
        let reference = try readAllPNM(sharedDirectory.appendingPathComponent("reference/\(caseDir)/input.ppm").path)[0]
        let ours = RGBImage(width: size, height: size, pixels: Self.toBytes(try Self.write(image, size: size, geometry: .letterbox)))
        let (mean, worst) = difference(ours, reference)
        #expect(worst <= 1 && mean < 0.01, "\(name)@\(size): mean \(mean) max \(worst)")
    }

    /// A direct, unoptimized 2-D Pillow BILINEAR resize (per output pixel, per axis weights in Double).
    static func naiveResize(_ image: RGBImage, virtualWidth: Int, virtualHeight: Int, outWidth: Int, outHeight: Int) -> [Double] {
        func weights(_ inSize: Int, _ outSize: Int, _ o: Int) -> [(Int, Double)] {
            let scale = Double(inSize) / Double(outSize), fs = max(scale, 1), center = (Double(o) + 0.5) * scale
            var list: [(Int, Double)] = []
            for x in 0..<inSize {
                let w = max(0, 1 - abs((Double(x) + 0.5 - center) / fs))
                if w > 0 { list.append((x, w)) }
            }
            let total = list.reduce(0) { $0 + $1.1 }
            return list.map { ($0.0, $0.1 / total) }
        }
        var out = [Double](repeating: 0, count: outWidth * outHeight * 3)
        for oy in 0..<outHeight {
            let wy = weights(virtualHeight, outHeight, oy)
            for ox in 0..<outWidth {
                let wx = weights(virtualWidth, outWidth, ox)
                for c in 0..<3 {
                    var acc = 0.0
                    for (y, a) in wy where y < image.height {
                        for (x, b) in wx where x < image.width { acc += a * b * Double(image[x, y].channel(c)) }
                    }
                    out[(oy * outWidth + ox) * 3 + c] = acc
                }
            }
        }
        return out
    }

    static func syntheticImage(width: Int, height: Int) -> RGBImage {
        var image = RGBImage(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                image[x, y] = RGBColor(UInt8((x * 255) / max(width - 1, 1)), UInt8((y * 37 + x * 11) % 256), UInt8(((x ^ y) * 7) % 256))
            }
        }
        return image
    }

    @Test(arguments: [(37, 23, 17, InputPlacement.Fit.letterbox), (23, 37, 17, .letterbox), (37, 23, 17, .stretch),
                      (9, 6, 21, .letterbox), (9, 6, 21, .stretch), (64, 48, 33, .stretch)])
    func matchesNaiveResize(_ width: Int, _ height: Int, _ size: Int, _ geometry: InputPlacement.Fit) throws {
        let image = Self.syntheticImage(width: width, height: height)
        let side = max(width, height)
        let reference = geometry == .letterbox
            ? Self.naiveResize(image, virtualWidth: side, virtualHeight: side, outWidth: size, outHeight: size)
            : Self.naiveResize(image, virtualWidth: width, virtualHeight: height, outWidth: size, outHeight: size)
        let ours = try Self.write(image, size: size, geometry: geometry)
        var worst = 0.0
        for i in 0..<reference.count { worst = max(worst, absoluteError(Double((ours[i] + 1) * 255 / 2), reference[i])) }
        // Two 8-bit roundings (after each pass, as Pillow does) bound the difference by ~1 level.
        #expect(worst <= 1.01, "\(width)x\(height)→\(size) \(geometry): max \(worst)")
    }

    @Test func letterboxPaddingIsBlackAndGeometryIsReported() throws {
        let image = RGBImage(width: 40, height: 20, pixels: [UInt8](repeating: 255, count: 40 * 20 * 3))
        let writer = try NetworkInputWriter(sourceWidth: 40, sourceHeight: 20, size: 21)
        #expect(writer.scaleX == 21 / 40 && writer.scaleY == 21 / 40)
        var input = [Float](repeating: .nan, count: writer.outputCount)
        input.withUnsafeMutableBufferPointer { writer.write(image, into: $0) }
        // Rows well inside the image are white, rows past it are exactly black (−1).
        for x in 0..<21 { #expect(input[(2 * 21 + x) * 3] == 1) }
        for y in 12..<21 { for x in 0..<21 { #expect(input[(y * 21 + x) * 3 + 1] == -1) } }
        #expect(!input.contains { $0.isNaN })
        let stretch = try NetworkInputWriter(sourceWidth: 40, sourceHeight: 20, size: 21, geometry: .stretch)
        #expect(stretch.scaleX == 21 / 40 && stretch.scaleY == 21 / 20)
    }

    /// The fused Y'CbCr path equals converting to RGB first and resizing that, to within rounding.
    @Test(arguments: [("yuv420p", InputPlacement.Fit.letterbox, 257), ("yuv420p", .stretch, 257),
                      ("yuv420p", .letterbox, 513), ("yuvj420p", .letterbox, 257), ("yuv422p", .letterbox, 257),
                      ("yuv444p", .stretch, 129), ("gray", .letterbox, 257)])
    func fusedPathMatchesConvertThenResize(_ pixFmt: String, _ geometry: InputPlacement.Fit, _ size: Int) throws {
        try withTemporaryDirectory { dir in
            let y4m = dir.appendingPathComponent("f.y4m").path
            try ffmpeg(["-ss", "3", "-i", testClip, "-frames:v", "1", "-vf", "scale=480:270", "-pix_fmt", pixFmt, "-f", "yuv4mpegpipe", y4m])
            let reader = try Y4MReader(source: try ByteSource(path: y4m))
            let frame = try reader.next()!
            let conversion = reader.defaultConversion
            let writer = try NetworkInputWriter(sourceWidth: 480, sourceHeight: 270, size: size, geometry: geometry,
                                                chroma: frame.format.chroma, conversion: conversion)
            var fused = [Float](repeating: .nan, count: writer.outputCount)
            var viaRGB = fused
            fused.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
            let rgb = frame.rgbImage(conversion: conversion)
            viaRGB.withUnsafeMutableBufferPointer { writer.write(rgb, into: $0) }
            var total = 0.0, worst: Float = 0
            for i in 0..<fused.count {
                let d = abs(fused[i] - viaRGB[i]) * 255 / 2
                total += Double(d)
                worst = max(worst, d)
            }
            let mean = total / Double(fused.count)
            #expect(mean < 0.5 && worst < 12, "\(pixFmt) \(geometry) \(size): mean \(mean) max \(worst) levels")
            // Parallel split gives the same floats.
            writer.parallel = true
            var twice = [Float](repeating: .nan, count: writer.outputCount)
            twice.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
            #expect(twice == fused)
        }
    }

    @Test func rejectsDeepFormatsAndEmptySizes() {
        #expect(thrownError { _ = try NetworkInputWriter(sourceWidth: 4, sourceHeight: 4, size: 5, chroma: Y4MChroma(tag: "420p10")!) } != nil)
        #expect(thrownError { _ = try NetworkInputWriter(sourceWidth: 0, sourceHeight: 4, size: 5) } != nil)
    }
}

extension RGBColor {
    func channel(_ c: Int) -> UInt8 { c == 0 ? r : (c == 1 ? g : b) }
}
