@testable import FrameIO

/// The reference for ``NetworkInputWriter``'s bit-identity tests: a plain scalar copy of the
/// writer's original algorithm (horizontal pass over every source row, vertical pass per output
/// row, then padding share, color conversion and scaling), written for clarity, not speed.
///
/// It reads the writer's weight tables, coefficients and scaling, so it checks the arithmetic of
/// the optimized passes, not the tables. Each output is a sum over taps in ascending order starting
/// from 0, with no fused multiply-add; the optimized writer must reproduce every float bit for bit.
enum ReferenceNetworkInputWriter {
    /// `temp[y][o] = Σ_k w[o,k] · plane[y][first[o] + k]` over all taps (zero weights included).
    static func horizontal(_ plane: ArraySlice<UInt8>, width: Int, height: Int, table: ResampleWeights, stride: Int) -> [Float] {
        var temp = [Float](repeating: 0, count: height * stride)
        let start = plane.startIndex
        for y in 0..<height {
            for o in 0..<table.activeCount {
                var acc: Float = 0
                for k in 0..<table.taps {
                    acc += table.weights[o * table.taps + k] * Float(plane[start + y * width + Int(table.first[o]) + k])
                }
                temp[y * stride + o] = acc
            }
        }
        return temp
    }

    /// `acc[i] = Σ_k w[row,k] · temp[first[row] + k][i]`, skipping zero weights.
    static func vertical(_ temp: [Float], stride: Int, table: ResampleWeights, row: Int, count: Int) -> [Float] {
        var acc = [Float](repeating: 0, count: count)
        for k in 0..<table.taps {
            let w = table.weights[row * table.taps + k]
            if w == 0 { continue }
            for i in 0..<count { acc[i] += w * temp[(Int(table.first[row]) + k) * stride + i] }
        }
        return acc
    }

    static func scaled(_ v: Float, _ scale: Float, _ bias: Float) -> Float {
        min(max(v, 0), 255) * scale + bias
    }

    /// The writer's Y'CbCr output for `frame`, NHWC.
    static func write(_ frame: YUVFrame, with writer: NetworkInputWriter) -> [Float] {
        let size = writer.size, format = frame.format
        let (chromaWidth, chromaHeight) = format.planeSize(1)
        let mono = writer.chroma.subsampling == .mono
        let data = frame.data[...]
        let yT = horizontal(data, width: frame.width, height: frame.height, table: writer.columns, stride: size)
        var uT: [Float] = [], vT: [Float] = []
        if !mono {
            let u = data[format.planeOffset(1)..<format.planeOffset(2)]
            let v = data[format.planeOffset(2)..<format.planeOffset(3)]
            uT = horizontal(u, width: chromaWidth, height: chromaHeight, table: writer.chromaColumns, stride: size)
            vT = horizontal(v, width: chromaWidth, height: chromaHeight, table: writer.chromaColumns, stride: size)
        }
        let c = writer.coefficients, s = writer.scaling
        let bias = s.bias
        var out = [Float](repeating: 0, count: size * size * 3)
        for i in 0..<(size * size) { out[3 * i] = bias[0]; out[3 * i + 1] = bias[1]; out[3 * i + 2] = bias[2] }
        let activeX = writer.columns.activeCount
        for oy in 0..<writer.rows.activeCount {
            let accY = vertical(yT, stride: size, table: writer.rows, row: oy, count: activeX)
            let accU = mono ? [] : vertical(uT, stride: size, table: writer.chromaRows, row: oy, count: activeX)
            let accV = mono ? [] : vertical(vT, stride: size, table: writer.chromaRows, row: oy, count: activeX)
            let realY = writer.rows.realSum[oy]
            for x in 0..<activeX {
                let pad = 1 - realY * writer.columns.realSum[x]
                let l = (accY[x] + pad * c.yOffset - c.yOffset) * c.yScale
                let u = mono ? 0 : accU[x] + pad * 128 - 128
                let v = mono ? 0 : accV[x] + pad * 128 - 128
                let o = (oy * size + x) * 3
                out[o] = scaled(l + c.crToR * v, s.scale, bias[0])
                out[o + 1] = scaled(l - c.cbToG * u - c.crToG * v, s.scale, bias[1])
                out[o + 2] = scaled(l + c.cbToB * u, s.scale, bias[2])
            }
        }
        return out
    }

    /// Pillow's 8-bit store: round half up, clip to 0…255.
    static func roundToByte(_ v: Float) -> Float {
        Float(Int32(min(max(v, 0), 255) + 0.5))
    }

    /// The writer's RGB output for `image`, NHWC (8-bit rounding after each pass, as Pillow).
    static func write(_ image: RGBImage, with writer: NetworkInputWriter) -> [Float] {
        let size = writer.size, width = image.width, stride = 3 * size
        let columns = writer.columns, rows = writer.rows
        var temp = [Float](repeating: 0, count: image.height * stride)
        for y in 0..<image.height {
            for o in 0..<columns.activeCount {
                for ch in 0..<3 {
                    var acc: Float = 0
                    for k in 0..<columns.taps {
                        let x = Int(columns.first[o]) + k
                        acc += columns.weights[o * columns.taps + k] * Float(image.pixels[(y * width + x) * 3 + ch])
                    }
                    temp[y * stride + 3 * o + ch] = roundToByte(acc)
                }
            }
        }
        let s = writer.scaling
        var out = [Float](repeating: 0, count: size * size * 3)
        for i in 0..<(size * size) { for ch in 0..<3 { out[3 * i + ch] = s.bias[ch] } }
        for oy in 0..<rows.activeCount {
            let acc = vertical(temp, stride: stride, table: rows, row: oy, count: 3 * columns.activeCount)
            for i in 0..<acc.count { out[oy * stride + i] = roundToByte(acc[i]) * s.scale + s.bias[i % 3] }
        }
        return out
    }
}
