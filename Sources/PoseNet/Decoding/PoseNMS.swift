import PoseCore
/// Part-based non-maximum suppression between poses (PersonLab / TF.js).
///
/// Two detections of the same person share keypoints, so "is keypoint `k` of the new pose within
/// `r` pixels of keypoint `k` of an earlier pose" is the test for both rejecting root candidates
/// and discounting a new pose's score. Distances are in model-input pixels; "within" is `≤ r`.
///
/// While few poses are decoded a test compares with each of them. Past ``posesCheckedOneByOne``
/// their keypoints go into a uniform grid of cells at least `r` wide, one per part, and a test
/// reads only the cells the square of side `2r` around the point touches (at most 2 × 2): a frame
/// of many people costs the same per pose as a frame of few. Either way the answers are those of
/// comparing with every earlier pose (a keypoint within `r` lies in that square).
struct PoseNMS {
    /// Poses compared one by one before the grid is built (below this the grid's bookkeeping
    /// costs more than the comparisons it saves).
    static let posesCheckedOneByOne = 24

    private let squaredRadius: Double
    /// The radius and a margin for rounding: a keypoint within the radius is within this on each axis.
    private let reach: Double
    /// 1 / the cell width (a multiplication per lookup instead of a division).
    private let cellsPerPixel: Double
    private let columns: Int, rows: Int
    /// Every added keypoint, pose after pose, 17 each in ``BodyPart`` order.
    private var positions: [Point] = []
    /// Once built: `(part · rows + row) · columns + column` → the newest entry of `positions` in
    /// that cell, or -1; and per entry the entry before it in its cell, or -1.
    private var newestEntry: [Int] = []
    private var previousEntry: [Int] = []

    /// Poses will be decoded on a grid covering `width × height` model-input pixels (keypoints
    /// may lie outside it: they go into the border cells), at most `maximumPoses` of them.
    init(width: Double, height: Double, squaredRadius: Double, radius: Double, maximumPoses: Int) {
        self.squaredRadius = squaredRadius
        reach = radius * 1.01 + 1e-6
        // About √poses cells per side, so that a crowd spreads over them.
        let perSide = Double(min(max(Int(Double(min(maximumPoses, 4096)).squareRoot().rounded(.up)), 1), 64))
        let cellSize = max(reach, max(width, height, 1) / perSide)
        cellsPerPixel = 1 / cellSize
        columns = Int(max(width, 0) / cellSize) + 1
        rows = Int(max(height, 0) / cellSize) + 1
        positions.reserveCapacity(PoseNetOutput.keypointCount * min(maximumPoses, 1024))
    }

    /// Whether `point`, a position of keypoint `part`, lies within the NMS radius of the same
    /// keypoint of any pose added so far.
    func isClaimed(_ point: Point, part: Int) -> Bool {
        guard !newestEntry.isEmpty else {
            for entry in stride(from: part, to: positions.count, by: PoseNetOutput.keypointCount)
            where positions[entry].squaredDistance(to: point) <= squaredRadius {
                return true
            }
            return false
        }
        // The cells the square of side 2r around the point touches.
        let first = cell(of: Point(x: point.x - reach, y: point.y - reach))
        let last = cell(of: Point(x: point.x + reach, y: point.y + reach))
        for y in first.row...last.row {
            for x in first.column...last.column {
                var entry = newestEntry[(part * rows + y) * columns + x]
                while entry >= 0 {
                    if positions[entry].squaredDistance(to: point) <= squaredRadius { return true }
                    entry = previousEntry[entry]
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
        let start = positions.count
        positions += pose.positions
        if newestEntry.isEmpty {
            guard positions.count > Self.posesCheckedOneByOne * PoseNetOutput.keypointCount else { return }
            newestEntry = [Int](repeating: -1, count: PoseNetOutput.keypointCount * rows * columns)
            previousEntry.reserveCapacity(positions.capacity)
            for entry in 0..<positions.count { insert(entry) }
        } else {
            for entry in start..<positions.count { insert(entry) }
        }
    }

    /// Puts `positions[entry]` into its part's cell.
    private mutating func insert(_ entry: Int) {
        let (column, row) = cell(of: positions[entry])
        let index = ((entry % PoseNetOutput.keypointCount) * rows + row) * columns + column
        previousEntry.append(newestEntry[index])
        newestEntry[index] = entry
    }

    /// The cell holding `point`, clamped into the grid (monotone in each coordinate, so a square's
    /// corners bound the cells it touches).
    private func cell(of point: Point) -> (column: Int, row: Int) {
        func index(_ value: Double, _ count: Int) -> Int {
            let scaled = value * cellsPerPixel
            guard scaled >= 0 else { return 0 }   // also NaN
            return scaled >= Double(count - 1) ? count - 1 : Int(scaled)
        }
        return (index(point.x, columns), index(point.y, rows))
    }
}
