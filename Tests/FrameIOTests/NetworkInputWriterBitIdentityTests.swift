import Testing
@testable import FrameIO
import PoseCore
import TestSupport

/// The optimized ``NetworkInputWriter`` against ``ReferenceNetworkInputWriter``, float bit for float bit.
@Suite struct NetworkInputWriterBitIdentityTests {
    /// Random bytes, with some rows and columns pinned to 0 and 255 so clamping is exercised.
    static func randomFrame(width: Int, height: Int, chroma: Y4MChroma, seed: UInt64) -> YUVFrame {
        var frame = YUVFrame(format: YUVFormat(width: width, height: height, chroma: chroma))
        var generator = SeededGenerator(seed: seed)
        for i in frame.data.indices {
            let r = generator.next()
            switch r % 8 {
            case 0: frame.data[i] = 0
            case 1: frame.data[i] = 255
            default: frame.data[i] = UInt8(truncatingIfNeeded: r >> 8)
            }
        }
        return frame
    }

    static func mismatches(_ ours: [Float], _ reference: [Float]) -> (count: Int, first: Int?) {
        var count = 0, first: Int?
        for i in reference.indices where ours[i].bitPattern != reference[i].bitPattern {
            count += 1
            if first == nil { first = i }
        }
        return (count, first)
    }

    static let chromas: [Y4MChroma] = [.c420jpeg, .c420mpeg2, .c420paldv, .c422, .c444, .mono]
    static let sources: [(Int, Int)] = [(640, 480), (641, 359), (33, 17), (100, 300), (7, 5)]
    static let sizes = [257, 353, 513, 33]

    /// Checks one writer (serial and parallel, two frames each so scratch reuse is covered).
    static func check(width: Int, height: Int, size: Int, geometry: InputPlacement.Fit, chroma: Y4MChroma,
                      conversion: YUVToRGB.Conversion = .bt601Limited, scaling: InputScaling = .minusOneToOne) throws {
        let writer = try NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size, geometry: geometry,
                                            chroma: chroma, conversion: conversion, scaling: scaling)
        for seed: UInt64 in [1, 2] {
            let frame = randomFrame(width: width, height: height, chroma: chroma, seed: seed &* UInt64(width * 7919 + height))
            let reference = ReferenceNetworkInputWriter.write(frame, with: writer)
            for parallel in [false, true] {
                writer.parallel = parallel
                var ours = [Float](repeating: .nan, count: writer.outputCount)
                ours.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
                let (count, first) = mismatches(ours, reference)
                #expect(count == 0, """
                    \(chroma) \(width)x\(height)→\(size) \(geometry) parallel \(parallel): \(count) floats differ, \
                    first at \(first ?? -1): \(first.map { ours[$0] } ?? 0) vs \(first.map { reference[$0] } ?? 0)
                    """)
            }
        }
    }

    @Test(arguments: chromas)
    func yuvMatchesReferenceBitwise(_ chroma: Y4MChroma) throws {
        for (width, height) in Self.sources {
            for size in Self.sizes {
                for geometry in [InputPlacement.Fit.letterbox, .stretch] {
                    try Self.check(width: width, height: height, size: size, geometry: geometry, chroma: chroma)
                }
            }
        }
    }

    @Test(arguments: chromas)
    func fullHDToLargeInputMatchesReferenceBitwise(_ chroma: Y4MChroma) throws {
        for geometry in [InputPlacement.Fit.letterbox, .stretch] {
            try Self.check(width: 1920, height: 1080, size: 513, geometry: geometry, chroma: chroma)
        }
    }

    /// Other matrices, full range, and a zero-bias scaling (where a −0 would show).
    @Test(arguments: chromas)
    func otherConversionsAndScalingsMatchReferenceBitwise(_ chroma: Y4MChroma) throws {
        let conversion = YUVToRGB.Conversion(matrix: .bt709, range: .full)
        let scaling = InputScaling(scale: 1, bias: [0, 0, 0])
        for geometry in [InputPlacement.Fit.letterbox, .stretch] {
            try Self.check(width: 641, height: 359, size: 257, geometry: geometry, chroma: chroma, conversion: conversion)
            try Self.check(width: 100, height: 300, size: 353, geometry: geometry, chroma: chroma, scaling: scaling)
            try Self.check(width: 33, height: 17, size: 33, geometry: geometry, chroma: chroma, conversion: conversion, scaling: scaling)
        }
    }

    @Test(arguments: [(640, 480, 257), (641, 359, 353), (33, 17, 513), (100, 300, 33), (7, 5, 33)])
    func rgbMatchesReferenceBitwise(_ width: Int, _ height: Int, _ size: Int) throws {
        var generator = SeededGenerator(seed: UInt64(width * 31 + height))
        let pixels = (0..<(width * height * 3)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
        let image = RGBImage(width: width, height: height, pixels: pixels)
        for geometry in [InputPlacement.Fit.letterbox, .stretch] {
            let writer = try NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: size, geometry: geometry)
            let reference = ReferenceNetworkInputWriter.write(image, with: writer)
            for parallel in [false, true] {
                writer.parallel = parallel
                var ours = [Float](repeating: .nan, count: writer.outputCount)
                ours.withUnsafeMutableBufferPointer { writer.write(image, into: $0) }
                let (count, first) = Self.mismatches(ours, reference)
                #expect(count == 0, "rgb \(width)x\(height)→\(size) \(geometry) parallel \(parallel): \(count) differ, first \(first ?? -1)")
            }
        }
    }
}
