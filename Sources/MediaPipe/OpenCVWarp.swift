import Foundation

/// OpenCV's `warpPerspective(INTER_LINEAR)` on an 8-bit RGB image, emulated bit for bit, as
/// MediaPipe's `ImageToTensorCalculator` (OpenCV converter) runs it.
///
/// Steps, each as OpenCV 4 computes it (MediaPipe's README §4.1 of the reference data):
/// - corners of the rotated rectangle from `RotatedRect::points` in float32, the angle passed as
///   float degrees;
/// - `getPerspectiveTransform` in double (8×8 system, float products of the corner coordinates,
///   LU with partial pivoting), then its inverse by the 3×3 cofactor formula of `cv::invert`;
/// - per output pixel the source position in 1/32 pixel, `rint` (round half to even) of
///   `(M⁻¹₀₁·y + M⁻¹₀₂ + M⁻¹₀₀·x) · 32 / w′`;
/// - bilinear weights in 1/32768 (`(32 − a)(32 − b)·32` …), `(Σ + 16384) >> 15`;
/// - border constant 0 (taps outside read 0) or replicate (taps clamped to the edge).
/// Plain float bilinear sampling moves BlazePose's landmarks by up to 15 px on these models
/// (the model is sensitive to the uint8 rounding), hence the emulation.
enum OpenCVWarp {
    /// Tap positions outside the image read 0 (`BORDER_CONSTANT`) or the nearest edge pixel (`BORDER_REPLICATE`).
    enum Border { case zero, replicate }

    /// `cv::RotatedRect(center, size, angleDegrees).points()`: bottom-left, top-left, top-right,
    /// bottom-right in float32, as OpenCV computes them.
    static func boxPoints(centerX: Float, centerY: Float, width: Float, height: Float, angleDegrees: Float) -> [SIMD2<Float>] {
        let angle = Double(angleDegrees) * Double.pi / 180
        let b = Float(cos(angle)) * 0.5
        let a = Float(sin(angle)) * 0.5
        let p0 = SIMD2<Float>(centerX - a * height - b * width, centerY + b * height - a * width)
        let p1 = SIMD2<Float>(centerX + a * height - b * width, centerY - b * height - a * width)
        let p2 = SIMD2<Float>(2 * centerX - p0.x, 2 * centerY - p0.y)
        let p3 = SIMD2<Float>(2 * centerX - p1.x, 2 * centerY - p1.y)
        return [p0, p1, p2, p3]
    }

    /// `cv::getPerspectiveTransform(source, destination)` (DECOMP_LU): the row-major 3×3 matrix
    /// mapping the four source points to the four destination points; nil if they are degenerate.
    static func perspectiveTransform(from source: [SIMD2<Float>], to destination: [SIMD2<Float>]) -> [Double]? {
        precondition(source.count == 4 && destination.count == 4)
        var a = [Double](repeating: 0, count: 64)
        var b = [Double](repeating: 0, count: 8)
        for i in 0..<4 {
            let s = source[i], d = destination[i]
            a[i * 8 + 0] = Double(s.x); a[(i + 4) * 8 + 3] = Double(s.x)
            a[i * 8 + 1] = Double(s.y); a[(i + 4) * 8 + 4] = Double(s.y)
            a[i * 8 + 2] = 1; a[(i + 4) * 8 + 5] = 1
            // OpenCV multiplies the float coordinates in float before storing the product as double.
            a[i * 8 + 6] = Double(-s.x * d.x)
            a[i * 8 + 7] = Double(-s.y * d.x)
            a[(i + 4) * 8 + 6] = Double(-s.x * d.y)
            a[(i + 4) * 8 + 7] = Double(-s.y * d.y)
            b[i] = Double(d.x)
            b[i + 4] = Double(d.y)
        }
        guard solveLU(&a, &b, size: 8) else { return nil }
        return b + [1]
    }

    /// OpenCV's `LUImpl`: Gaussian elimination with partial pivoting, solving `a · x = b` in place
    /// (`b` becomes `x`); false if a pivot is below `DBL_EPSILON · 100`.
    static func solveLU(_ a: inout [Double], _ b: inout [Double], size m: Int) -> Bool {
        let epsilon = Double.ulpOfOne * 100
        for i in 0..<m {
            var k = i
            for j in (i + 1)..<max(i + 1, m) where abs(a[j * m + i]) > abs(a[k * m + i]) { k = j }
            if abs(a[k * m + i]) < epsilon { return false }
            if k != i {
                for j in i..<m { a.swapAt(i * m + j, k * m + j) }
                b.swapAt(i, k)
            }
            let d = -1 / a[i * m + i]
            for j in (i + 1)..<max(i + 1, m) {
                let alpha = a[j * m + i] * d
                for c in (i + 1)..<max(i + 1, m) { a[j * m + c] += alpha * a[i * m + c] }
                b[j] += alpha * b[i]
            }
            a[i * m + i] = -d
        }
        for i in stride(from: m - 1, through: 0, by: -1) {
            var s = b[i]
            for c in (i + 1)..<max(i + 1, m) { s -= a[i * m + c] * b[c] }
            b[i] = s * a[i * m + i]
        }
        return true
    }

