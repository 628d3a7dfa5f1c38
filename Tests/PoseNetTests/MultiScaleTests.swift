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
