import Tensor
import Testing
@testable import PoseNet
import PoseCore

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