    /// `cv::invert` of a 3×3 double matrix (DECOMP_LU takes the cofactor formula for n ≤ 3); nil if singular.
    static func inverse3x3(_ m: [Double]) -> [Double]? {
        func s(_ r: Int, _ c: Int) -> Double { m[r * 3 + c] }
        var d = s(0, 0) * (s(1, 1) * s(2, 2) - s(1, 2) * s(2, 1))
            - s(0, 1) * (s(1, 0) * s(2, 2) - s(1, 2) * s(2, 0))
            + s(0, 2) * (s(1, 0) * s(2, 1) - s(1, 1) * s(2, 0))
        guard d != 0, d.isFinite else { return nil }
        d = 1 / d
        return [
            (s(1, 1) * s(2, 2) - s(1, 2) * s(2, 1)) * d,
            (s(0, 2) * s(2, 1) - s(0, 1) * s(2, 2)) * d,
            (s(0, 1) * s(1, 2) - s(0, 2) * s(1, 1)) * d,
            (s(1, 2) * s(2, 0) - s(1, 0) * s(2, 2)) * d,
            (s(0, 0) * s(2, 2) - s(0, 2) * s(2, 0)) * d,
            (s(0, 2) * s(1, 0) - s(0, 0) * s(1, 2)) * d,
            (s(1, 0) * s(2, 1) - s(1, 1) * s(2, 0)) * d,
            (s(0, 1) * s(2, 0) - s(0, 0) * s(2, 1)) * d,
            (s(0, 0) * s(1, 1) - s(0, 1) * s(1, 0)) * d,
        ]
    }

    /// Samples `rows` of the `outputWidth`-wide output from `pixels` (`width × height` RGB, HWC)
    /// through `inverse` (output → source, row-major 3×3), writing `Float(v) · scale + offset`
    /// for each uint8 result `v` into `output` (HWC, 3 channels, contiguous rows).
    static func warp(pixels: UnsafeBufferPointer<UInt8>, width: Int, height: Int, inverse m: [Double],
                     border: Border, outputWidth: Int, rows: Range<Int>,
                     scale: Float, offset: Float, output: UnsafeMutablePointer<Float>) {
        let m00 = m[0], m01 = m[1], m02 = m[2], m10 = m[3], m11 = m[4], m12 = m[5], m20 = m[6], m21 = m[7], m22 = m[8]
        let base = pixels.baseAddress!
        let stride = width * 3
        // Positions saturate as OpenCV's do (int, then short after >> 5), so absurd regions stay defined.
        let limit = Double(Int32.max)
        for y in rows {
            let yd = Double(y)
            let x0Row = m01 * yd + m02, y0Row = m11 * yd + m12, w0Row = m21 * yd + m22
            var out = output + y * outputWidth * 3
            for x in 0..<outputWidth {
                let xd = Double(x)
                var w = w0Row + m20 * xd
                w = w != 0 ? 32 / w : 0
                let fx = min(max((x0Row + m00 * xd) * w, -limit - 1), limit)
                let fy = min(max((y0Row + m10 * xd) * w, -limit - 1), limit)
                let ix = Int(fx.rounded(.toNearestOrEven)), iy = Int(fy.rounded(.toNearestOrEven))
                let sx = min(max(ix >> 5, Int(Int16.min)), Int(Int16.max))
                let sy = min(max(iy >> 5, Int(Int16.min)), Int(Int16.max))
                let ax = Int32(ix & 31), ay = Int32(iy & 31)
                let w00 = (32 - ax) * (32 - ay) * 32, w01 = ax * (32 - ay) * 32
                let w10 = (32 - ax) * ay * 32, w11 = ax * ay * 32
                if sx >= 0 && sy >= 0 && sx + 1 < width && sy + 1 < height {
                    let p = base + sy * stride + sx * 3
                    for c in 0..<3 {
                        let sum = Int32(p[c]) * w00 + Int32(p[c + 3]) * w01 + Int32(p[stride + c]) * w10 + Int32(p[stride + c + 3]) * w11
                        out[c] = Float((sum + 16384) >> 15) * scale + offset
                    }
                } else if border == .zero && (sx >= width || sx + 1 < 0 || sy >= height || sy + 1 < 0) {
                    out[0] = offset; out[1] = offset; out[2] = offset
                } else {
                    // One tap or more outside: constant reads 0 there, replicate clamps.
                    let x0 = sx, x1 = sx + 1, y0 = sy, y1 = sy + 1
                    let xInside0 = x0 >= 0 && x0 < width, xInside1 = x1 >= 0 && x1 < width
                    let yInside0 = y0 >= 0 && y0 < height, yInside1 = y1 >= 0 && y1 < height
                    let cx0 = min(max(x0, 0), width - 1), cx1 = min(max(x1, 0), width - 1)
                    let cy0 = min(max(y0, 0), height - 1), cy1 = min(max(y1, 0), height - 1)
                    let replicate = border == .replicate
                    let use00 = replicate || (xInside0 && yInside0), use01 = replicate || (xInside1 && yInside0)
                    let use10 = replicate || (xInside0 && yInside1), use11 = replicate || (xInside1 && yInside1)
                    for c in 0..<3 {
                        let v00 = use00 ? Int32(base[cy0 * stride + cx0 * 3 + c]) : 0
                        let v01 = use01 ? Int32(base[cy0 * stride + cx1 * 3 + c]) : 0
                        let v10 = use10 ? Int32(base[cy1 * stride + cx0 * 3 + c]) : 0
                        let v11 = use11 ? Int32(base[cy1 * stride + cx1 * 3 + c]) : 0
                        let sum = v00 * w00 + v01 * w01 + v10 * w10 + v11 * w11
                        out[c] = Float((sum + 16384) >> 15) * scale + offset
                    }
                }
                out += 3
            }
        }
    }
}
