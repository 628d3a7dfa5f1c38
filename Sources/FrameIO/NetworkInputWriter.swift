import PoseCore

/// Writes a video frame straight into a network's input tensor: color conversion, resize and
/// input scaling fused in one pass, with no allocation per frame.
///
/// The output is float32 **NHWC** (`[1, size, size, 3]`, RGB) with values `x · scale + bias[c]`
/// (``/PoseCore/InputScaling``, from the model's weight bundle; PoseNet: `x · 2/255 − 1`, so black is −1
/// and white is +1).
///
/// Geometry (``/PoseCore/InputPlacement``, PoseCore's one definition of the image ↔ input mapping):
/// - `.letterbox`: the frame is scaled by `size / max(width, height)` keeping its aspect, placed at
///   the top-left, and the rest is black (`bias`). This equals padding the frame bottom/right to a square
///   with black and resizing the square, which is what the reference pipeline does.
/// - `.stretch`: x and y are scaled independently to fill the square.
/// ``placement``'s `inputToImage` maps the decoded keypoints back onto the frame, and
/// ``paddingBand`` says which input rows (columns) hold only padding, for the network to skip.
///
/// Resampling follows Pillow's `Image.resize(…, BILINEAR)`: a separable triangle filter that widens
/// with the downscale factor (antialiased), weight tables computed once at init. For Y'CbCr input the
/// planes are resized first and converted after (conversion is affine, so this equals converting
/// first, up to clamping); chroma is brought to luma positions by bilinear upsampling folded into the
/// chroma weight tables, so no full-resolution RGB frame is ever made.
///
///     let writer = try NetworkInputWriter(sourceWidth: 640, sourceHeight: 360, size: 257,
///                                         geometry: .letterbox, chroma: reader.header.chroma,
///                                         conversion: reader.defaultConversion)
///     var input = [Float](repeating: 0, count: writer.outputCount)   // allocate once
///     while try reader.read(into: &frame) {
///         input.withUnsafeMutableBufferPointer { writer.write(frame, into: $0) }
///         // the network skips writer.paddingBand (detect(…, padding: writer.paddingBand));
///         // keypoints in network pixels → frame pixels: pose.mapped(by: writer.placement.inputToImage)
///     }
///
/// A writer holds scratch rows, so use one writer per thread. Set `parallel` to split rows over
/// two threads.
public final class NetworkInputWriter {
    public let sourceWidth: Int
    public let sourceHeight: Int
    /// The network input is `size × size × 3`.
    public let size: Int
    public let geometry: InputPlacement.Fit
    /// Where the frame lands in the input, and the way back.
    public let placement: InputPlacement
    /// Chroma layout expected by `write(_ frame:)` (8-bit formats only).
    public let chroma: Y4MChroma
    public let conversion: YUVToRGB.Conversion
    /// Pixel values → network input values.
    public let scaling: InputScaling
    /// Network pixels per source pixel along x and y (equal for letterbox).
    public let scaleX: Float
    public let scaleY: Float
    /// The input rows (a landscape frame's letterbox) or columns (a portrait one's) that hold
    /// only padding, every value the scaling's `bias`, in every frame written; nil when there are
    /// none (a square frame, `.stretch`). For a 640×480 frame at 257: rows `194..<257`.
    ///
    /// These are the rows (columns) whose resampling taps all fall in the padding, which both
    /// `write` methods fill with the padding color without looking at the frame. The row (column) before the band has taps on the
    /// frame and carries its content; in rare geometries its taps' weight is so small that
    /// rounding erases the content (its values equal the padding's too), and it stays outside the
    /// band: the band never holds a row that depends on the frame.
    public let paddingBand: PaddingBand?
    /// Floats written per frame: `size * size * 3`.
    public var outputCount: Int { size * size * 3 }
    /// Split the work over two threads (DispatchQueue.concurrentPerform). Off by default.
    public var parallel = false

