import ActionNet
import FrameIO
import PoseCore
import Streaming

extension ActionEngine {
    /// The events of every frame of `opened` (a video, or images as one) as `detector` finds its
    /// poses (`smoothing`, `tracking`), into `sink`, the summary last, and annotated frames into
    /// `overlay` when given (`FrameLoop`; each frame's events one record). Frames without a time
    /// are timed at `fps`.
    public func recognize(framesFrom opened: StreamInput, _ detector: any PoseFrameModel, fps: Double, smoothing smooth: Bool,
                          tracking: PoseTracker.Configuration, into sink: ByteSink, overlay: MediaWriter?, _ reporter: ProgressReporter) async throws {
        let engine = self
        let loop = FrameLoop(json: sink, overlay: overlay, flushed: [sink, overlay?.output.sink].compactMap { $0 }, progress: reporter)
        func run<Frames: FrameIterator>(_ frames: Frames) async throws where Frames.Element == DetectedFrame {
            try await loop.run(frames, lines: { detected, text in
                // A header's frame rate can make times as late as a pose file's; the same cap holds.
                let time = PoseStream.trackingTime(frameIndex: detected.index, time: detected.time, frameRate: fps)
                guard time <= PoseJSONLinesDecoder.maximumTime else {
                    throw RunError("frame \(detected.index) is at \(time) s, later than the 1e9 s (about 31 years) accepted")
                }
                for event in try engine.process(detected, frameRate: fps) { event.append(to: &text); text.newline() }
            }, draw: { detected, image in
                ActionOverlay().draw(engine.status, poses: detected.poses, on: &image)
            })
        }
        if let images = opened.images {
            try await run(detector.poses(from: images, smoothing: smooth, tracking: tracking).makeAsyncIterator())
        } else {
            try await run(detector.poses(inMediaAt: opened.input, smoothing: smooth, tracking: tracking).makeAsyncIterator())
        }
        try sink.writeRecord(engine.finish())
    }
}
