/// OpenCV's `warpAffine(WARP_INVERSE_MAP | INTER_LINEAR, BORDER_CONSTANT 0)` on a one-channel
/// float32 image, emulated as OpenCV 4 computes it (MediaPipe's `WarpAffineCalculator` through
/// its OpenCV runner, which brings BlazePose's mask back from the crop to the image):
/// - the 2×3 matrix in double; per row `X0 = round((M01·y + M02)·1024) + 16`, per column
///   `round(M00·x·1024)` (round half to even), summed and shifted right by 5: source positions in
///   1/32 pixel;
/// - integer tap `X >> 5`, fraction `X & 31`; bilinear weights `(1 − a/32)(1 − b/32)` etc. in float
///   (exact), the four products summed left to right in float;
/// - taps outside the source read 0; a pixel whose 2×2 taps are all outside is 0.
/// A plain float bilinear warp differs by up to 0.02 on BlazePose's mask edges.
enum OpenCVWarpAffine {
    /// Writes `rows` of the `outputWidth`-wide output (row-major float) sampled from `source`
    /// (`width × height`, row-major) at `matrix · (x, y, 1)` (`matrix`: row-major 2×3, output → source).
    static func warp(source: UnsafeBufferPointer<Float>, width: Int, height: Int, matrix m: [Double],
                     outputWidth: Int, rows: Range<Int>, output: UnsafeMutablePointer<Float>) {
        precondition(m.count == 6 && source.count == width * height)
        let scale = 1024.0, roundDelta = 16
        // Positions saturate as OpenCV's do (int, then short after the shift), so absurd matrices stay defined.
        func fixed(_ v: Double) -> Int {
            guard v.isFinite else { return v.isNaN ? 0 : (v > 0 ? Int(Int32.max) : Int(Int32.min)) }
            return Int(min(max(v, Double(Int32.min)), Double(Int32.max)).rounded(.toNearestOrEven))
        }
        let xDeltas = (0..<outputWidth).map { fixed(m[0] * Double($0) * scale) }
        let yDeltas = (0..<outputWidth).map { fixed(m[3] * Double($0) * scale) }
        let base = source.baseAddress!
        let lastX = width - 1, lastY = height - 1
        for y in rows {
            let x0Row = fixed((m[1] * Double(y) + m[2]) * scale) + roundDelta
            let y0Row = fixed((m[4] * Double(y) + m[5]) * scale) + roundDelta
            let out = output + y * outputWidth
            for x in 0..<outputWidth {
                let fx = (x0Row + xDeltas[x]) >> 5, fy = (y0Row + yDeltas[x]) >> 5
                let sx = min(max(fx >> 5, Int(Int16.min)), Int(Int16.max))
                let sy = min(max(fy >> 5, Int(Int16.min)), Int(Int16.max))
                let ax = Float(fx & 31) * (1 / 32), ay = Float(fy & 31) * (1 / 32)
                let w00 = (1 - ay) * (1 - ax), w01 = (1 - ay) * ax, w10 = ay * (1 - ax), w11 = ay * ax
                if sx >= 0 && sy >= 0 && sx < lastX && sy < lastY {
                    let p = base + sy * width + sx
                    var sum = p[0] * w00
                    sum += p[1] * w01
                    sum += p[width] * w10
                    sum += p[width + 1] * w11
                    out[x] = sum
                } else if sx >= width || sx + 1 < 0 || sy >= height || sy + 1 < 0 {
                    out[x] = 0
                } else {
                    func tap(_ tx: Int, _ ty: Int) -> Float {
                        tx >= 0 && tx < width && ty >= 0 && ty < height ? base[ty * width + tx] : 0
                    }
                    var sum = tap(sx, sy) * w00
                    sum += tap(sx + 1, sy) * w01
                    sum += tap(sx, sy + 1) * w10
                    sum += tap(sx + 1, sy + 1) * w11
                    out[x] = sum
                }
            }
        }
    }
}
