import Foundation

/// MediaPipe's `RefineLandmarksFromHeatmapCalculator` (BlazePose: kernel 7, refine when the
/// window's highest confidence is at least 0.5; presence and visibility left as they are).
///
/// For landmark i, the window of `kernelSize²` cells around cell (⌊x·W⌋, ⌊y·H⌋) (truncated toward
/// zero, clipped to the map) of heatmap channel i, confidences sigmoid(logit): x and y become the
/// confidence-weighted mean column and row over W and H (cell indices, no half-cell offset).
/// MediaPipe's bounds check tests the column twice and never the row; kept, so a point just
/// below the map refines from the rows that remain, as MediaPipe's does.
public struct RefineLandmarksFromHeatmap: Sendable {
    public var kernelSize = 7
    public var minimumConfidence: Float = 0.5

    public init(kernelSize: Int = 7, minimumConfidence: Float = 0.5) {
        self.kernelSize = kernelSize
        self.minimumConfidence = minimumConfidence
    }

    /// Refines `landmarks` (normalized to the crop) in place from `heatmap`, `[height, width, channels]`
    /// HWC logits with a channel per landmark.
    public func refine(_ landmarks: inout [Landmark], heatmap: UnsafeBufferPointer<Float>, height: Int, width: Int, channels: Int) throws {
        guard heatmap.count == height * width * channels else {
            throw MediaPipeError.outputSize(name: "heatmap", count: heatmap.count, expected: height * width * channels)
        }
        let offset = (kernelSize - 1) / 2
        for i in landmarks.indices where i < channels {
            let fx = landmarks[i].x * Float(width), fy = landmarks[i].y * Float(height)
            // C++'s float → int conversion truncates; a non-finite or huge value is out of the map anyway.
            guard fx.isFinite, fy.isFinite, abs(fx) < 1e9, abs(fy) < 1e9 else { continue }
            let centerColumn = Int(fx), centerRow = Int(fy)
            if centerColumn < 0 || centerColumn >= width || centerRow < 0 || centerColumn >= height { continue }
            let beginColumn = max(0, centerColumn - offset), endColumn = min(width, centerColumn + offset + 1)
            let beginRow = max(0, centerRow - offset), endRow = min(height, centerRow + offset + 1)
            var sum: Float = 0, weightedColumn: Float = 0, weightedRow: Float = 0, maximum: Float = 0
            if beginRow < endRow {
                for row in beginRow..<endRow {
                    for column in beginColumn..<endColumn {
                        let confidence = TensorsToLandmarks.sigmoid(heatmap[(row * width + column) * channels + i])
                        sum += confidence
                        maximum = max(maximum, confidence)
                        weightedColumn += Float(column) * confidence
                        weightedRow += Float(row) * confidence
                    }
                }
            }
            if maximum >= minimumConfidence && sum > 0 {
                landmarks[i].x = weightedColumn / Float(width) / sum
                landmarks[i].y = weightedRow / Float(height) / sum
            }
        }
    }
}
