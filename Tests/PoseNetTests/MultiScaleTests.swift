import Detectors
import Foundation
import FrameIO
import Tensor
import Testing
@testable import PoseNet
import PoseCore
import FrameIO

struct MultiScaleTests {
    /// Bilinear resampling reproduces a linear function exactly: the align-corners geometry
    /// puts target pixel `o` at source `o · (S − 1) / (s − 1)`, checked against the formula.
    @Test func alignCornersResamplingMatchesTheGeometry() throws {
        let source = try Tensor(zeros: [17, 17, 2])
        source.withUnsafeMutableBufferPointer { p in
            for y in 0..<17 { for x in 0..<17 { p[(y * 17 + x) * 2] = Float(3 * x + 5 * y); p[(y * 17 + x) * 2 + 1] = Float(x * 0 + 1) } }
        }
        let target = try Tensor(zeros: [21, 21, 2])
        MultiScalePoseDetector.resampleAlignCorners(source, into: target, scale: 2)
        target.withUnsafeBufferPointer { p in
            for y in 0..<21 {
                for x in 0..<21 {
                    let sx = Float(x) * 16 / 20, sy = Float(y) * 16 / 20
                    #expect(abs(p[(y * 21 + x) * 2] - 2 * (3 * sx + 5 * sy)) < 1e-4)
                    #expect(abs(p[(y * 21 + x) * 2 + 1] - 2) < 1e-6)
                }
            }
        }
    }

