import Testing
@testable import FrameIO

@Suite struct DrawingTests {
    /// Sum of red over the image in units of fully covered pixels (white drawn on black).
    func coveredArea(_ image: RGBImage) -> Double {
        stride(from: 0, to: image.pixels.count, by: 3).reduce(0.0) { $0 + Double(image.pixels[$1]) / 255 }
    }

    func setPixels(_ image: RGBImage) -> [(Int, Int)] {
        var out: [(Int, Int)] = []
        for y in 0..<image.height { for x in 0..<image.width where image[x, y].r > 0 { out.append((x, y)) } }
        return out
    }

    @Test func hardCircleCoversItsDiscOnly() {
        var image = RGBImage(width: 64, height: 64)
        image.fillCircle(centerX: 30, centerY: 31, radius: 10, color: .white, antialiased: false)
        let pixels = setPixels(image)
        // Lattice points within radius 10: 317 (Gauss circle problem, hand-counted reference N(10) = 317).
        #expect(pixels.count == 317)
        #expect(pixels.allSatisfy { p in let dx = Double(p.0 - 30), dy = Double(p.1 - 31); return dx * dx + dy * dy <= 100 })
        #expect(image[30, 31] == .white && image[41, 31] == .black)
    }

    @Test func antialiasedShapesHaveTheRightArea() {
        var disc = RGBImage(width: 64, height: 64)
        disc.fillCircle(centerX: 31.3, centerY: 30.7, radius: 12.5, color: .white)
        #expect(abs(coveredArea(disc) - Double.pi * 12.5 * 12.5) < 0.01 * Double.pi * 12.5 * 12.5)
        var line = RGBImage(width: 100, height: 60)
        line.drawLine(x0: 10, y0: 12, x1: 80, y1: 47, thickness: 4, color: .white)
        let length = (70.0 * 70 + 35 * 35).squareRoot()
        let expected = length * 4 + Double.pi * 4  // body + two half-disc caps of radius 2
        #expect(abs(coveredArea(line) - expected) < 0.02 * expected)
    }

    @Test func hardHorizontalLine() {
        var image = RGBImage(width: 40, height: 20)
        image.drawLine(x0: 5, y0: 10, x1: 30, y1: 10, thickness: 3, color: .red, antialiased: false)
        for x in 5...30 { for y in 9...11 { #expect(image[x, y] == .red) } }
        #expect(image[17, 8] == .black && image[17, 12] == .black && image[32, 10] == .black)
    }

    @Test func clippingAndNonsenseCoordinatesAreHarmless() {
        var image = RGBImage(width: 16, height: 16)
        image.fillCircle(centerX: -5, centerY: 8, radius: 7, color: .white)
        image.fillCircle(centerX: .nan, centerY: 8, radius: 7, color: .white)
        image.drawLine(x0: -1e30, y0: -1e30, x1: 1e30, y1: 1e30, thickness: 2, color: .green)
        image.drawLine(x0: 100, y0: 100, x1: 200, y1: 300, thickness: 5, color: .green)
        image.fillRect(x: -10, y: -10, width: 12, height: 12, color: .blue)
        image.drawText("far away", x: 1000, y: -1000, scale: 4, color: .white)
        #expect(image[0, 0] == .blue && image[2, 2] != .blue)
        #expect(image[0, 8].r > 0)  // the disc's visible part
    }

    @Test func rectOpacityBlends() {
        var image = RGBImage(width: 4, height: 4)
        image.fillRect(x: 1, y: 1, width: 2, height: 2, color: .white, opacity: 0.5)
        #expect(image[1, 1] == RGBColor(128, 128, 128) && image[0, 0] == .black && image[3, 3] == .black)
    }

    @Test func fontGlyphsRenderAsDesigned() {
        // "I" is columns 00 41 7F 41 00: a full middle column and serifs in rows 0 and 6.
        var image = RGBImage(width: 5, height: 7)
        image.drawText("I", x: 0, y: 0, scale: 1, color: .white)
        var rows: [String] = []
        for y in 0..<7 { rows.append(String((0..<5).map { image[$0, y].r > 0 ? "#" : "." })) }
        #expect(rows == [".###.", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."])
        // "7" scaled by 2: top row solid across the glyph width.
        var seven = RGBImage(width: 10, height: 14)
        seven.drawText("7", x: 0, y: 0, scale: 2, color: .white)
        #expect((0..<10).allSatisfy { seven[$0, 0] == .white && seven[$0, 1] == .white })
        #expect(BitmapFont.glyph("é") == BitmapFont.glyph("?"))
        #expect(BitmapFont.columns.count == 95 * 5)
    }

    @Test func labelStaysInsideItsMeasuredBox() {
        let text = "squats 0.93  reps 3"
        let (w, h) = BitmapFont.size(of: text, scale: 3)
        #expect(w == (19 * 6 - 1) * 3 && h == 21)
        var image = RGBImage(width: 400, height: 60)
        image.drawText(text, x: 10, y: 20, scale: 3, color: .white)
        let pixels = setPixels(image)
        #expect(!pixels.isEmpty)
        #expect(pixels.allSatisfy { $0.0 >= 10 && $0.0 < 10 + w && $0.1 >= 20 && $0.1 < 20 + h })
        // With a background box, pixels around the text darken toward the background.
        var boxed = RGBImage(width: 400, height: 60, pixels: [UInt8](repeating: 200, count: 400 * 60 * 3))
        boxed.drawText(text, x: 10, y: 20, scale: 3, color: .white, background: .black)
        #expect(boxed[8, 18].r < 200 && boxed[5, 5].r == 200)
    }

    @Test func paletteBySide() {
        let p = BodySidePalette.standard
        #expect(Set([p.left, p.right, p.center]).count == 3)
        #expect(RGBImage(width: 640, height: 360).suggestedLineThickness == 2.4)
    }
}
