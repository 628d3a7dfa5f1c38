import PoseCore
import Testing
@testable import FrameIO

/// Captions stay whole on any frame shape, and id labels sit by their person inside the frame.
@Suite struct CaptionTests {
    /// Rightmost column holding any caption pixel (white text or its dark band); -1 for none.
    func rightmostTouched(_ image: RGBImage, background: RGBColor) -> Int {
        var right = -1
        for y in 0..<image.height { for x in 0..<image.width where image[x, y] != background { right = max(right, x) } }
        return right
    }

    @Test(arguments: [(640, 360), (406, 720), (240, 426), (90, 160)])
    func captionFitsTheWidth(width: Int, height: Int) {
        let lines = ["jumping_jacks  98%  reps 12", "#12: arms 142 deg, feet 2.8x shoulders"]
        // The overlay's scale for this frame before fitting, as ActionOverlay asks for it.
        let preferred = max(2, min(width, height) / 180)
        let (scale, laid) = Caption(lines).layout(width: width, preferredScale: preferred)
        #expect(scale >= 1 && scale <= preferred)
        for line in laid { #expect(BitmapFont.size(of: line, scale: scale).width + 4 * scale <= width, "\(line) at \(scale)") }
        // Every word is kept, in order (wrapped, never cut, when words fit the width).
        #expect(laid.joined(separator: " ").split(separator: " ") == lines.joined(separator: " ").split(separator: " "))
        var image = RGBImage(width: width, height: height)
        let background = RGBColor(10, 200, 10)
        for y in 0..<height { for x in 0..<width { image[x, y] = background } }
        image.draw(Caption(lines), preferredScale: preferred)
        #expect(rightmostTouched(image, background: background) < width - 1, "the caption reaches the right edge")
    }

    @Test func longWordsAreCutOnlyWhenNothingElseFits() {
        #expect(Caption.wrap("abcdefghij", characters: 4) == ["abcd", "efgh", "ij"])
        #expect(Caption.wrap("ab cd ef", characters: 5) == ["ab cd", "ef"])
        #expect(Caption.wrap("", characters: 3) == [""])
    }

    @Test func idLabelsSitAboveTheirPersonInsideTheFrame() {
        var image = RGBImage(width: 200, height: 150)
        let keypoints = (0..<BodyPart.count).map { i in
            Keypoint(position: Point(x: 100 + Double(i % 3), y: 40 + Double(i) * 5), score: 0.9)
        }
        PoseOverlay().drawIDs([Pose(keypoints: keypoints, score: 0.9, id: 7), Pose(keypoints: keypoints, score: 0.9)], on: &image)
        var touched: [(Int, Int)] = []
        for y in 0..<image.height { for x in 0..<image.width where image[x, y] != .black { touched.append((x, y)) } }
        #expect(!touched.isEmpty)
        // Above the box's top (y 40) and starting at its left (x 100), not over the body.
        #expect(touched.allSatisfy { $0.1 < 40 && $0.0 >= 98 }, "\(touched.prefix(5))")
        // A person at the top edge keeps the label inside the frame.
        var edge = RGBImage(width: 200, height: 150)
        let high = keypoints.map { Keypoint(position: Point(x: 190, y: $0.position.y - 40), score: 0.9) }
        PoseOverlay().drawIDs([Pose(keypoints: high, score: 0.9, id: 12)], on: &edge)
        var inside = true, any = false
        for y in 0..<edge.height { for x in 0..<edge.width where edge[x, y] != .black { any = true; inside = inside && x < 199 && y > 0 } }
        #expect(any && inside)
    }
}
