import Dispatch

/// Splitting row loops over threads (the machine has two cores; more parts would not pay).
enum RowSplit {
    /// Runs `body(part)` for `part` in `0..<parts`, concurrently when `parts > 1`.
    /// The parts must write disjoint memory.
    static func run(_ parts: Int, _ body: (Int) -> Void) {
        if parts == 1 { return body(0) }
        // The parts write disjoint rows; the wrapper only tells the compiler so.
        struct Parts: @unchecked Sendable { let body: (Int) -> Void }
        withoutActuallyEscaping(body) { body in
            let shared = Parts(body: body)
            DispatchQueue.concurrentPerform(iterations: parts) { shared.body($0) }
        }
    }

    /// The rows of `count` that part `part` of `parts` handles.
    static func range(_ part: Int, of parts: Int, count: Int) -> Range<Int> {
        (count * part / parts)..<(count * (part + 1) / parts)
    }
}
