/// Drawing primitives for overlays on RGB frames (pose wireframes, labels).
///
/// Coordinates are in pixels with pixel `(x, y)`'s center at `(x, y)` (so a keypoint at
/// `(12.0, 30.0)` is centered on pixel 12, 30). Shapes are clipped to the image; anything partly or
/// wholly outside is fine. Anti-aliased shapes blend by the covered fraction of each pixel,
/// estimated from the distance of the pixel center to the shape's edge.
extension RGBImage {
    /// A line thickness that reads well at this frame size (≈ 1/150 of the shorter side, at least 2).
    public var suggestedLineThickness: Float { max(2, Float(min(width, height)) / 150) }

    /// Blends `color` over pixel `(x, y)` with opacity `alpha` in 0…1 (no bounds check).
    @inline(__always)
    mutating func blend(_ x: Int, _ y: Int, _ color: RGBColor, _ alpha: Float) {
        let i = (y * width + x) * 3
        if alpha >= 1 {
            pixels[i] = color.r; pixels[i + 1] = color.g; pixels[i + 2] = color.b
            return
        }
        @inline(__always) func mix(_ old: UInt8, _ new: UInt8) -> UInt8 {
            UInt8(Float(old) + (Float(new) - Float(old)) * alpha + 0.5)
        }
        pixels[i] = mix(pixels[i], color.r)
        pixels[i + 1] = mix(pixels[i + 1], color.g)
        pixels[i + 2] = mix(pixels[i + 2], color.b)
    }

    /// Fills the rectangle of pixels `x..<x+width`, `y..<y+height`, blended at `opacity`.
    public mutating func fillRect(x: Int, y: Int, width w: Int, height h: Int, color: RGBColor, opacity: Float = 1) {
        let x0 = max(x, 0), x1 = min(x + w, width), y0 = max(y, 0), y1 = min(y + h, height)
        guard x0 < x1, y0 < y1, opacity > 0 else { return }
        for py in y0..<y1 { for px in x0..<x1 { blend(px, py, color, min(opacity, 1)) } }
    }

    /// Fills a disc of `radius` pixels around `(centerX, centerY)`.
    public mutating func fillCircle(centerX: Float, centerY: Float, radius: Float, color: RGBColor, antialiased: Bool = true) {
        guard radius > 0, centerX.isFinite, centerY.isFinite else { return }
        let reach = radius + 1
        paint(color, minX: centerX - reach, maxX: centerX + reach, minY: centerY - reach, maxY: centerY + reach) { px, py in
            let dx = Float(px) - centerX, dy = Float(py) - centerY
            let distance = (dx * dx + dy * dy).squareRoot()
            return Self.coverage(distance: distance, halfWidth: radius, antialiased: antialiased)
        }
    }

    /// Draws a straight line of `thickness` pixels with round ends from `(x0, y0)` to `(x1, y1)`.
    public mutating func drawLine(x0: Float, y0: Float, x1: Float, y1: Float, thickness: Float, color: RGBColor,
                                  antialiased: Bool = true) {
        guard thickness > 0, x0.isFinite, y0.isFinite, x1.isFinite, y1.isFinite else { return }
        let half = thickness / 2, reach = half + 1
        let dx = x1 - x0, dy = y1 - y0
        let lengthSquared = dx * dx + dy * dy
        paint(color, minX: min(x0, x1) - reach, maxX: max(x0, x1) + reach, minY: min(y0, y1) - reach, maxY: max(y0, y1) + reach) { px, py in
            // Distance from the pixel center to the segment.
            let qx = Float(px) - x0, qy = Float(py) - y0
            let t = lengthSquared > 0 ? min(max((qx * dx + qy * dy) / lengthSquared, 0), 1) : 0
            let ex = qx - t * dx, ey = qy - t * dy
            return Self.coverage(distance: (ex * ex + ey * ey).squareRoot(), halfWidth: half, antialiased: antialiased)
        }
    }

    /// Fraction of a pixel at `distance` from a shape's center line covered by a band of `halfWidth`.
    @inline(__always)
    static func coverage(distance: Float, halfWidth: Float, antialiased: Bool) -> Float {
        antialiased ? min(max(halfWidth + 0.5 - distance, 0), 1) : (distance <= halfWidth ? 1 : 0)
    }

    /// Blends `color` over the pixels of a box (clipped to the image) by their coverage.
    private mutating func paint(_ color: RGBColor, minX: Float, maxX: Float, minY: Float, maxY: Float,
                                coverage: (Int, Int) -> Float) {
        // Clamp in Float first so huge or far-away coordinates cannot overflow Int.
        let limitX = Float(width - 1), limitY = Float(height - 1)
        guard maxX >= 0, maxY >= 0, minX <= limitX, minY <= limitY else { return }
        let x0 = Int(max(minX, 0).rounded(.down)), x1 = Int(min(maxX, limitX).rounded(.up))
        let y0 = Int(max(minY, 0).rounded(.down)), y1 = Int(min(maxY, limitY).rounded(.up))
        for py in y0...y1 {
            for px in x0...x1 {
                let alpha = coverage(px, py)
                if alpha > 0 { blend(px, py, color, alpha) }
            }
        }
    }

    /// Draws `text` with the built-in 5×7 font, top-left corner at `(x, y)`, each font pixel a
    /// `scale × scale` block. Characters outside printable ASCII draw as `?`. With `background`,
    /// a box is filled behind the text first (at `backgroundOpacity`), which keeps labels readable.
    ///
    ///     frame.drawText("squats 0.93  reps 3", x: 8, y: 8, scale: 3, color: .white, background: .black)
    public mutating func drawText(_ text: String, x: Int, y: Int, scale: Int = 2, color: RGBColor,
                                  background: RGBColor? = nil, backgroundOpacity: Float = 0.6) {
        let scale = max(scale, 1)
        if let background {
            let (w, h) = BitmapFont.size(of: text, scale: scale)
            fillRect(x: x - scale, y: y - scale, width: w + 2 * scale, height: h + 2 * scale, color: background, opacity: backgroundOpacity)
        }
        var cursor = x
        for scalar in text.unicodeScalars {
            let columns = BitmapFont.glyph(scalar)
            for (cx, bits) in columns.enumerated() {
                for row in 0..<BitmapFont.glyphHeight where bits & (1 << row) != 0 {
                    fillRect(x: cursor + cx * scale, y: y + row * scale, width: scale, height: scale, color: color)
                }
            }
            cursor += BitmapFont.advance * scale
        }
    }
}

/// Colors by body side, as overlays conventionally draw skeletons (the subject's left in one
/// color, right in another, the midline in a third).
public struct BodySidePalette: Sendable, Equatable {
    public var left: RGBColor
    public var right: RGBColor
    public var center: RGBColor

    public init(left: RGBColor, right: RGBColor, center: RGBColor) {
        self.left = left
        self.right = right
        self.center = center
    }

    /// Orange left, cyan-blue right, yellow midline: distinct on most backgrounds and for common color blindness.
    public static let standard = BodySidePalette(left: RGBColor(255, 140, 0), right: RGBColor(0, 160, 255), center: RGBColor(255, 230, 0))
}