    let columns: ResampleWeights, rows: ResampleWeights
    let chromaColumns: ResampleWeights, chromaRows: ResampleWeights
    let coefficients: YUVToRGB.Coefficients
    // Horizontally resized planes: source rows × `size` floats (× 3 for RGB input).
    private var lumaTemp: [Float], cbTemp: [Float], crTemp: [Float], rgbTemp: [Float]
    // The horizontal pass's widened 8-row blocks: `sourceWidth` vectors per thread (two at most).
    private let blockScratch: UnsafeMutablePointer<SIMD8<Float>>
    // Those eight rows as floats before the transpose: `8·sourceWidth` floats per thread.
    private let floatRowScratch: UnsafeMutablePointer<Float>
    // Vertical sums of one output row (Y, Cb, Cr): `3·size` floats per thread.
    private let accumulatorScratch: UnsafeMutablePointer<Float>

    /// Plans the resize for frames of `sourceWidth × sourceHeight` (tables built here, once).
    /// Throws `.invalidArgument` for empty sizes or a chroma format deeper than 8 bits.
    public init(sourceWidth: Int, sourceHeight: Int, size: Int, geometry: InputPlacement.Fit = .letterbox,
                chroma: Y4MChroma = .c420mpeg2, conversion: YUVToRGB.Conversion = .bt601Limited,
                scaling: InputScaling = .minusOneToOne) throws {
        guard sourceWidth > 0, sourceHeight > 0, size > 0 else {
            throw FrameIOError.invalidArgument("NetworkInputWriter: empty size \(sourceWidth)x\(sourceHeight) → \(size)")
        }
        guard chroma.bitDepth == 8, !chroma.hasAlpha else {
            throw FrameIOError.invalidArgument("NetworkInputWriter: chroma \(chroma.tag) is not an 8-bit Y'CbCr format; convert to RGBImage first")
        }
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.size = size
        self.geometry = geometry
        self.chroma = chroma
        self.conversion = conversion
        self.scaling = scaling
        placement = InputPlacement(imageWidth: sourceWidth, imageHeight: sourceHeight, inputSize: size, fit: geometry)
        let virtualWidth = placement.paddedWidth, virtualHeight = placement.paddedHeight
        scaleX = placement.inputPerImagePixelX
        scaleY = placement.inputPerImagePixelY
        let columnTaps = ResampleWeights.pillowTaps(virtualSize: virtualWidth, realSize: sourceWidth, outputSize: size)
        let rowTaps = ResampleWeights.pillowTaps(virtualSize: virtualHeight, realSize: sourceHeight, outputSize: size)
        columns = ResampleWeights(sparse: columnTaps, realSize: sourceWidth)
        rows = ResampleWeights(sparse: rowTaps, realSize: sourceHeight)
        // Outputs from `activeCount` on have no tap on the frame (`fillPadding` writes them); a
        // letterbox pads one axis at most, so at most one of the two is short of `size`.
        if rows.activeCount < size {
            paddingBand = PaddingBand(axis: .rows, range: rows.activeCount..<size)
        } else if columns.activeCount < size {
            paddingBand = PaddingBand(axis: .columns, range: columns.activeCount..<size)
        } else {
            paddingBand = nil
        }
        let format = YUVFormat(width: sourceWidth, height: sourceHeight, chroma: chroma)
        let (chromaWidth, chromaHeight) = format.planeSize(1)
        let (dx, dy) = chroma.decimation
        // Chroma siting, as in YUVToRGB: centered horizontally only for 420jpeg, vertically for 4:2:0 but PAL DV.
        let offsetX: Float = chroma.subsampling == .s420 && chroma.siting == .center ? Float(dx - 1) / 2 : 0
        let offsetY: Float = chroma.subsampling == .s420 && chroma.siting != .topLeft ? 0.5 : 0
        chromaColumns = ResampleWeights.composed(lumaTaps: columnTaps, chromaCount: chromaWidth, decimation: dx, offset: offsetX)
        chromaRows = ResampleWeights.composed(lumaTaps: rowTaps, chromaCount: chromaHeight, decimation: dy, offset: offsetY)
        coefficients = YUVToRGB.Coefficients(conversion, bitDepth: 8)
        lumaTemp = [Float](repeating: 0, count: sourceHeight * size)
        let hasChroma = chroma.subsampling != .mono
        cbTemp = [Float](repeating: 0, count: hasChroma ? chromaHeight * size : 0)
        crTemp = cbTemp
        rgbTemp = []  // made on first RGB use
        blockScratch = .allocate(capacity: 2 * sourceWidth)
        floatRowScratch = .allocate(capacity: 2 * ResampleKernels.blockRows * sourceWidth)
        accumulatorScratch = .allocate(capacity: 2 * 3 * size)
    }

