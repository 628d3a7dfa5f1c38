import Foundation

/// MediaPipe's `TensorsToLandmarksCalculator`: a flat `[count · dimensions]` landmark tensor in
/// model-input pixels → normalized landmarks of the crop (`x / inputWidth`, `y / inputHeight`,
/// `z / inputWidth / normalizeZ`), visibility and presence through a sigmoid. The same tensor
/// layout without normalization gives world landmarks (`worldLandmarks`).
public struct TensorsToLandmarks: Sendable {
    public var landmarkCount: Int
    /// Values per landmark: 3 (x, y, z) or 5 (plus visibility and presence logits).
    public var dimensions: Int
    public var inputWidth: Float
    public var inputHeight: Float
    public var normalizeZ: Float

    public init(landmarkCount: Int, dimensions: Int, inputWidth: Float, inputHeight: Float, normalizeZ: Float = 1) {
        precondition(dimensions >= 3 && dimensions <= 5, "TensorsToLandmarks: 3 to 5 values per landmark")
        self.landmarkCount = landmarkCount
        self.dimensions = dimensions
        self.inputWidth = inputWidth
        self.inputHeight = inputHeight
        self.normalizeZ = normalizeZ
    }

    /// BlazePose (full): 39 landmarks × (x, y, z, visibility, presence) in a 256×256 crop.
    public static let pose = TensorsToLandmarks(landmarkCount: 39, dimensions: 5, inputWidth: 256, inputHeight: 256)
    /// Hands: 21 × (x, y, z) in a 224×224 crop, z further divided by 0.4.
    public static let hand = TensorsToLandmarks(landmarkCount: 21, dimensions: 3, inputWidth: 224, inputHeight: 224, normalizeZ: 0.4)

    /// MediaPipe's sigmoid, `1 / (1 + exp(-x))` in float32.
    @inlinable static func sigmoid(_ x: Float) -> Float { 1 / (1 + expf(-x)) }

    func check(_ raw: UnsafeBufferPointer<Float>, dimensions: Int, name: String) throws {
        guard raw.count >= landmarkCount * dimensions else {
            throw MediaPipeError.outputSize(name: name, count: raw.count, expected: landmarkCount * dimensions)
        }
    }

    /// Normalized landmarks of the crop.
    public func landmarks(_ raw: UnsafeBufferPointer<Float>) throws -> [Landmark] {
        try check(raw, dimensions: dimensions, name: "landmarks")
        return (0..<landmarkCount).map { i in
            let v = raw.baseAddress! + i * dimensions
            var landmark = Landmark(x: v[0] / inputWidth, y: v[1] / inputHeight, z: v[2] / inputWidth / normalizeZ)
            if dimensions > 3 { landmark.visibility = Self.sigmoid(v[3]) }
            if dimensions > 4 { landmark.presence = Self.sigmoid(v[4]) }
            return landmark
        }
    }

    /// World landmarks (metres, 3 values each) as the model gives them, before the crop's rotation.
    public func worldLandmarks(_ raw: UnsafeBufferPointer<Float>) throws -> [Landmark] {
        try check(raw, dimensions: 3, name: "world landmarks")
        return (0..<landmarkCount).map { i in
            Landmark(x: raw[i * 3], y: raw[i * 3 + 1], z: raw[i * 3 + 2])
        }
    }
}
