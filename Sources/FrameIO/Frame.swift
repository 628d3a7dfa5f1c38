/// An 8-bit RGB image, rows top to bottom, pixels interleaved `R, G, B`.
///
/// Readers fill an existing image in place (`read(into:)`), reusing its storage when the size
/// does not change, so a frame loop allocates nothing per frame.
public struct RGBImage: Sendable, Equatable {
    public private(set) var width: Int
    public private(set) var height: Int
    /// `width * height * 3` bytes, layout HWC (row-major, `R, G, B` per pixel).
    public var pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == width * height * 3,
                     "RGBImage: \(pixels.count) bytes for \(width)x\(height)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A black image.
    public init(width: Int, height: Int) {
        self.init(width: width, height: height, pixels: [UInt8](repeating: 0, count: width * height * 3))
    }

    /// An empty placeholder to pass to `read(into:)`; it takes the size of the first image read.
    public init() {
        width = 0
        height = 0
        pixels = []
    }

    /// The pixel at column `x`, row `y`.
    public subscript(x: Int, y: Int) -> RGBColor {
        get {
            let i = (y * width + x) * 3
            return RGBColor(pixels[i], pixels[i + 1], pixels[i + 2])
        }
        set {
            let i = (y * width + x) * 3
            pixels[i] = newValue.r
            pixels[i + 1] = newValue.g
            pixels[i + 2] = newValue.b
        }
    }

    /// Changes the size, keeping the storage when the byte count is unchanged (contents undefined).
    mutating func reshape(width: Int, height: Int) {
        let count = width * height * 3
        if pixels.count != count { pixels = [UInt8](repeating: 0, count: count) }
        self.width = width
        self.height = height
    }

    /// Takes a new size whose pixels have not arrived yet: storage is kept if it fits (a frame
    /// loop reusing its image), otherwise it grows through `reserveArrived(bytes:)` as a reader
    /// receives data, so a header claiming a huge image costs nothing until the data comes.
    mutating func beginArriving(width: Int, height: Int) {
        let count = width * height * 3
        if pixels.count > count { pixels.removeLast(pixels.count - count) }
        self.width = width
        self.height = height
    }

    /// Makes room for the first `bytes` pixel bytes of an arriving image, growing by at most
    /// the size already there (or 1 MiB) beyond what is asked, never past the whole image.
    mutating func reserveArrived(bytes: Int) {
        guard pixels.count < bytes else { return }
        let total = width * height * 3
        let target = min(total, max(bytes, min(2 * pixels.count, pixels.count + (1 << 20))))
        pixels.append(contentsOf: repeatElement(0, count: target - pixels.count))
    }

    /// Empties the image (after a read failed halfway, so a half-read claim holds no memory).
    mutating func clear() { self = RGBImage() }
}

/// An 8-bit RGB color.
public struct RGBColor: Sendable, Equatable, Hashable {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8

    public init(_ r: UInt8, _ g: UInt8, _ b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    public static let black = RGBColor(0, 0, 0)
    public static let white = RGBColor(255, 255, 255)
    public static let red = RGBColor(255, 0, 0)
    public static let green = RGBColor(0, 255, 0)
    public static let blue = RGBColor(0, 0, 255)
    public static let yellow = RGBColor(255, 255, 0)
    public static let cyan = RGBColor(0, 255, 255)
    public static let magenta = RGBColor(255, 0, 255)
    public static let orange = RGBColor(255, 140, 0)
}
