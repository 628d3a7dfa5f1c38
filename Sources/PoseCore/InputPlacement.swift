/// Where an image lands in a network's square input, and back: the one definition of the
/// image ↔ network-input mapping.
///
/// - ``Fit/letterbox``: the image keeps its aspect ratio; it is padded bottom/right with black
///   to a `max(width, height)` square, and the square is resized to `inputSize × inputSize`.
/// - ``Fit/stretch``: each axis is resized on its own to fill the square (Apple's scaleFill).
///
/// Forward (image → input) is ``inputPerImagePixelX``/``inputPerImagePixelY``, the scales the
/// network-input writer (FrameIO's `NetworkInputWriter`) reports; backward (input → image) is
/// ``inputToImage``, which the decoders' keypoints go through:
///
///     let placement = InputPlacement(imageWidth: 640, imageHeight: 480, inputSize: 353, fit: .letterbox)
///     let poses = try detector.detect(mappingTo: placement.inputToImage)   // keypoints in image pixels
public struct InputPlacement: Sendable, Equatable {
    /// How an image is fitted to the square input.
    public enum Fit: Sendable, Equatable { case letterbox, stretch }

    public let imageWidth: Int
    public let imageHeight: Int
    /// The network input is `inputSize × inputSize`.
    public let inputSize: Int
    public let fit: Fit

    public init(imageWidth: Int, imageHeight: Int, inputSize: Int, fit: Fit) {
        self.imageWidth = imageWidth; self.imageHeight = imageHeight
        self.inputSize = inputSize; self.fit = fit
    }

    /// The image's size after padding (letterbox: a `max(width, height)` square; stretch: the
    /// image itself): the extent that is resized to the input.
    public var paddedWidth: Int { fit == .letterbox ? max(imageWidth, imageHeight) : imageWidth }
    public var paddedHeight: Int { fit == .letterbox ? max(imageWidth, imageHeight) : imageHeight }

    /// Network-input pixels per image pixel along x and y (equal for letterbox), in single
    /// precision as the writer computes them.
    public var inputPerImagePixelX: Float { Float(inputSize) / Float(paddedWidth) }
    public var inputPerImagePixelY: Float { Float(inputSize) / Float(paddedHeight) }

    /// Network-input pixels → image pixels (no offset: the padding is after the image): the
    /// inverse of the forward scales, as the writer computes them.
    public var inputToImage: ImageTransform {
        ImageTransform(scaleX: 1 / Double(inputPerImagePixelX), scaleY: 1 / Double(inputPerImagePixelY))
    }
}
