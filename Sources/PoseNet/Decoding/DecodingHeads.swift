import PoseCore
/// A read-only view of one head inside the packed heads (``PoseNetOutput/heads``, `[H, W, 115]`):
/// `view[y, x, c]` is channel `c` of the head, that is channel `channels.lowerBound + c` of cell
/// `(y, x)`, with no bounds checks.
///
/// Only built by ``PoseNetOutput/withHeads(_:)``, whose initializer has validated the shape;
/// callers keep `y`, `x` inside the grid (``DecodingHeads/nearestCell(to:)`` clamps) and `c`
/// inside the head's channels.
struct HeadView {
    /// The head's channel 0 in cell (0, 0).
    let base: UnsafePointer<Float>
    let width: Int
    /// Floats from one cell to the next: ``PoseNetOutput/channelCount``.
    let cellStride: Int

    init(_ packed: UnsafeBufferPointer<Float>, width: Int, channels: Range<Int>) {
        base = packed.baseAddress! + channels.lowerBound
        self.width = width
        cellStride = PoseNetOutput.channelCount
    }

    @inline(__always) subscript(y: Int, x: Int, c: Int) -> Float {
        base[(y &* width &+ x) &* cellStride &+ c]
    }
}

/// A grid cell: row `y`, column `x`.
struct GridCell: Equatable {
    var y: Int
    var x: Int
}

/// The four heads plus grid geometry, as the decoding steps see them.
struct DecodingHeads {
    let scores: HeadView
    let offsets: HeadView
    let displacementsFwd: HeadView
    let displacementsBwd: HeadView
    let height: Int
    let width: Int
    let outputStride: Double

    /// The grid cell nearest a model-input position: `round(p / outputStride)` (JavaScript
    /// `Math.round`, halves up), clamped into the grid. NaN maps to 0 so that no input can index
    /// outside the heads.
    @inline(__always) func nearestCell(to point: Point) -> GridCell {
        GridCell(y: DecodingHeads.clampedRound(point.y / outputStride, upperBound: height - 1),
                 x: DecodingHeads.clampedRound(point.x / outputStride, upperBound: width - 1))
    }

    @inline(__always) static func clampedRound(_ value: Double, upperBound: Int) -> Int {
        var r = value.rounded(.down)
        if value - r >= 0.5 { r += 1 }
        if !(r >= 0) { return 0 }          // also catches NaN
        if r >= Double(upperBound) { return upperBound }
        return Int(r)
    }

    /// Where keypoint `part` lies according to the short-range offset at `cell`:
    /// the cell's model-input position plus the offset vector.
    @inline(__always) func offsetPosition(of part: Int, at cell: GridCell) -> Point {
        Point(x: Double(cell.x) * outputStride + Double(offsets[cell.y, cell.x, part + PoseNetOutput.keypointCount]),
              y: Double(cell.y) * outputStride + Double(offsets[cell.y, cell.x, part]))
    }

    /// The displacement vector of tree edge `edge` stored at `cell` of `field`.
    @inline(__always) func displacement(_ field: HeadView, edge: Int, at cell: GridCell) -> Point {
        Point(x: Double(field[cell.y, cell.x, edge + PoseNetOutput.edgeCount]),
              y: Double(field[cell.y, cell.x, edge]))
    }
}
