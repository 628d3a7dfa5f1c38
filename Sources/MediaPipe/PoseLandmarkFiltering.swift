/// BlazePose's `PoseLandmarkFiltering` subgraph in video mode: visibility low-pass then One-Euro on
/// the 33 landmarks (pixels, scaled by the object scale), on the world landmarks (metres) and on
/// the two auxiliary landmarks, with MediaPipe's settings (`LandmarksSmoothing.Settings`).
///
/// The object scale comes from the *unfiltered* auxiliary landmarks' alignment rectangle
/// (without the 1.25 region scaling). The auxiliary landmarks are filtered even with smoothing
/// off, since they steer the next region. `reset()` forgets everything; `resetAfterLoss()` is what
/// MediaPipe's legacy graph does on a frame without a pose (see there).
public struct PoseLandmarkFiltering: Sendable {
    public var smoothLandmarks: Bool
    private var landmarkVisibility = VisibilitySmoothing()
    private var landmarks = LandmarksSmoothing(.poseLandmarks)
    private var worldVisibility = VisibilitySmoothing()
    private var world = LandmarksSmoothing(.poseWorldLandmarks)
    private var auxiliaryVisibility = VisibilitySmoothing()
    private var auxiliary = LandmarksSmoothing(.poseAuxiliaryLandmarks)

    public init(smoothLandmarks: Bool = true) {
        self.smoothLandmarks = smoothLandmarks
    }

    public mutating func reset() {
        landmarkVisibility.reset(); landmarks.reset()
        worldVisibility.reset(); world.reset()
        auxiliaryVisibility.reset(); auxiliary.reset()
    }

    /// What a frame without a pose resets in MediaPipe's legacy graph (`pose_landmark_filtering.pbtxt`):
    /// only the One-Euro filters that also take the image size (landmarks and auxiliary landmarks),
    /// since a MediaPipe calculator runs only on a frame where one of its inputs has a packet and
    /// resets when its landmarks are empty. The visibility low-pass filters and the world
    /// landmarks' One-Euro filter take the landmarks alone, never run on such a frame and keep their
    /// state: when the person comes back, MediaPipe's visibilities and world landmarks continue from
    /// before the gap (measured on MediaPipe 0.10.14 itself: docs/blazepose.md).
    public mutating func resetAfterLoss() {
        landmarks.reset()
        auxiliary.reset()
    }

    /// Filters one frame's landmarks (normalized), world landmarks and auxiliary landmarks (normalized).
    public mutating func apply(landmarks frameLandmarks: [Landmark], worldLandmarks: [Landmark], auxiliary frameAuxiliary: [Landmark],
                               timestampMicroseconds: Int64, imageSize: ImageSize)
        -> (landmarks: [Landmark], worldLandmarks: [Landmark], auxiliary: [Landmark]) {
        let objectRect = PoseLandmarksToRect.alignmentRect(auxiliary: frameAuxiliary, imageSize: imageSize)
        let objectScale = LandmarksSmoothing.objectScale(of: objectRect, imageSize: imageSize)
        var outLandmarks = frameLandmarks, outWorld = worldLandmarks
        if smoothLandmarks {
            outLandmarks = landmarks.apply(normalized: landmarkVisibility.apply(frameLandmarks), timestampMicroseconds: timestampMicroseconds,
                                           imageSize: imageSize, objectScale: objectScale)
            outWorld = world.apply(worldVisibility.apply(worldLandmarks), timestampMicroseconds: timestampMicroseconds)
        }
        let outAuxiliary = auxiliary.apply(normalized: auxiliaryVisibility.apply(frameAuxiliary), timestampMicroseconds: timestampMicroseconds,
                                           imageSize: imageSize, objectScale: objectScale)
        return (outLandmarks, outWorld, outAuxiliary)
    }
}
