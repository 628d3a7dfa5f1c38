import Detectors
import PoseCore
import Foundation
import FrameIO
import Testing
import TestSupport
import Tensor
@testable import PoseNet

/// `PoseDetector(model:)`, `poses(in:)` and `poses(from:)` against the low-level pipeline the
/// `posekit` command assembles by hand, and the async stream against the synchronous calls.
struct OneCallDetectorTests {
    static let imagePath = sharedFolder().appendingPathComponent("media/images/coco_000000000785.ppm").path
    /// A small input keeps the network passes quick.
    static let configuration = PoseDetector.Configuration(inputSize: 257)

    @Test func defaultsAreTheCommandsDefaults() {
        let defaults = PoseDetector.Configuration.default
        #expect(defaults.inputSize == 513 && defaults.outputStride == 16 && defaults.geometry == .letterbox)
        #expect(defaults.threads == nil && defaults.resolvedThreads == Parallelism.defaultThreads)
        #expect(defaults.decoding.mode == .multi && !defaults.decoding.flipAveraging)
        #expect(defaults.decoding.parameters == MultiPoseParameters(maxPoses: 20, minPoseScore: 0.05))   // COCO's 20 detections per image
        #expect(PoseModel.default == .mobilenet075 && PoseModel.mobilenet050.description == "mobilenet050")
    }

    /// The one call equals the hand-assembled pipeline: the reader writes the letterboxed
    /// network input, the low-level detector decodes with the inverse scale.
    @Test func posesInAnImageEqualTheHandAssembledPipeline() throws {
        let detector = try PoseDetector(model: .mobilenet075, configuration: Self.configuration)
        let poses = try detector.poses(in: RGBImage(contentsOfFile: Self.imagePath))

        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let network = try PoseNetModel(bundle: bundle, inputSize: 257, outputStride: 16, threads: Parallelism.defaultThreads)
        let lowLevel = PoseDetector(model: network, decoding: PoseDecoding(parameters: MultiPoseParameters(maxPoses: 20, minPoseScore: 0.05)))
        let reader = try FrameReader(path: Self.imagePath)
        #expect(try reader.advance())
        let scales = network.input.withUnsafeMutableBufferPointer {
            reader.writeNetworkInput(size: 257, geometry: .letterbox, scaling: network.inputScaling, into: $0)
        }
        let placement = InputPlacement(imageWidth: reader.width, imageHeight: reader.height, inputSize: 257, fit: .letterbox)
        #expect((scales.scaleX, scales.scaleY) == (placement.inputPerImagePixelX, placement.inputPerImagePixelY))
        let expected = try lowLevel.detect(mappingTo: placement.inputToImage,
                                           imageSize: (reader.width, reader.height), padding: scales.padding)
        #expect(scales.padding == PaddingBand(axis: .rows, range: 171..<257), "640x425 at 257: the rows below the frame")
        #expect(!expected.isEmpty)
        #expect(poses == expected)
        #expect(poses.allSatisfy { $0.score >= 0.05 })
        // Frame pixels: on the 640x425 image give or take an output cell (keypoints are not
        // clamped: 16 input pixels are 40 image pixels here), and not squeezed into the 257-pixel input.
        let xs = poses.flatMap { $0.keypoints.map(\.position.x) }, ys = poses.flatMap { $0.keypoints.map(\.position.y) }
        #expect(xs.allSatisfy { (-40...679).contains($0) } && ys.allSatisfy { (-40...464).contains($0) })
        #expect(xs.max()! > 257)
        #expect(try detector.poses(inImageAtPath: Self.imagePath) == poses)
    }

    @Test func aMissingBundleIsAClearError() throws {
        let missing = URL(fileURLWithPath: "/nonexistent/weights.pkw")
        let error = #expect(throws: (any Error).self) { try PoseDetector(model: .bundle(missing)) }
        #expect("\(error!)".contains("/nonexistent/weights.pkw"))
        var bad = PoseDetector.Configuration()
        bad.decoding.parameters.minPoseScore = 2
        #expect(throws: PoseDecodingError.self) { try PoseDetector(model: .mobilenet050, configuration: bad) }
    }

    /// Frames shifted a little each time, so that tracking and smoothing have work to do.
    static func makeClip(frames: Int) throws -> [UInt8] {
        let image = try RGBImage(contentsOfFile: imagePath)
        let sink = ByteSink()
        let writer = Y4MWriter(sink: sink, width: image.width, height: image.height, frameRate: Ratio(30, 1))
        for k in 0..<frames {
            var shifted = RGBImage(width: image.width, height: image.height)
            for y in 0..<image.height {
                for x in 0..<image.width { shifted[x, y] = image[max(0, x - 3 * k), y] }
            }
            try writer.write(shifted)
        }
        try sink.flush()
        return sink.bytes
    }

