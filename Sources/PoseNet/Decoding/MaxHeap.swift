import PoseCore
/// A binary max-heap keyed by a `Float` score: the priority queue root candidates come out of.
///
/// The layout follows TF.js PoseNet's `MaxHeap` exactly (a 0-based array where the parent of `k`
/// is `k / 2` and the children of `k` are `2k` and `2k + 1`), because when two candidates have
/// equal scores the heap's shape decides which is decoded first, and the decoded poses must come
/// out in the same order as TF.js.
struct MaxHeap<Element> {
    private(set) var elements: [Element] = []
    private let score: (Element) -> Float

    init(capacity: Int = 0, score: @escaping (Element) -> Float) {
        self.score = score
        elements.reserveCapacity(capacity)
    }

    var isEmpty: Bool { elements.isEmpty }
    var count: Int { elements.count }
    /// The largest element, if any.
    var max: Element? { elements.first }

    mutating func enqueue(_ element: Element) {
        elements.append(element)
        swim(elements.count - 1)
    }

    /// Removes and returns the largest element (`nil` when empty).
    mutating func dequeue() -> Element? {
        guard !elements.isEmpty else { return nil }
        elements.swapAt(0, elements.count - 1)
        let top = elements.removeLast()
        sink(0)
        return top
    }

    private func less(_ i: Int, _ j: Int) -> Bool { score(elements[i]) < score(elements[j]) }

    private mutating func swim(_ start: Int) {
        var k = start
        while k > 0 && less(k / 2, k) {
            elements.swapAt(k, k / 2)
            k /= 2
        }
    }

    private mutating func sink(_ start: Int) {
        var k = start
        let last = elements.count - 1
        while 2 * k <= last {
            var j = 2 * k
            if j < last && less(j, j + 1) { j += 1 }
            if !less(k, j) { break }
            elements.swapAt(k, j)
            k = j
        }
    }
}
