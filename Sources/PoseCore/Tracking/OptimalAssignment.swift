/// The assignment of rows to columns with the least total cost (the Hungarian method, in the
/// shortest-augmenting-path form with row and column potentials; O(rows² · columns)).
///
/// Pairs at or above `forbidden` are never returned: the cost of such a pair counts as so large
/// that the method first links as many allowed pairs as it can and only then minimizes their
/// total cost. A greedy best-pair-first linking can take a pair that leaves two others unlinked;
/// this cannot.
///
/// - Parameters:
///   - cost: `rows × columns` costs, row-major.
///   - forbidden: a cost at or above it forbids the pair.
/// - Returns: for each row, its column, or nil when it stays unlinked.
func optimalAssignment(rows: Int, columns: Int, cost: [Double], forbidden: Double) -> [Int?] {
    precondition(cost.count == rows * columns, "optimalAssignment: \(cost.count) costs for \(rows)x\(columns)")
    guard rows > 0, columns > 0 else { return Array(repeating: nil, count: rows) }
    // The method wants rows ≤ columns; solve the transpose otherwise.
    if rows > columns {
        var transposed = [Double](repeating: 0, count: cost.count)
        for r in 0..<rows { for c in 0..<columns { transposed[c * rows + r] = cost[r * columns + c] } }
        let rowOfColumn = optimalAssignment(rows: columns, columns: rows, cost: transposed, forbidden: forbidden)
        var columnOfRow = [Int?](repeating: nil, count: rows)
        for (c, r) in rowOfColumn.enumerated() { if let r { columnOfRow[r] = c } }
        return columnOfRow
    }
    // A forbidden pair costs more than any set of allowed ones, so cardinality comes first.
    let penalty = Double(rows + 1) * (cost.lazy.filter { $0 < forbidden }.map(abs).max() ?? 1) * 2 + 1
    func c(_ r: Int, _ col: Int) -> Double {
        let x = cost[r * columns + col]
        return x >= forbidden || !x.isFinite ? penalty : x
    }
    // Index 0 of `rowOfColumn` and `way` is the virtual start column; rows and columns are 1-based.
    var rowPotential = [Double](repeating: 0, count: rows + 1)
    var columnPotential = [Double](repeating: 0, count: columns + 1)
    var rowOfColumn = [Int](repeating: 0, count: columns + 1)
    var way = [Int](repeating: 0, count: columns + 1)
    var minimum = [Double](repeating: .infinity, count: columns + 1)
    var used = [Bool](repeating: false, count: columns + 1)
    for row in 1...rows {
        rowOfColumn[0] = row
        var column0 = 0
        for j in 0...columns { minimum[j] = .infinity; used[j] = false }
        repeat {
            used[column0] = true
            let row0 = rowOfColumn[column0]
            var delta = Double.infinity, column1 = 0
            for j in 1...columns where !used[j] {
                let reduced = c(row0 - 1, j - 1) - rowPotential[row0] - columnPotential[j]
                if reduced < minimum[j] { minimum[j] = reduced; way[j] = column0 }
                if minimum[j] < delta { delta = minimum[j]; column1 = j }
            }
            for j in 0...columns {
                if used[j] {
                    rowPotential[rowOfColumn[j]] += delta
                    columnPotential[j] -= delta
                } else {
                    minimum[j] -= delta
                }
            }
            column0 = column1
        } while rowOfColumn[column0] != 0
        repeat {
            let column1 = way[column0]
            rowOfColumn[column0] = rowOfColumn[column1]
            column0 = column1
        } while column0 != 0
    }
    var columnOfRow = [Int?](repeating: nil, count: rows)
    for j in 1...columns where rowOfColumn[j] != 0 {
        let r = rowOfColumn[j] - 1
        if cost[r * columns + j - 1] < forbidden && cost[r * columns + j - 1].isFinite { columnOfRow[r] = j - 1 }
    }
    return columnOfRow
}