    deinit {
        blockScratch.deallocate()
        floatRowScratch.deallocate()
        accumulatorScratch.deallocate()
    }

    // MARK: Y'CbCr frames

    /// Converts, resizes and scales `frame` into `output` (`outputCount` floats, NHWC).
    public func write(_ frame: YUVFrame, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(frame.width == sourceWidth && frame.height == sourceHeight && frame.format.chroma == chroma,
                     "NetworkInputWriter planned for \(sourceWidth)x\(sourceHeight) \(chroma), got \(frame.width)x\(frame.height) \(frame.format.chroma)")
        precondition(output.count >= outputCount, "NetworkInputWriter: output holds \(output.count) floats, needs \(outputCount)")
        let format = frame.format
        let (chromaWidth, chromaHeight) = format.planeSize(1)
        let mono = chroma.subsampling == .mono
        let chunks = parallel ? 2 : 1
        frame.data.withUnsafeBufferPointer { data in
            let base = data.baseAddress!
            lumaTemp.withUnsafeMutableBufferPointer { yT in
            cbTemp.withUnsafeMutableBufferPointer { uT in
            crTemp.withUnsafeMutableBufferPointer { vT in
                // 1. Horizontal pass over every source row of every plane.
                let yT = yT.baseAddress!, uT = uT.baseAddress, vT = vT.baseAddress
                RowSplit.run(chunks) { part in
                    let block = self.blockScratch + part * self.sourceWidth
                    let floatRows = self.floatRowScratch + part * ResampleKernels.blockRows * self.sourceWidth
                    ResampleKernels.horizontal(base, width: sourceWidth, rows: RowSplit.range(part, of: chunks, count: sourceHeight),
                                               table: columns, into: yT, stride: size, block: block, floatRows: floatRows)
                    if !mono {
                        let r = RowSplit.range(part, of: chunks, count: chromaHeight)
                        ResampleKernels.horizontal(base + format.planeOffset(1), width: chromaWidth, rows: r,
                                                   table: chromaColumns, into: uT!, stride: size, block: block, floatRows: floatRows)
                        ResampleKernels.horizontal(base + format.planeOffset(2), width: chromaWidth, rows: r,
                                                   table: chromaColumns, into: vT!, stride: size, block: block, floatRows: floatRows)
                    }
                }
                // 2. Vertical pass, padding and color conversion, one output row at a time.
                RowSplit.run(chunks) { part in
                    let acc = self.accumulatorScratch + part * 3 * self.size
                    for oy in RowSplit.range(part, of: chunks, count: size) {
                        self.outputRowYUV(oy, yT: yT, uT: uT, vT: vT, mono: mono, acc: acc, output: output.baseAddress!)
                    }
                }
            }}}
        }
    }

