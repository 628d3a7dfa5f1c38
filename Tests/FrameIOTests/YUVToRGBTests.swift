import Testing
@testable import FrameIO

/// `YUVToRGB` against a naive per-pixel reference in Double, written from the formulas alone.
@Suite struct YUVToRGBTests {
    static func naive(_ frame: YUVFrame, matrix: ColorMatrix, range: ColorRange) -> RGBImage {
        let f = frame.format
        let (kr, kb) = matrix == .bt601 ? (0.299, 0.114) : (0.2126, 0.0722)
        let kg = 1 - kr - kb
        let depthScale = Double(1 << (f.chroma.bitDepth - 8))
        let maxCode = Double((1 << f.chroma.bitDepth) - 1)
        func sample(_ plane: Int, _ x: Int, _ y: Int) -> Double {
            let w = f.planeSize(plane).width
            let i = f.planeOffset(plane) + (y * w + x) * f.bytesPerSample
            return f.bytesPerSample == 1 ? Double(frame.data[i]) : Double(Int(frame.data[i]) | Int(frame.data[i + 1]) << 8)
        }
        // Chroma site of sample (j, i) in luma coordinates, per the Y4M tag.
        let (dx, dy) = f.chroma.decimation
        let offX = f.chroma.subsampling == .s420 && f.chroma.siting == .center ? 0.5 : 0.0
        let offY = f.chroma.subsampling == .s420 && f.chroma.siting != .topLeft ? 0.5 : 0.0
        func chroma(_ plane: Int, _ x: Int, _ y: Int) -> Double {
            let (cw, ch) = f.planeSize(plane)
            let px = min(max((Double(x) - offX) / Double(dx), 0), Double(cw - 1))
            let py = min(max((Double(y) - offY) / Double(dy), 0), Double(ch - 1))
            let x0 = Int(px), y0 = Int(py), x1 = min(x0 + 1, cw - 1), y1 = min(y0 + 1, ch - 1)
            let fx = px - Double(x0), fy = py - Double(y0)
            let top = sample(plane, x0, y0) * (1 - fx) + sample(plane, x1, y0) * fx
            let bottom = sample(plane, x0, y1) * (1 - fx) + sample(plane, x1, y1) * fx
            return top * (1 - fy) + bottom * fy
        }
        var image = RGBImage(width: f.width, height: f.height)
        for y in 0..<f.height {
            for x in 0..<f.width {
                var l = sample(0, x, y), cb = f.planeCount > 1 ? chroma(1, x, y) : 0, cr = f.planeCount > 1 ? chroma(2, x, y) : 0
                if range == .limited {
                    l = (l / depthScale - 16) * 255 / 219
                    cb = f.planeCount > 1 ? (cb / depthScale - 128) * 255 / 224 : 0
                    cr = f.planeCount > 1 ? (cr / depthScale - 128) * 255 / 224 : 0
                } else {
                    l = l * 255 / maxCode
                    cb = f.planeCount > 1 ? (cb - (maxCode + 1) / 2) * 255 / maxCode : 0
                    cr = f.planeCount > 1 ? (cr - (maxCode + 1) / 2) * 255 / maxCode : 0
                }
                let r = l + 2 * (1 - kr) * cr
                let b = l + 2 * (1 - kb) * cb
                let g = (l - kr * r - kb * b) / kg
                func byte(_ v: Double) -> UInt8 { UInt8(min(max(v.rounded(), 0), 255)) }
                image[x, y] = RGBColor(byte(r), byte(g), byte(b))
            }
        }
        return image
    }

    static func randomFrame(_ format: YUVFormat, seed: UInt64) -> YUVFrame {
        var frame = YUVFrame(format: format)
        var state = seed
        let maxCode = (1 << format.chroma.bitDepth) - 1
        for i in stride(from: 0, to: frame.data.count, by: format.bytesPerSample) {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            let v = Int(state >> 33) % (maxCode + 1)
            frame.data[i] = UInt8(v & 0xFF)
            if format.bytesPerSample == 2 { frame.data[i + 1] = UInt8(v >> 8) }
        }
        return frame
    }

    @Test(arguments: ["420jpeg", "420mpeg2", "420paldv", "411", "422", "444", "mono", "420p10", "444p16", "mono12"])
    func matchesNaiveReference(_ tag: String) {
        for (matrix, range) in [(ColorMatrix.bt601, ColorRange.limited), (.bt709, .limited), (.bt601, .full)] {
            let format = YUVFormat(width: 13, height: 7, chroma: Y4MChroma(tag: tag)!)
            let frame = Self.randomFrame(format, seed: 42)
            let converter = YUVToRGB(format: format, conversion: .init(matrix: matrix, range: range))
            var ours = RGBImage()
            converter.convert(frame, into: &ours)
            let reference = Self.naive(frame, matrix: matrix, range: range)
            // Float vs Double rounding: at most one level, and rarely.
            let (mean, worst) = difference(ours, reference)
            #expect(worst <= 1 && mean < 0.02, "\(tag) \(matrix) \(range): mean \(mean) max \(worst)")
            converter.parallel = true
            var split = RGBImage()
            converter.convert(frame, into: &split)
            #expect(split == ours)
        }
    }

    @Test func knownColors() {
        // Limited-range BT.601 code values of pure colors (from the matrix by hand): white, black, red.
        var frame = YUVFrame(format: YUVFormat(width: 3, height: 1, chroma: .c444))
        frame.data = [235, 16, 81, 128, 128, 90, 128, 128, 240]
        let rgb = frame.rgbImage()
        #expect(rgb[0, 0] == .white && rgb[1, 0] == .black)
        #expect(rgb[2, 0].r >= 254 && rgb[2, 0].g <= 1 && rgb[2, 0].b <= 1)
    }
}
