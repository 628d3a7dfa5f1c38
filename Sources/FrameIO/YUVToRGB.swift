/// Y'CbCr → RGB conversion of whole frames (all Y4M chroma formats, 8–16 bits).
///
/// Chroma is upsampled bilinearly from its sited positions (see `Y4MChroma`), the way
/// `ffmpeg -sws_flags bilinear+accurate_rnd+full_chroma_int` does, then
///
///     R = Y' + 2(1−Kr)·Cr'          Y' = (Y − 16)·255/219,  C' = (C − 128)·255/224   (limited range)
///     G = Y' − (2Kb(1−Kb)·Cb' + 2Kr(1−Kr)·Cr') / Kg      Y' = Y,  C' = C − 128   (full range)
///     B = Y' + 2(1−Kb)·Cb'
///
/// with (Kr, Kb) = (0.299, 0.114) for BT.601 and (0.2126, 0.0722) for BT.709, rounded to nearest
/// and clamped to 0…255.
///
/// A converter is planned once per frame format and reused; converting allocates nothing
/// (scratch rows live on the stack), and one converter may be used from one thread at a time.
public final class YUVToRGB {
    /// Which matrix and range to assume.
    public struct Conversion: Sendable, Equatable {
        public var matrix: ColorMatrix
        public var range: ColorRange
        public init(matrix: ColorMatrix = .bt601, range: ColorRange = .limited) {
            self.matrix = matrix
            self.range = range
        }
        public static let bt601Limited = Conversion()
    }

    /// Affine coefficients on 8-bit-scaled samples: `R = yScale·(Y−yOffset) + crToR·(Cr−128)` etc.
    struct Coefficients {
        var yOffset: Float, yScale: Float
        var crToR: Float, cbToG: Float, crToG: Float, cbToB: Float
        /// Multiplier taking a raw sample of `bitDepth` bits to the 8-bit scale, and the chroma center there.
        var sampleScale: Float, chromaCenter: Float

        init(_ conversion: Conversion, bitDepth: Int) {
            let (kr, kb): (Float, Float) = conversion.matrix == .bt601 ? (0.299, 0.114) : (0.2126, 0.0722)
            let kg = 1 - kr - kb
            let cScale: Float
            switch conversion.range {
            case .limited:
                yOffset = 16; yScale = 255 / 219; cScale = 255 / 224
                sampleScale = 1 / Float(1 << (bitDepth - 8))
                chromaCenter = 128
            case .full:
                yOffset = 0; yScale = 1; cScale = 1
                sampleScale = 255 / Float((1 << bitDepth) - 1)
                chromaCenter = Float(1 << (bitDepth - 1)) * sampleScale
            }
            crToR = 2 * (1 - kr) * cScale
            cbToB = 2 * (1 - kb) * cScale
            cbToG = 2 * kb * (1 - kb) / kg * cScale
            crToG = 2 * kr * (1 - kr) / kg * cScale
        }
    }

    public let format: YUVFormat
    public let conversion: Conversion
    let coefficients: Coefficients
    // Horizontal chroma interpolation per luma column: left index, right index, right weight.
    private let columnLeft: [Int32]
    private let columnRight: [Int32]
    private let columnWeight: [Float]
    /// Split rows over two threads (DispatchQueue.concurrentPerform). Off by default.
    public var parallel = false

    /// Plans a conversion for frames of `format`.
    public init(format: YUVFormat, conversion: Conversion = .bt601Limited) {
        self.format = format
        self.conversion = conversion
        coefficients = Coefficients(conversion, bitDepth: format.chroma.bitDepth)
        let width = format.width
        let chromaWidth = format.planeSize(1).width
        let (dx, _) = format.chroma.decimation
        // Chroma sample j sits at luma column dx·j (co-sited) or dx·j + (dx−1)/2 (centered, 420jpeg only).
        let offset: Float = format.chroma.subsampling == .s420 && format.chroma.siting == .center ? Float(dx - 1) / 2 : 0
        var left = [Int32](repeating: 0, count: width), right = left, weight = [Float](repeating: 0, count: width)
        if format.planeCount > 1 {
            for i in 0..<width {
                let (j0, j1, w) = Self.interpolation(position: (Float(i) - offset) / Float(dx), count: chromaWidth)
                left[i] = Int32(j0); right[i] = Int32(j1); weight[i] = w
            }
        }
        columnLeft = left; columnRight = right; columnWeight = weight
    }

    /// Linear interpolation between the two samples around `position`, clamped at the edges.
    static func interpolation(position: Float, count: Int) -> (Int, Int, Float) {
        let p = min(max(position, 0), Float(count - 1))
        let j0 = min(Int(p), count - 1)
        let j1 = min(j0 + 1, count - 1)
        return (j0, j1, p - Float(j0))
    }

