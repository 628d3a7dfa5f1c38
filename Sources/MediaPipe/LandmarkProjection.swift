import Foundation

/// MediaPipe's landmark inverse projection: `LandmarkLetterboxRemovalCalculator`, then
/// `LandmarkProjectionCalculator` (crop → image), and `WorldLandmarkProjectionCalculator`
/// (the crop's rotation applied to world landmarks). Float32 as MediaPipe computes it.
public enum LandmarkProjection {
    /// Landmarks normalized to the (letterboxed) crop → normalized to the image:
    /// x′ = (cos r·(x−½) − sin r·(y−½))·w + x_c, y′ = (sin r·(x−½) + cos r·(y−½))·h + y_c, z′ = z·w.
    public static func project(_ landmarks: [Landmark], padding: LetterboxPadding = .none, roi: NormalizedRect) -> [Landmark] {
        let angle = roi.rotation
        let cosine = cosf(angle), sine = sinf(angle)
        return landmarks.map { landmark in
            var out = landmark
            let unpaddedX = padding.unpaddedX(landmark.x), unpaddedY = padding.unpaddedY(landmark.y)
            let unpaddedZ = padding.unpaddedWidth(landmark.z)
            let x = unpaddedX - 0.5, y = unpaddedY - 0.5
            let rotatedX = cosine * x - sine * y
            let rotatedY = sine * x + cosine * y
            out.x = rotatedX * roi.width + roi.xCenter
            out.y = rotatedY * roi.height + roi.yCenter
            out.z = unpaddedZ * roi.width
            return out
        }
    }

    /// World landmarks rotated by the crop's rotation about the origin (z unchanged).
    public static func rotateWorld(_ landmarks: [Landmark], roi: NormalizedRect) -> [Landmark] {
        let cosine = cosf(roi.rotation), sine = sinf(roi.rotation)
        return landmarks.map { landmark in
            var out = landmark
            out.x = cosine * landmark.x - sine * landmark.y
            out.y = sine * landmark.x + cosine * landmark.y
            return out
        }
    }
}
