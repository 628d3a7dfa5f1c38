/// Text drawn on a frame that must stay whole on any frame shape: a caption's lines are drawn
/// at the largest scale (up to the one asked for) at which the longest line fits the frame's
/// width, and a line too long even at scale 1 is wrapped at spaces (a word longer than the
/// width is cut). A portrait 406 × 720 frame gets the same words as a landscape one.
public struct Caption: Sendable, Equatable {
    /// The lines, top to bottom.
    public var lines: [String]

    public init(_ lines: [String]) { self.lines = lines }

    /// The scale and lines (wrapped when needed) that fit `width` pixels with `margin` scaled
    /// pixels on each side, at most `preferredScale`.
    public func layout(width: Int, preferredScale: Int, margin: Int = 2) -> (scale: Int, lines: [String]) {
        let longest = lines.map { $0.unicodeScalars.count }.max() ?? 0
        var scale = max(preferredScale, 1)
        while scale > 1 && Self.width(characters: longest, scale: scale) + 2 * margin * scale > width { scale -= 1 }
        let room = max(1, (width - 2 * margin * scale + scale) / (BitmapFont.advance * scale))
        return (scale, lines.flatMap { Self.wrap($0, characters: room) })
    }

    /// `line` in pieces of at most `characters` characters, broken at spaces where possible.
    static func wrap(_ line: String, characters: Int) -> [String] {
        var out: [String] = []
        var current = ""
        for word in line.split(separator: " ", omittingEmptySubsequences: false).map(String.init) {
            let candidate = current.isEmpty ? word : current + " " + word
            if candidate.unicodeScalars.count <= characters { current = candidate; continue }
            if !current.isEmpty { out.append(current) }
            var rest = Substring(word)
            while rest.unicodeScalars.count > characters {
                out.append(String(rest.prefix(characters)))
                rest = rest.dropFirst(characters)
            }
            current = String(rest)
        }
        if !current.isEmpty || out.isEmpty { out.append(current) }
        return out
    }

    static func width(characters: Int, scale: Int) -> Int { characters == 0 ? 0 : (characters * BitmapFont.advance - 1) * scale }
}

extension RGBImage {
    /// Draws `caption` at the top left, white on a dark band per line, fitted to the width
    /// (``Caption/layout(width:preferredScale:margin:)``); returns the scale used.
    @discardableResult
    public mutating func draw(_ caption: Caption, preferredScale: Int) -> Int {
        let (scale, lines) = caption.layout(width: width, preferredScale: preferredScale)
        for (i, line) in lines.enumerated() {
            drawText(line, x: 2 * scale, y: 2 * scale + i * (BitmapFont.glyphHeight + 2) * scale, scale: scale,
                     color: .white, background: .black, backgroundOpacity: 0.6)
        }
        return scale
    }
}
