import Foundation
import FrameIO
import PoseCore
import Streaming
import Testing

/// A model that carries state from one video frame to the next: each video frame's pose sits
/// where the previous frame's was, moved by one pixel, and it fails the frame when frames come
/// out of order or overlap; still images are taken on their own (x = 0).
final class DriftingModel: PoseFrameModel, @unchecked Sendable {
    let threads: Int
    let frameDependence: FrameDependence
    let smoothsKeypoints: Bool
    private let lock = NSLock()
    private(set) var workersMade: [(threads: Int, smoothing: Bool)] = []

    init(threads: Int, dependence: FrameDependence, smoothsKeypoints: Bool) {
        self.threads = threads
        frameDependence = dependence
        self.smoothsKeypoints = smoothsKeypoints
    }

    func makeFrameWorker(threads: Int, smoothing: Bool) throws -> any PoseFrameWorker {
        lock.lock(); defer { lock.unlock() }
        workersMade.append((threads, smoothing))
        return Worker()
    }

    enum Failure: Error { case outOfOrder(expected: Int, got: Int), overlapping }

    final class Worker: PoseFrameWorker, @unchecked Sendable {
        private var lastIndex: Int?
        private var x = 0.0
        private var running = false

        func poses(in frame: VideoFrame) throws -> [Pose] {
            guard !running else { throw Failure.overlapping }
            running = true
            defer { running = false }
            if frame.isStillImage { return [DriftingModel.pose(x: 0)] }
            if let lastIndex, frame.index != lastIndex + 1 { throw Failure.outOfOrder(expected: lastIndex + 1, got: frame.index) }
            lastIndex = frame.index
            // Long enough that frames would overlap if the schedule let them.
            Thread.sleep(forTimeInterval: 0.002)
            x += 1
            return [DriftingModel.pose(x: 100 + 3 * x)]
        }
    }

    /// A confident COCO-17 pose around (x, 100), keypoints spread so the tracker sees a person.
    static func pose(x: Double) -> Pose {
        let keypoints = (0..<17).map { Keypoint(position: Point(x: x + Double($0 % 4) * 10, y: 100 + Double($0) * 12), score: 0.9) }
        return Pose(keypoints: keypoints, score: 0.9)
    }
}

/// Frames made in memory: video frames `0..<count` at 30 frames/s, or still images.
struct SyntheticFrames: AsyncSequence, Sendable {
    typealias Element = VideoFrame
    let count: Int
    var still = false