    /// One output row: vertical sums of the three planes into `acc` (`3·size` floats), then padding
    /// share, color conversion and scaling.
    private func outputRowYUV(_ oy: Int, yT: UnsafeMutablePointer<Float>, uT: UnsafeMutablePointer<Float>?,
                              vT: UnsafeMutablePointer<Float>?, mono: Bool, acc: UnsafeMutablePointer<Float>,
                              output: UnsafeMutablePointer<Float>) {
        let out = output + oy * size * 3
        let accY = acc, accU = acc + size, accV = acc + 2 * size
        let activeX = columns.activeCount
        let scale = scaling.scale, biasR = scaling.bias[0], biasG = scaling.bias[1], biasB = scaling.bias[2]
        guard oy < rows.activeCount else {
            Self.fillPadding(out, pixels: 0..<size, biasR: biasR, biasG: biasG, biasB: biasB)
            return
        }
        let c = coefficients
        let stride = size
        // Padding share: black is Y = yOffset (16 or 0), Cb = Cr = 128.
        let realY = rows.realSum[oy]
        let padY = c.yOffset
        rows.weights.withUnsafeBufferPointer { rowWeights in
        chromaRows.weights.withUnsafeBufferPointer { chromaRowWeights in
        columns.realSum.withUnsafeBufferPointer { realX in
            let realX = realX.baseAddress!
            let lumaTaps = rows.taps, chromaTaps = chromaRows.taps
            let wY = rowWeights.baseAddress! + oy * lumaTaps
            let srcY = UnsafePointer(yT + Int(rows.first[oy]) * stride)
            // Mono: no chroma planes; the chroma rows below are never read.
            let wC = mono ? wY : chromaRowWeights.baseAddress! + oy * chromaTaps
            let chromaOffset = mono ? 0 : Int(chromaRows.first[oy]) * stride
            let srcU = mono ? srcY : UnsafePointer(uT! + chromaOffset)
            let srcV = mono ? srcY : UnsafePointer(vT! + chromaOffset)

            // Vertical sums for the row first (weights broadcast once per tap), then conversion.
            ResampleKernels.vertical(srcY, stride: stride, weights: wY, taps: lumaTaps, count: activeX, into: accY)
            if mono {
                for x in 0..<activeX {
                    let pad = 1 - realY * realX[x]
                    let l = (accY[x] + pad * padY - c.yOffset) * c.yScale
                    let u: Float = 0, v: Float = 0
                    out[3 * x] = Self.scaled(l + c.crToR * v, scale, biasR)
                    out[3 * x + 1] = Self.scaled(l - c.cbToG * u - c.crToG * v, scale, biasG)
                    out[3 * x + 2] = Self.scaled(l + c.cbToB * u, scale, biasB)
                }
            } else {
                ResampleKernels.vertical(srcU, stride: stride, weights: wC, taps: chromaTaps, count: activeX, into: accU)
                ResampleKernels.vertical(srcV, stride: stride, weights: wC, taps: chromaTaps, count: activeX, into: accV)
                // Planar first (contiguous, so the loop vectorizes), then interleave.
                for x in 0..<activeX {
                    let pad = 1 - realY * realX[x]
                    let l = (accY[x] + pad * padY - c.yOffset) * c.yScale
                    let u = accU[x] + pad * 128 - 128
                    let v = accV[x] + pad * 128 - 128
                    accY[x] = Self.scaled(l + c.crToR * v, scale, biasR)
                    accU[x] = Self.scaled(l - c.cbToG * u - c.crToG * v, scale, biasG)
                    accV[x] = Self.scaled(l + c.cbToB * u, scale, biasB)
                }
                for x in 0..<activeX {
                    out[3 * x] = accY[x]
                    out[3 * x + 1] = accU[x]
                    out[3 * x + 2] = accV[x]
                }
            }
        }}}
        Self.fillPadding(out, pixels: activeX..<size, biasR: biasR, biasG: biasG, biasB: biasB)
    }

    /// A channel value clamped to 0…255, then scaled: `v · scale + bias`.
    @inline(__always)
    static func scaled(_ v: Float, _ scale: Float, _ bias: Float) -> Float {
        min(max(v, 0), 255) * scale + bias
    }

    /// Black padding (0 · scale + bias) for `pixels` of an output row.
    @inline(__always)
    static func fillPadding(_ out: UnsafeMutablePointer<Float>, pixels: Range<Int>, biasR: Float, biasG: Float, biasB: Float) {
        for x in pixels { out[3 * x] = biasR; out[3 * x + 1] = biasG; out[3 * x + 2] = biasB }
    }

    // MARK: RGB images

