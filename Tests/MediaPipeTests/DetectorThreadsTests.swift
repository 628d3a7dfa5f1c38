import Foundation
import FrameIO
import ModelGraph
import Testing
import Tensor
@testable import Detectors
@testable import MediaPipe

/// `--threads` reaches every stage of the MediaPipe detectors: the crops (`ImageToTensor`) run
/// on the detector's threads (a stream worker's share), not on every core.
@Suite struct DetectorThreadsTests {
    @Test func blazePoseCropsRunOnTheDetectorsThreads() throws {
        let detector = try BlazePoseDetector(configuration: .init(threads: 1))
        #expect(detector.imagePipeline.configuration.threads == 1)
        let worker = try #require(try detector.makeFrameWorker(threads: 2, smoothing: true) as? BlazePoseFrameWorker)
        #expect(worker.pipeline.configuration.threads == 2)
        let everyCore = try BlazePoseDetector()
        #expect(everyCore.imagePipeline.configuration.threads == Parallelism.defaultThreads)
    }

    @Test func handCropsRunOnTheDetectorsThreads() throws {
        let detector = try HandDetector(configuration: .init(threads: 1, sources: .palms))
        #expect(detector.pipeline.configuration.threads == 1)
    }

    /// A crop is the same on one thread as on several (the bands only split the rows).
    @Test func aCropIsTheSameOnAnyNumberOfThreads() throws {
        var image = RGBImage(width: 173, height: 131)
        for i in image.pixels.indices { image.pixels[i] = UInt8(truncatingIfNeeded: i &* 2654435761 >> 7) }
        let one = try ImageToTensor.handLandmark.tensor(from: image, threads: 1).tensor
        let four = try ImageToTensor.handLandmark.tensor(from: image, threads: 4).tensor
        #expect(one.scalars == four.scalars)
    }
}
