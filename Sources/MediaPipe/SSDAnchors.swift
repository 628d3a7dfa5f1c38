import Foundation

/// One SSD anchor: centre and size in normalized input coordinates.
public struct Anchor: Sendable, Equatable {
    public var xCenter: Float, yCenter: Float, width: Float, height: Float
}

/// MediaPipe's `SsdAnchorsCalculator` for the fixed-size anchors its BlazePose and palm detectors use.
///
/// Consecutive layers with the same stride are merged into one feature map; every layer adds two
/// anchors per cell (aspect ratio 1.0 and the interpolated scale, also of ratio 1.0). With
/// `fixed_anchor_size` every anchor is 1×1, so min/max scale do not matter. Order: feature map by
/// feature map, then row, column, anchor.
public struct SSDAnchorOptions: Sendable {
    public var inputWidth: Int
    public var inputHeight: Int
    public var strides: [Int]
    public var anchorOffsetX: Float = 0.5
    public var anchorOffsetY: Float = 0.5

    public init(inputWidth: Int, inputHeight: Int, strides: [Int]) {
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.strides = strides
    }

    /// BlazePose's detector: 224×224, strides 8, 16, 32, 32, 32 (2254 anchors).
    public static let poseDetection = SSDAnchorOptions(inputWidth: 224, inputHeight: 224, strides: [8, 16, 32, 32, 32])
    /// The palm detector: 192×192, strides 8, 16, 16, 16 (2016 anchors).
    public static let palmDetection = SSDAnchorOptions(inputWidth: 192, inputHeight: 192, strides: [8, 16, 16, 16])

    /// The anchors, in the order of the model's outputs.
    public func anchors() -> [Anchor] {
        var anchors: [Anchor] = []
        var layer = 0
        while layer < strides.count {
            var last = layer, perCell = 0
            while last < strides.count && strides[last] == strides[layer] {
                perCell += 2  // aspect ratio 1.0 and the interpolated scale
                last += 1
            }
            let stride = strides[layer]
            let rows = (inputHeight + stride - 1) / stride, columns = (inputWidth + stride - 1) / stride
            for y in 0..<rows {
                for x in 0..<columns {
                    let anchor = Anchor(xCenter: (Float(x) + anchorOffsetX) / Float(columns),
                                        yCenter: (Float(y) + anchorOffsetY) / Float(rows), width: 1, height: 1)
                    anchors.append(contentsOf: repeatElement(anchor, count: perCell))
                }
            }
            layer = last
        }
        return anchors
    }
}