    /// The sizes an upscale limit leaves, worked out by hand: the largest `stride·k + 1` within
    /// `long side × limit`, never above a configured size, each once, never under 33.
    @Test func anUpscaleLimitCapsTheSizes() throws {
        let weights = try PoseNetWeights(bundle: WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075")))
        func detector(_ sizes: [Int], stride: Int, upscale: Double?) throws -> MultiScalePoseDetector {
            try MultiScalePoseDetector(models: sizes.map { try PoseNetModel(weights: weights, inputSize: $0, outputStride: stride, threads: 1) },
                                       decoding: PoseDecoding(), maximumUpscale: upscale)
        }
        let native = try detector([769], stride: 16, upscale: 1)
        #expect(native.inputSizes(imageSize: (215, 180)) == [209])        // 13 · 16 + 1 ≤ 215
        #expect(native.inputSizes(imageSize: (180, 225)) == [225])        // 225 = 14 · 16 + 1 exactly
        #expect(native.inputSizes(imageSize: (2048, 2048)) == [769])
        #expect(native.inputSizes(imageSize: (20, 10)) == [33])
        #expect(native.inputSizes(imageSize: nil) == [769])
        let preset = try detector([769, 513], stride: 8, upscale: 1.5)
        #expect(preset.inputSizes(imageSize: (215, 180)) == [321])       // 322.5 → 40 · 8 + 1, both sizes capped to one
        #expect(preset.inputSizes(imageSize: (400, 300)) == [593, 513])  // 600 → 74 · 8 + 1
        #expect(preset.inputSizes(imageSize: (640, 425)) == [769, 513])
        #expect(try detector([769, 513], stride: 8, upscale: nil).inputSizes(imageSize: (215, 180)) == [769, 513])
        #expect(throws: PoseNetError.self) { try detector([769], stride: 16, upscale: 0) }
    }

    /// A real 215×180 photo (two people) through a 769 input limited to its native size runs at
    /// 209, resampled from the 769 input: it must find what a plain 209 network finds on the
    /// photo, in the photo's pixels.
    @Test func aCappedPhotoMatchesAPlainNetworkAtTheCappedSize() throws {
        let image = try RGBImage(contentsOfFile: SharedData.root.appendingPathComponent("media/images-val/mhp_10112.ppm").path)
        #expect(image.width == 215 && image.height == 180)
        let weights = try PoseNetWeights(bundle: WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075")))
        let decoding = PoseDecoding(parameters: MultiPoseParameters(minPoseScore: 0.05))
        let plain = PoseDetector(model: try PoseNetModel(weights: weights, inputSize: 209, outputStride: 16, threads: 2), decoding: decoding)
        let expected = try plain.poses(in: image)

        let capped = try MultiScalePoseDetector(models: [try PoseNetModel(weights: weights, inputSize: 769, outputStride: 16, threads: 2)],
                                                decoding: decoding, maximumUpscale: 1)
        let writer = try NetworkInputWriter(sourceWidth: image.width, sourceHeight: image.height, size: 769, chroma: .c444)
        capped.input.withUnsafeMutableBufferPointer { writer.write(image, into: $0) }
        let found = try capped.detect(mappingTo: ImageTransform(scaleX: 1 / Double(writer.scaleX), scaleY: 1 / Double(writer.scaleY)),
                                      imageSize: (image.width, image.height))
        #expect(expected.count >= 2 && found.count >= 2, "\(expected.count) and \(found.count) poses")
        // The two people, matched by nose: their confident keypoints about a pixel apart (the
        // 769 input is a resampled copy, not the photo itself), none more than 5; a wrong mapping
        // back to the photo would put them tens of pixels away.
        for pose in expected.prefix(2) {
            let twin = try #require(found.min { $0[.nose].position.squaredDistance(to: pose[.nose].position) < $1[.nose].position.squaredDistance(to: pose[.nose].position) })
            let distances = zip(pose.keypoints, twin.keypoints).filter { $0.0.score > 0.5 }.map { $0.1.position.squaredDistance(to: $0.0.position).squareRoot() }
            #expect(distances.count >= 8 && distances.reduce(0, +) / Double(distances.count) < 1.5 && distances.max()! < 5, "\(distances)")
            #expect(abs(twin.score - pose.score) < 0.05, "pose score \(twin.score) against \(pose.score)")
        }
    }
}

/// The padding band of a smaller scale's input, which the detector derives from the largest one's.
struct MultiScalePaddingTests {
    /// Against a brute-force scan of the resampled input: the rows (columns) whose values all
    /// equal the padding color.
    @Test(arguments: [(PaddingBand.Axis.rows, 194..<257, 193), (.columns, 145..<257, 193), (.rows, 120..<257, 225),
                      (.columns, 250..<257, 129), (.rows, 256..<257, 129)])
    func resampledBandIsTheResampledPadding(_ axis: PaddingBand.Axis, _ range: Range<Int>, _ target: Int) throws {
        let band = PaddingBand(axis: axis, range: range)
        let source = try Tensor(zeros: [257, 257, 3]), resampled = try Tensor(zeros: [target, target, 3])
        RepeatedBandTests.fill(source, rows: axis == .rows ? range : 0..<0, columns: axis == .columns ? range : 0..<0)
        MultiScalePoseDetector.resampleAlignCorners(source, into: resampled, scale: 1)
        let values = resampled.scalars, color: [Float] = [-1, 0.25, 0.5]
        func isPadding(_ y: Int, _ x: Int) -> Bool { (0..<3).allSatisfy { values[(y * target + x) * 3 + $0] == color[$0] } }
        let found = (0..<target).filter { i in (0..<target).allSatisfy { axis == .rows ? isPadding(i, $0) : isPadding($0, i) } }
        let derived = MultiScalePoseDetector.band(band, resampledFrom: 257, to: target)
        #expect(derived.map { Array($0.range) } ?? [] == found && (derived?.axis ?? axis) == axis, "\(band) → \(String(describing: derived)), padding \(found)")
    }

    /// Two scales on a letterboxed frame, with the writer's band and without: the same poses.
    @Test(arguments: [(640, 480), (360, 640)])
    func detectingWithTheBandGivesTheSamePoses(_ width: Int, _ height: Int) throws {
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let weights = try PoseNetWeights(bundle: bundle)
        let image = try RGBImage(contentsOfFile: OneCallDetectorTests.imagePath)
        // The photo's skier (x 306...475) at the top left of the frame, black below and right.
        var frame = RGBImage(width: width, height: height)
        let left = width < image.width ? 220 : 0
        for y in 0..<min(height, image.height) { for x in 0..<min(width, image.width - left) { frame[x, y] = image[left + x, y] } }
        let writer = try NetworkInputWriter(sourceWidth: width, sourceHeight: height, size: 257)
        for flip in [false, true] {
            let detector = try MultiScalePoseDetector(models: [257, 193].map {
                try PoseNetModel(weights: weights, inputSize: $0, outputStride: 16, threads: 2)
            }, decoding: PoseDecoding(flipAveraging: flip))
            detector.input.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
            let full = try detector.detect(mappingTo: writer.placement.inputToImage)
            let skipping = try detector.detect(mappingTo: writer.placement.inputToImage, padding: writer.paddingBand)
            #expect(!full.isEmpty)
            if GEMMKernel.preferred == .packed { #expect(skipping == full, "\(width)x\(height) flip \(flip)") }
        }
    }
}