    /// The async stream gives what the synchronous calls plus `PoseStream` give, frame by frame.
    @Test func theAsyncStreamEqualsTheSyncCalls() async throws {
        let bytes = try Self.makeClip(frames: 4)
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-onecall-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let path = dir.appendingPathComponent("clip.y4m").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let detector = try PoseDetector(model: .mobilenet075, configuration: Self.configuration)

        var results: [PoseFrame] = []
        for try await detected in detector.poses(from: MediaFrames(path: path)) { results.append(detected.poseFrame()) }

        let reader = try Y4MReader(source: ByteSource(bytes: bytes))
        var stream = PoseStream(smoothing: true)
        var expected: [PoseFrame] = []
        while let yuv = try reader.next() {
            let found = try detector.poses(in: VideoFrame(yuv: yuv, conversion: reader.defaultConversion))
            let tracked = stream.process(found, frameIndex: yuv.index, time: yuv.timestamp)
            expected.append(PoseFrame(frame: yuv.index, time: PoseStream.trackingTime(frameIndex: yuv.index, time: yuv.timestamp),
                                      width: yuv.width, height: yuv.height, poses: tracked.map(\.pose)))
        }
        #expect(results.count == 4)
        #expect(results == expected)
        #expect(results.allSatisfy { !$0.poses.isEmpty })
        #expect(results.last!.poses.contains { $0.id == 1 })   // the same people keep their identities
        #expect(results.allSatisfy { $0.poses.allSatisfy { $0.id != nil } })

        // Unsmoothed, the stream's poses are the per-frame detections that are people: the tracker
        // leaves out weak duplicates (this picture has one: a second pose on the same woman).
        var raw: [[Pose]] = []
        for try await detected in detector.poses(from: MediaFrames(path: path), smoothing: false) { raw.append(detected.poses) }
        let rereader = try Y4MReader(source: ByteSource(bytes: bytes))
        var perFrame: [[Pose]] = []
        var tracker = try PoseTracker()
        while let yuv = try rereader.next() {
            let found = try detector.poses(in: VideoFrame(yuv: yuv, conversion: rereader.defaultConversion))
            let people = tracker.update(poses: found, time: PoseStream.trackingTime(frameIndex: yuv.index, time: yuv.timestamp))
            #expect(people.allSatisfy { person in found.contains(person.pose) })
            perFrame.append(people.map { var pose = $0.pose; pose.id = $0.trackID; return pose })
        }
        #expect(raw == perFrame)
    }

    /// Collects `poses(from:)` over `bytes` written to a file: the frames, then the error that ended them (if any).
    static func collect(_ detector: PoseDetector, _ bytes: [UInt8], framesInFlight: Int) async throws -> ([PoseFrame], String?) {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("posekit-inflight-\(UUID().uuidString).y4m").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        var results: [PoseFrame] = []
        do {
            for try await detected in detector.poses(from: MediaFrames(path: path), framesInFlight: framesInFlight) {
                results.append(detected.poseFrame())
            }
        } catch {
            // The error names the (temporary) file: say it as the caller's name for it.
            return (results, error.localizedDescription.replacingOccurrences(of: path, with: "clip.y4m"))
        }
        return (results, nil)
    }

    /// Frames in flight (worker detectors on shared weights) give exactly what one frame at a
    /// time gives, in order, also when the stream is cut inside a frame.
    @Test(arguments: [2, 3])
    func framesInFlightGiveWhatOneFrameAtATimeGives(_ framesInFlight: Int) async throws {
        var configuration = Self.configuration
        configuration.threads = 3
        let detector = try PoseDetector(model: .mobilenet075, configuration: configuration)
        let bytes = try Self.makeClip(frames: 7)
        let (expected, noError) = try await Self.collect(detector, bytes, framesInFlight: 1)
        #expect(expected.count == 7 && noError == nil)
        let (results, error) = try await Self.collect(detector, bytes, framesInFlight: framesInFlight)
        #expect(error == nil)
        #expect(results.map(\.frame) == Array(0..<7))
        #expect(results == expected)

        // Cut inside frame 5: frames 0...4, then the reading error, as one frame at a time gives them.
        let header = bytes.firstIndex(of: 0x0A)! + 1
        let frameBytes = (bytes.count - header) / 7
        let cut = Array(bytes[0..<(header + 5 * frameBytes + frameBytes / 2)])
        let (before, cutError) = try await Self.collect(detector, cut, framesInFlight: 1)
        let (inFlight, inFlightError) = try await Self.collect(detector, cut, framesInFlight: framesInFlight)
        #expect(before.count == 5 && cutError?.hasPrefix("clip.y4m: y4m: input ends inside frame 5") == true, "\(cutError ?? "")")
        #expect(inFlight == before && inFlightError == cutError)
    }

