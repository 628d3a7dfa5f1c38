import PoseCore
/// The events of ``ActionRecognizer/events(from:)-(Frames)``: predictions and repetitions as
/// they become known, then the summary. Each iteration runs its own ``ActionEngine``.
public struct ActionEventSequence<Frames: AsyncSequence>: AsyncSequence where Frames.Element == PoseFrame {
    public typealias Element = ActionEvent

    let recognizer: ActionRecognizer
    let frames: Frames

    public func makeAsyncIterator() -> Iterator { Iterator(recognizer: recognizer, frames: frames.makeAsyncIterator()) }

    public struct Iterator: AsyncIteratorProtocol {
        let recognizer: ActionRecognizer
        var frames: Frames.AsyncIterator
        var engine: ActionEngine?
        var ready: [ActionEvent] = []
        var finished = false

        /// The next event; nil after the summary.
        public mutating func next() async throws -> ActionEvent? {
            if engine == nil { engine = try recognizer.makeEngine() }
            while ready.isEmpty && !finished {
                if let frame = try await frames.next() {
                    ready = try engine!.process(frame)
                } else {
                    ready = try engine!.finish()
                    finished = true
                }
            }
            return ready.isEmpty ? nil : ready.removeFirst()
        }
    }
}

extension ActionEventSequence: Sendable where Frames: Sendable {}