    /// Converts `frame` (which must have this converter's format) into `image`, resizing it if needed.
    public func convert(_ frame: YUVFrame, into image: inout RGBImage) {
        precondition(frame.format == format, "YUVToRGB planned for \(format), got \(frame.format)")
        image.reshape(width: format.width, height: format.height)
        let c = coefficients
        let width = format.width
        let mono = format.planeCount == 1
        let (chromaWidth, chromaHeight) = format.planeSize(1)
        let (_, dy) = format.chroma.decimation
        // Vertical chroma position of luma row y: centered between rows for 4:2:0 except PAL DV.
        let verticalOffset: Float = format.chroma.subsampling == .s420 && format.chroma.siting != .topLeft ? 0.5 : 0
        let deep = format.bytesPerSample == 2
        let offsets = (0..<3).map { format.planeOffset($0) }
        let chunks = parallel ? 2 : 1
        frame.data.withUnsafeBytes { raw in
            image.pixels.withUnsafeMutableBufferPointer { out in
                columnLeft.withUnsafeBufferPointer { cl in
                columnRight.withUnsafeBufferPointer { cr in
                columnWeight.withUnsafeBufferPointer { cw in
                    let bytes = raw.baseAddress!, out = out.baseAddress!
                    let cbPlane = bytes + offsets[1], crPlane = bytes + offsets[2]
                    RowSplit.run(chunks) { part in
                        // Scratch rows on the stack: Y, Cb, Cr at luma width, then Cb, Cr at chroma width.
                        withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * width + 2 * chromaWidth) { scratch in
                            let ry = scratch.baseAddress!, ru = ry + width, rv = ru + width
                            let cu = rv + width, cv = cu + chromaWidth
                            for y in RowSplit.range(part, of: chunks, count: format.height) {
                                Self.loadRow(bytes, row: y, width: width, deep: deep, scale: c.sampleScale, into: ry)
                                if mono {
                                    for x in 0..<width { ru[x] = c.chromaCenter; rv[x] = c.chromaCenter }
                                } else {
                                    // Vertical interpolation at chroma width, then horizontal to luma width.
                                    let (j0, j1, fy) = Self.interpolation(position: (Float(y) - verticalOffset) / Float(dy), count: chromaHeight)
                                    Self.blendRows(cbPlane, j0, j1, fy, width: chromaWidth, deep: deep, scale: c.sampleScale, into: cu)
                                    Self.blendRows(crPlane, j0, j1, fy, width: chromaWidth, deep: deep, scale: c.sampleScale, into: cv)
                                    for x in 0..<width {
                                        let l = Int(cl[x]), r = Int(cr[x]), w = cw[x]
                                        ru[x] = cu[l] + (cu[r] - cu[l]) * w
                                        rv[x] = cv[l] + (cv[r] - cv[l]) * w
                                    }
                                }
                                Self.storeRow(y: ry, cb: ru, cr: rv, coefficients: c, into: out + y * width * 3, count: width)
                            }
                        }
                    }
                }}}
            }
        }
    }

    /// Row `row` of a plane of `width` samples, on the 8-bit scale.
    @inline(__always)
    static func loadRow(_ plane: UnsafeRawPointer, row: Int, width: Int, deep: Bool, scale: Float,
                        into dst: UnsafeMutablePointer<Float>) {
        if deep {
            let p = (plane + 2 * row * width).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width { dst[x] = Float(UInt16(p[2 * x]) | UInt16(p[2 * x + 1]) << 8) * scale }
        } else {
            let p = (plane + row * width).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width { dst[x] = Float(p[x]) * scale }
        }
    }

    /// `(1 − f)·row[j0] + f·row[j1]` of a plane of `width` samples, on the 8-bit scale.
    @inline(__always)
    static func blendRows(_ plane: UnsafeRawPointer, _ j0: Int, _ j1: Int, _ f: Float, width: Int, deep: Bool,
                          scale: Float, into dst: UnsafeMutablePointer<Float>) {
        let w0 = (1 - f) * scale, w1 = f * scale
        if deep {
            let a = (plane + 2 * j0 * width).assumingMemoryBound(to: UInt8.self)
            let b = (plane + 2 * j1 * width).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width {
                dst[x] = Float(UInt16(a[2 * x]) | UInt16(a[2 * x + 1]) << 8) * w0 + Float(UInt16(b[2 * x]) | UInt16(b[2 * x + 1]) << 8) * w1
            }
        } else {
            let a = (plane + j0 * width).assumingMemoryBound(to: UInt8.self)
            let b = (plane + j1 * width).assumingMemoryBound(to: UInt8.self)
            for x in 0..<width { dst[x] = Float(a[x]) * w0 + Float(b[x]) * w1 }
        }
    }

    /// Converts one row of 8-bit-scaled Y', Cb, Cr floats to interleaved RGB bytes.
    @inline(__always)
    static func storeRow(y: UnsafeMutablePointer<Float>, cb: UnsafeMutablePointer<Float>,
                         cr: UnsafeMutablePointer<Float>, coefficients c: Coefficients,
                         into out: UnsafeMutablePointer<UInt8>, count: Int) {
        for x in 0..<count {
            let l = (y[x] - c.yOffset) * c.yScale
            let u = cb[x] - c.chromaCenter, v = cr[x] - c.chromaCenter
            out[3 * x] = clampToByte(l + c.crToR * v)
            out[3 * x + 1] = clampToByte(l - c.cbToG * u - c.crToG * v)
            out[3 * x + 2] = clampToByte(l + c.cbToB * u)
        }
    }

    @inline(__always)
    static func clampToByte(_ v: Float) -> UInt8 {
        UInt8(min(max(v + 0.5, 0), 255))
    }
}

extension YUVFrame {
    /// Converts this frame to RGB. Convenient, but plans a converter per call; in a frame loop,
    /// keep one `YUVToRGB` and call `convert(_:into:)` instead.
    public func rgbImage(conversion: YUVToRGB.Conversion = .bt601Limited) -> RGBImage {
        var image = RGBImage()
        YUVToRGB(format: format, conversion: conversion).convert(self, into: &image)
        return image
    }
}