    /// Resizes and scales `image` into `output` (`outputCount` floats, NHWC). Rounds to 8 bits
    /// after each pass exactly where Pillow does, so the result matches `Image.resize` closely.
    public func write(_ image: RGBImage, into output: UnsafeMutableBufferPointer<Float>) {
        precondition(image.width == sourceWidth && image.height == sourceHeight,
                     "NetworkInputWriter planned for \(sourceWidth)x\(sourceHeight), got \(image.width)x\(image.height)")
        precondition(output.count >= outputCount, "NetworkInputWriter: output holds \(output.count) floats, needs \(outputCount)")
        if rgbTemp.isEmpty { rgbTemp = [Float](repeating: 0, count: sourceHeight * size * 3) }
        let chunks = parallel ? 2 : 1
        image.pixels.withUnsafeBufferPointer { px in
            rgbTemp.withUnsafeMutableBufferPointer { t in
                let t = t.baseAddress!, px = px.baseAddress!
                RowSplit.run(chunks) { part in
                    self.horizontalRGB(px, rows: RowSplit.range(part, of: chunks, count: self.sourceHeight), into: t)
                }
                let scale = scaling.scale, biasR = scaling.bias[0], biasG = scaling.bias[1], biasB = scaling.bias[2]
                RowSplit.run(chunks) { part in
                    withUnsafeTemporaryAllocation(of: Float.self, capacity: 3 * size) { acc in
                        for oy in RowSplit.range(part, of: chunks, count: size) {
                            let out = output.baseAddress! + oy * size * 3
                            guard oy < rows.activeCount else {
                                Self.fillPadding(out, pixels: 0..<size, biasR: biasR, biasG: biasG, biasB: biasB)
                                continue
                            }
                            let activeX = columns.activeCount
                            Self.vertical(t, stride: 3 * size, table: rows, row: oy, count: 3 * activeX, into: acc.baseAddress!)
                            // Black padding is 0, so it adds nothing: no padding term needed.
                            for x in 0..<activeX {
                                out[3 * x] = Self.roundToByte(acc[3 * x]) * scale + biasR
                                out[3 * x + 1] = Self.roundToByte(acc[3 * x + 1]) * scale + biasG
                                out[3 * x + 2] = Self.roundToByte(acc[3 * x + 2]) * scale + biasB
                            }
                            Self.fillPadding(out, pixels: activeX..<size, biasR: biasR, biasG: biasG, biasB: biasB)
                        }
                    }
                }
            }
        }
    }

    /// Pillow's 8-bit store: round half up and clip to 0…255 (truncating conversion, no libm call).
    @inline(__always)
    static func roundToByte(_ v: Float) -> Float {
        Float(Int32(min(max(v, 0), 255) + 0.5))
    }

    private func horizontalRGB(_ px: UnsafePointer<UInt8>, rows range: Range<Int>, into t: UnsafeMutablePointer<Float>) {
        let taps = columns.taps, active = columns.activeCount, stride = 3 * size, width = sourceWidth
        columns.first.withUnsafeBufferPointer { first in
            columns.weights.withUnsafeBufferPointer { weights in
                for y in range {
                    let src = px + y * width * 3
                    let dst = t + y * stride
                    for o in 0..<active {
                        var r: Float = 0, g: Float = 0, b: Float = 0
                        let s = src + Int(first[o]) * 3
                        let w = weights.baseAddress! + o * taps
                        for k in 0..<taps {
                            r += w[k] * Float(s[3 * k])
                            g += w[k] * Float(s[3 * k + 1])
                            b += w[k] * Float(s[3 * k + 2])
                        }
                        dst[3 * o] = Self.roundToByte(r)
                        dst[3 * o + 1] = Self.roundToByte(g)
                        dst[3 * o + 2] = Self.roundToByte(b)
                    }
                }
            }
        }
    }

    // MARK: kernels

    /// `into[i] = Σ_k w[row,k] · temp[(first[row] + k)·stride + i]` for `i < count`.
    static func vertical(_ temp: UnsafeMutablePointer<Float>, stride: Int, table: ResampleWeights,
                         row: Int, count: Int, into acc: UnsafeMutablePointer<Float>) {
        let taps = table.taps
        let first = Int(table.first[row])
        for i in 0..<count { acc[i] = 0 }
        for k in 0..<taps {
            let w = table.weights[row * taps + k]
            if w == 0 { continue }
            let src = temp + (first + k) * stride
            for i in 0..<count { acc[i] += w * src[i] }
        }
    }
}