    struct AsyncIterator: AsyncIteratorProtocol {
        let frames: SyntheticFrames
        var index = 0
        mutating func next() async throws -> VideoFrame? {
            guard index < frames.count else { return nil }
            defer { index += 1 }
            let image = RGBImage(width: 8, height: 8)
            return frames.still ? VideoFrame(image: image, index: index)
                : VideoFrame(image: image, index: index, time: Double(index) / 30, frameRate: Ratio(30, 1), isStillImage: false)
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(frames: self) }
}

@Suite struct StatefulStreamTests {
    @Test func aModelThatCarriesStateRunsItsFramesInOrderOnOneWorker() async throws {
        let model = DriftingModel(threads: 4, dependence: .carriesState, smoothsKeypoints: true)
        var xs: [Double] = [], ids: Set<Int> = []
        // Asking for 4 frames in flight: a stateful model still gets one worker on all 4 threads.
        for try await detected in model.poses(from: SyntheticFrames(count: 40), framesInFlight: 4) {
            let pose = try #require(detected.poses.first)
            xs.append(pose.keypoints[0].position.x)
            ids.insert(try #require(pose.id))
        }
        #expect(model.workersMade.count == 1)
        #expect(model.workersMade.first?.threads == 4)
        // The model smooths itself: it is told to, and the stream's own smoother stays off, so
        // the positions are exactly the model's (PoseKit's One-Euro filter would lag them).
        #expect(model.workersMade.first?.smoothing == true)
        #expect(xs == (1...40).map { 100 + 3 * Double($0) })
        #expect(ids == [1])
    }

    @Test func withoutItsOwnSmoothingTheStreamSmoothsAndWorkersGetTheChoice() async throws {
        let model = DriftingModel(threads: 2, dependence: .carriesState, smoothsKeypoints: false)
        var xs: [Double] = []
        for try await detected in model.poses(from: SyntheticFrames(count: 30), smoothing: true) {
            xs.append(try #require(detected.poses.first).keypoints[0].position.x)
        }
        #expect(xs.count == 30)
        // PoseKit's One-Euro filter lags a steadily moving point behind the raw positions.
        #expect(xs.last! < 100 + 3 * 30 - 0.01)
    }

    @Test func independentFramesGetOneWorkerPerFrameInFlight() async throws {
        let model = DriftingModel(threads: 5, dependence: .independent, smoothsKeypoints: false)
        // Each worker sees every second frame: the drifting worker refuses that, so this only
        // checks the workers made (their frames are not run: the stream ends before the first).
        let sequence = model.poses(from: SyntheticFrames(count: 0), framesInFlight: 2)
        for try await _ in sequence {}
        #expect(model.workersMade.map(\.threads) == [3, 2])
        #expect(FramesInFlight.threadShares(frames: 2, threads: 5) == [3, 2])
        #expect(FramesInFlight.count(requested: nil, threads: 32) == FramesInFlight.maximum)
    }

    @Test func stillImagesAreTakenOnTheirOwnWithoutIds() async throws {
        let model = DriftingModel(threads: 1, dependence: .carriesState, smoothsKeypoints: true)
        var count = 0
        for try await detected in model.poses(from: SyntheticFrames(count: 3, still: true)) {
            let pose = try #require(detected.poses.first)
            #expect(pose.id == nil && pose.keypoints[0].position.x == 0)
            count += 1
        }
        #expect(count == 3)
    }
}

@Suite struct ImagesAsVideoTests {
    /// Three PPM files, and the same three images as one PNM stream: frames 0, 1, 2 of a video
    /// at the given rate, timed as a Y4M reader times them, each naming its file.
    @Test func imagesBecomeFramesOfOneVideo() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-images-as-video-\(getpid())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var paths: [String] = [], stream: [UInt8] = []
        for i in 0..<3 {
            var image = RGBImage(width: 4, height: 2)
            image.pixels[0] = UInt8(10 * i)
            let bytes = PPMWriter.encode(image)
            let path = folder.appendingPathComponent("f\(i).ppm").path
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            paths.append(path)
            stream += bytes
        }
        let streamPath = folder.appendingPathComponent("all.ppm").path
        try Data(stream).write(to: URL(fileURLWithPath: streamPath))
        for (inputs, rate) in [(paths, Ratio(30, 1)), ([streamPath], Ratio(25, 2))] {
            let video = ImagesAsVideo(paths: inputs, frameRate: rate)
            var frames: [VideoFrame] = []
            for try await frame in video { frames.append(frame) }
            #expect(frames.map(\.index) == [0, 1, 2])
            #expect(frames.allSatisfy { !$0.isStillImage && $0.frameRate == rate })
            #expect(frames.map(\.time) == [0, 1, 2].map { Double($0) * Double(rate.denominator) / Double(rate.numerator) })
            #expect(frames.map { $0.rgb().pixels[0] } == [0, 10, 20])
            #expect((0..<3).map { video.inputs.input(ofFrame: $0) } == (inputs.count == 3 ? paths : [streamPath, streamPath, streamPath]))
        }
    }

    @Test func aMissingInputEndsTheVideoWithAnErrorNamingIt() async throws {
        let video = ImagesAsVideo(paths: ["/nonexistent/posekit-missing.ppm"], frameRate: Ratio(30, 1))
        await #expect { for try await _ in video {} } throws: { "\($0.localizedDescription)".contains("posekit-missing.ppm") }
    }
}
