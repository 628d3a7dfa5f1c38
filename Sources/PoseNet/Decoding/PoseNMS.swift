import PoseCore
/// Part-based non-maximum suppression between poses (PersonLab / TF.js).
///
/// Two detections of the same person share keypoints, so "is keypoint `k` of the new pose within
/// `r` pixels of keypoint `k` of an earlier pose" is the test for both rejecting root candidates
/// and discounting a new pose's score. Distances are in model-input pixels; "within" is `≤ r`.
///
/// The keypoints of the poses decoded so far sit in a uniform grid of cells at least `r` wide, one
/// per part, so a test reads only the 3 × 3 cells around the point instead of every earlier pose:
/// a frame of many people costs the same per pose as a frame of few. The answers are those of
/// comparing against every earlier pose (a keypoint within `r` is never more than one cell away).
struct PoseNMS {
    private let squaredRadius: Double
    private let cellSize: Double
    private let columns: Int, rows: Int
    /// `(part · rows + row) · columns + column` → the newest entry in that cell, or -1.
    private var newestEntry: [Int32]
    /// Per entry: the entry before it in its cell (or -1), and its position.
    private var previousEntry: [Int32] = []
    private var positions: [Point] = []

    /// Poses will be decoded on a grid covering `width × height` model-input pixels (keypoints
    /// may lie outside it: they go into the border cells), at most `maximumPoses` of them.
    init(width: Double, height: Double, squaredRadius: Double, radius: Double, maximumPoses: Int) {
        self.squaredRadius = squaredRadius
        // Cells at least r wide (plus a margin for rounding), and about √poses of them per side
        // so that a crowd spreads over them; the few cells of a small radius stay cheap to clear.
        let perSide = Double(min(max(Int(Double(min(maximumPoses, 4096)).squareRoot().rounded(.up)), 1), 64))
        cellSize = max(radius * 1.01 + 1e-6, max(width, height, 1) / perSide)
        columns = Int(max(width, 0) / cellSize) + 1
        rows = Int(max(height, 0) / cellSize) + 1
        newestEntry = [Int32](repeating: -1, count: PoseNetOutput.keypointCount * rows * columns)
        let expected = PoseNetOutput.keypointCount * min(maximumPoses, 1024)
        previousEntry.reserveCapacity(expected)
        positions.reserveCapacity(expected)
    }

    /// Whether `point`, a position of keypoint `part`, lies within the NMS radius of the same
    /// keypoint of any pose added so far.
    func isClaimed(_ point: Point, part: Int) -> Bool {
        let (column, row) = cell(of: point)
        for y in max(row - 1, 0)...min(row + 1, rows - 1) {
            for x in max(column - 1, 0)...min(column + 1, columns - 1) {
                var entry = newestEntry[(part * rows + y) * columns + x]
                while entry >= 0 {
                    if positions[Int(entry)].squaredDistance(to: point) <= squaredRadius { return true }
                    entry = previousEntry[Int(entry)]
                }
            }
        }
        return false
    }

    /// The pose's score: the sum of the scores of its keypoints that no pose added so far claims,
    /// divided by the number of keypoints (TF.js `getInstanceScore`). A duplicate of an earlier
    /// pose therefore scores near 0, a new person scores its mean keypoint score.
    func instanceScore(_ pose: DecodedKeypoints) -> Double {
        var sum = 0.0
        for part in 0..<PoseNetOutput.keypointCount where !isClaimed(pose.positions[part], part: part) {
            sum += Double(pose.scores[part])
        }
        return sum / Double(PoseNetOutput.keypointCount)
    }

    /// Adds a decoded pose: its keypoints claim their surroundings from now on.
    mutating func add(_ pose: DecodedKeypoints) {
        for part in 0..<PoseNetOutput.keypointCount {
            let (column, row) = cell(of: pose.positions[part])
            let index = (part * rows + row) * columns + column
            previousEntry.append(newestEntry[index])
            newestEntry[index] = Int32(positions.count)
            positions.append(pose.positions[part])
        }
    }

    /// The cell holding `point`, clamped into the grid (clamping never moves two points apart by
    /// a cell, so neighbors stay neighbors).
    private func cell(of point: Point) -> (column: Int, row: Int) {
        func index(_ value: Double, _ count: Int) -> Int {
            let scaled = value / cellSize
            guard scaled >= 0 else { return 0 }   // also NaN
            return scaled >= Double(count - 1) ? count - 1 : Int(scaled)
        }
        return (index(point.x, columns), index(point.y, rows))
    }
}
