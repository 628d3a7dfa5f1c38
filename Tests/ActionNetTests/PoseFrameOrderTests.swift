import Testing
@testable import ActionNet
import PoseCore

/// `PoseFrameOrder`: files are sorted by time, streams must already be in order, and duplicates
/// or times that disagree with frame numbers are refused naming the frames.
struct PoseFrameOrderTests {
    func frame(_ index: Int, _ time: Double) -> PoseFrame { PoseFrame(frame: index, time: time, poses: []) }

    @Test func aFileIsSortedByTime() throws {
        let frames = (0..<20).map { frame($0, Double($0) / 30) }
        var generator = SystemRandomNumberGenerator()
        let shuffled = frames.shuffled(using: &generator)
        #expect(try PoseFrameOrder.sorted(shuffled).map(\.frame) == Array(0..<20))
        #expect(try PoseFrameOrder.sorted(frames.reversed()).map(\.time) == frames.map(\.time))
    }

    @Test(arguments: [
        ([(0, 0.0), (1, 0.1), (1, 0.1)], "poses: frame 1 appears twice"),
        ([(0, 0.0), (1, 0.1), (2, 0.1)], "poses: frames 1 and 2 have the same time 0.1 s"),
        ([(0, 0.0), (2, 0.1), (1, 0.2)], "poses: frame 1 has a later time (0.2 s) than frame 2 (0.1 s); frame numbers and times disagree"),
    ])
    func duplicatesAreRefused(_ list: [(Int, Double)], _ message: String) {
        let frames = list.map { frame($0.0, $0.1) }
        #expect(throws: PoseDataError.unorderedPoses(String(message.dropFirst("poses: ".count)))) { try PoseFrameOrder.sorted(frames) }
        #expect((try? PoseFrameOrder.sorted(frames.reversed())) == nil)
    }

    @Test func aStreamMustBeInOrder() throws {
        var order = PoseFrameOrder()
        for i in 0..<3 { _ = try order.admit(frame(i, Double(i))) }
        #expect(throws: PoseDataError.self) { _ = try order.admit(frame(1, 1)) }
        var other = PoseFrameOrder()
        _ = try other.admit(frame(5, 5))
        do {
            _ = try other.admit(frame(4, 4))
            Issue.record("a step back in time must be refused")
        } catch {
            #expect("\(error)".contains("frame 4") && "\(error)".contains("frame 5"), "\(error)")
        }
    }
}