    /// How many frames go in flight and each one's threads, which `posekit pose` asks here too.
    @Test func framesInFlightAndTheirThreads() {
        #expect(PoseDetector.framesInFlight(requested: nil, threads: 3) == 3)
        #expect(PoseDetector.framesInFlight(requested: 5, threads: 2) == 2)
        #expect(PoseDetector.framesInFlight(requested: 0, threads: 4) == 1)
        #expect(PoseDetector.framesInFlight(requested: nil, threads: 32) == PoseDetector.maxFramesInFlight)
        #expect(PoseDetector.workerThreadShares(frames: 2, threads: 5) == [3, 2])
        #expect(PoseDetector.workerThreadShares(frames: 3, threads: 3) == [1, 1, 1])
        #expect(PoseDetector.workerThreadShares(frames: 1, threads: 4) == [4])
    }

    /// Through the detector too, a consumer that stops keeps the pipe's writer waiting.
    @Test func aSlowConsumerHoldsTheDetectorsInputBack() async throws {
        let frameCount = 8, width = 1280, height = 720
        let sink = ByteSink()
        let writerY4M = Y4MWriter(sink: sink, width: width, height: height, frameRate: Ratio(25, 1))
        for k in 0..<frameCount {
            var image = RGBImage(width: width, height: height)
            for i in stride(from: 0, to: image.pixels.count, by: 97) { image.pixels[i] = UInt8((i / 97 + k) & 255) }
            try writerY4M.write(image)
        }
        try sink.flush()
        let written = Y4MPipeWriter(sink.bytes, frameCount: frameCount)

        let detector = try PoseDetector(model: .mobilenet050, configuration: PoseDetector.Configuration(inputSize: 129, threads: 2))
        // Two frames in flight: at most three frames untaken (two workers, and one more so that a
        // worker need not wait for the consumer), one read ahead waiting to start, and the writer
        // stuck in the middle of the next: 1 taken + 3 + 1 written in full.
        var results = detector.poses(from: MediaFrames(fileHandle: written.pipe.fileHandleForReading), framesInFlight: 2)
            .makeAsyncIterator()
        var taken = 0
        if try await results.next() != nil { taken += 1 }
        try await Task.sleep(for: .milliseconds(300))   // a slow consumer
        #expect(written.count - taken <= 4, "the producer wrote \(written.count) frames while the consumer took \(taken)")
        while let frame = try await results.next() {
            #expect(frame.index == taken)
            taken += 1
        }
        #expect(taken == frameCount)
    }
}

extension OneCallDetectorTests {
    /// Still images through the stream: each decoded on its own (every pose, no ids), in order,
    /// equal to the one-call result.
    @Test func stillImagesAreNotTracked() async throws {
        let detector = try PoseDetector(model: .mobilenet075, configuration: Self.configuration)
        let image = try RGBImage(contentsOfFile: Self.imagePath)
        let bytes = PPMWriter.encode(image) + PPMWriter.encode(image)
        var delivered: [DetectedFrame] = []
        for try await detected in detector.poses(from: MediaFrames(bytes: bytes)) { delivered.append(detected) }
        let expected = try detector.poses(in: image)
        #expect(delivered.map(\.index) == [0, 1])
        #expect(delivered.allSatisfy { $0.frame.isStillImage && $0.poses == expected })
        #expect(expected.count >= 2 && expected.allSatisfy { $0.id == nil })
    }

    /// Late frames dropped (a live source): a fast writer and a slow consumer; the frames come in
    /// order, some are dropped (counted), the newest frame is never lost at the end, and the
    /// reader never waits for the consumer.
    @Test func lateFramesAreDroppedAndCounted() async throws {
        let frameCount = 24
        let bytes = try Self.makeClip(frames: frameCount)
        let written = Y4MPipeWriter(bytes, frameCount: frameCount, frameByFrame: false)
        let detector = try PoseDetector(model: .mobilenet050, configuration: PoseDetector.Configuration(inputSize: 129, threads: 1))
        var indices: [Int] = []
        var dropped = 0
        for try await detected in detector.poses(from: MediaFrames(fileHandle: written.pipe.fileHandleForReading), dropsLateFrames: true) {
            if indices.isEmpty {
                // Busy with the first frame: the reader goes on, so the writer finishes meanwhile.
                let start = ContinuousClock.now
                while written.count == 0 && ContinuousClock.now - start < .seconds(60) { try await Task.sleep(for: .milliseconds(20)) }
                #expect(written.count == 1, "the reader waited for the consumer")
            }
            indices.append(detected.index)
            dropped += detected.droppedBefore
        }
        #expect(written.count == 1)
        #expect(indices == indices.sorted() && Set(indices).count == indices.count)
        #expect(indices.last == frameCount - 1, "the newest frame is delivered")
        #expect(dropped > 0 && indices.count + dropped == frameCount, "\(indices) + \(dropped) dropped")
    }
}
