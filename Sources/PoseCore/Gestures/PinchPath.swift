/// The path a pinch draws, as the sample's `drawPath`: strokes of the tips' midpoints delivered
/// by ``HandGestureProcessor`` while pinched; a stroke ends when the hand opens (or is lost).
///
/// Memory is bounded: past ``maximumPoints`` points the oldest strokes (then the oldest points)
/// are dropped, so an endless stream keeps the most recent drawing.
public struct PinchPath: Sendable, Equatable {
    /// Finished strokes and, last, the one being drawn (when a pinch is on), oldest first.
    public private(set) var strokes: [[Point]] = []
    /// Whether the last stroke is still being drawn.
    public private(set) var drawing = false
    /// At most this many points are kept in all.
    public let maximumPoints: Int

    public init(maximumPoints: Int = 10_000) { self.maximumPoints = max(1, maximumPoints) }

    /// Adds one frame's update: its path points to the open stroke (opening one), then ends the
    /// stroke if the update says so.
    public mutating func append(_ update: HandGestureProcessor.Update) {
        if !update.pathPoints.isEmpty {
            if !drawing { strokes.append([]); drawing = true }
            strokes[strokes.count - 1] += update.pathPoints
        }
        if update.strokeEnded { drawing = false }
        var count = strokes.reduce(0) { $0 + $1.count }
        while count > maximumPoints, !strokes.isEmpty {
            let excess = count - maximumPoints
            if strokes[0].count <= excess, strokes.count > 1 {
                count -= strokes.removeFirst().count
            } else {
                let dropped = min(excess, strokes[0].count)
                strokes[0].removeFirst(dropped)
                count -= dropped
                if strokes[0].isEmpty { strokes.removeFirst(); if strokes.isEmpty { drawing = false } }
            }
        }
    }

    /// Clears the drawing (the sample's double tap).
    public mutating func clear() {
        strokes.removeAll()
        drawing = false
    }
}
