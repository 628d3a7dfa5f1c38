import Foundation
import MediaPipe
import ModelGraph
import PoseKit
import Testing
import TestSupport

/// Hands on the model-agnostic stream: the next frame read while one is processed, late frames
/// dropped with `--realtime`, and `pose --hands` seeding hands from its own body model's poses.
@Suite(.serialized) struct HandsStreamTests {
    /// The stream reads frame n + 1 while frame n is processed (the hand stream used to read a
    /// frame only once the last was delivered): a palm detector whose pass on frame n waits until
    /// frame n + 1 has been read, on frames in memory that count their reads. No clock decides:
    /// the pass waits for the read itself, however loaded the machine; a stream that did not read
    /// ahead would wait for ever, which the hang guard turns into a failure.
    @Test func handsStreamReadsTheNextFrameWhileOneIsProcessed() async throws {
        let reads = EventCounter()
        let frameCount = 5
        let palms = WaitingModel(reads: reads, frameCount: frameCount, outputs: [2016 * 18, 2016])
        let detector = try HandDetector(palmDetector: palms, landmarker: NaNLandmarker())
        #expect(detector.frameDependence == .carriesState)
        let frames = CountedFrames(frames: RepeatedFrames(image: RGBImage(width: 32, height: 24), count: frameCount), reads: reads)
        var delivered = 0
        for try await detected in detector.hands(from: frames) {
            #expect(detected.hands.isEmpty && detected.index == delivered)
            delivered += 1
        }
        #expect(delivered == frameCount)
        #expect(palms.timedOut == [], "frames whose pass waited in vain for the next frame to be read: \(palms.timedOut)")
    }

    /// `hands --realtime` drops the frames that arrive while one is processed, accounts for each,
    /// and keeps the delivered frames in order with the newest never dropped (as `pose --realtime`,
    /// PoseCommandTests): 300 tiny frames arrive at once while each palm pass takes milliseconds.
    @Test func realtimeDropsLateFramesAndSaysHowMany() throws {
        let frameCount = 300
        let result = try CLI.run(["hands", "--realtime", "--hand-sources", "palms", "--threads", "1", "-"],
                                 stdin: SyntheticY4M.stream(frames: frameCount))
        try PoseCommandTests.expectLateFramesDropped(result, frameCount: frameCount)
    }

    /// `pose --hands` with the default sources runs the body model once and seeds the hands from
    /// its poses: on `mpii_005808361`, where the palm detector finds no hand and every hand comes
    /// through the body, the hands it writes (to people and the frame) are exactly `hands`' (whose
    /// detector runs PoseNet with the same defaults itself).
    @Test func poseWithHandsSeedsFromItsOwnPoses() throws {
        let path = CLI.shared.appendingPathComponent("media/images/mpii_005808361.ppm").path
        let withHands = try CLI.run(["pose", "--hands", path])
        let alone = try CLI.run(["hands", path])
        let palmsOnly = try CLI.run(["hands", "--hand-sources", "palms", path])
        #expect(withHands.status == 0 && alone.status == 0 && palmsOnly.status == 0, "stderr: \(withHands.stderr)")
        func firstLine(_ result: CLI.Result) throws -> [String: Any] {
            let line = try #require(result.lines.first)
            return try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
        let poseLine = try firstLine(withHands)
        let poses = try #require(poseLine["poses"] as? [[String: Any]])
        let written = try poses.flatMap { try #require($0["hands"] as? [[String: Any]]) } + (poseLine["hands"] as? [[String: Any]] ?? [])
        let expected = try #require(try firstLine(alone)["hands"] as? [[String: Any]])
        let palms = try #require(try firstLine(palmsOnly)["hands"] as? [Any])
        #expect(palms.isEmpty, "the palm detector finds none here")
        #expect(!expected.isEmpty, "hands through the body")
        func key(_ hand: [String: Any]) -> String {
            String(decoding: try! JSONSerialization.data(withJSONObject: hand, options: [.sortedKeys]), as: UTF8.self)
        }
        #expect(written.map(key).sorted() == expected.map(key).sorted())
    }
}

/// A palm detector (NaN outputs: no palm) whose pass on frame n waits until frame n + 1 has been
/// read (at most the hang guard); it remembers the passes that waited in vain.
final class WaitingModel: MediaPipeModel, @unchecked Sendable {
    let reads: EventCounter
    let frameCount: Int
    let nan: NaNLandmarker
    private(set) var timedOut: [Int] = []
    private var passes = 0
    init(reads: EventCounter, frameCount: Int, outputs: [Int]) {
        self.reads = reads
        self.frameCount = frameCount
        nan = NaNLandmarker(outputs: outputs)
    }
    func run(_ input: Tensor) throws -> [Tensor] {
        let frame = passes
        passes += 1
        if !reads.waitBlocking(forAtLeast: min(frame + 2, frameCount)) { timedOut.append(frame) }
        return try nan.run(input)
    }
}

/// Frames that count how many have been read.
struct CountedFrames: AsyncSequence, Sendable {
    typealias Element = VideoFrame
    let frames: RepeatedFrames
    let reads: EventCounter
    func makeAsyncIterator() -> Iterator { Iterator(frames: frames.makeAsyncIterator(), reads: reads) }
    struct Iterator: AsyncIteratorProtocol {
        var frames: RepeatedFrames.Iterator
        let reads: EventCounter
        mutating func next() async throws -> VideoFrame? {
            let frame = try await frames.next()
            if frame != nil { reads.add() }
            return frame
        }
    }
}
