import Foundation
import PoseCore

/// Settings of the streaming pipeline (defaults follow Apple's action-classifier sample).
public struct ActionEngineConfiguration: Sendable {
    /// The model's frame rate; inputs at any rate are resampled to it by timestamp.
    public var fps: Double = PoseStream.fallbackFrameRate
    /// Frames per window (at `fps`); must match the classifier.
    public var windowLength: Int = 60
    /// Frames between window starts (at `fps`).
    public var windowStride: Int = 10
    /// A window with a smaller fraction of real poses is labeled `no_person`.
    public var minimumPoseFraction: Double = 0.6
    /// A window whose top probability is lower is labeled `low_confidence`.
    public var confidenceThreshold: Double = 0.5
    /// How people are told apart (`posekit pose`'s tracking, the same defaults).
    public var tracking = PoseTracker.Configuration()
    /// Which classes repetitions are counted for, and by which counter (ActionNet's: every
    /// exercise; a Create ML model's: its labels matched by name, ``RepetitionCounterMapping``).
    public var counters: RepetitionCounterMapping = .actionNet
    /// The counters' zones and posture rules' thresholds (chosen leave-one-clip-out on the shared
    /// clips: ``RepetitionThresholds/shipped``).
    public var repetitionThresholds = RepetitionThresholds.shipped
    public init() {}

    /// The settings for `classifier` as its weight bundle describes it: the bundle's frame rate and
    /// (unless `windowStride` is given) window stride, the classifier's window length.
    public init(classifier: TemporalConvNet, header: ActionWeightsFile.Header, confidenceThreshold: Double = 0.5,
                windowStride: Int? = nil, tracking: PoseTracker.Configuration = PoseTracker.Configuration()) {
        fps = header.fps
        self.tracking = tracking
        windowLength = classifier.architecture.windowLength
        self.windowStride = windowStride ?? header.windowStride
        self.confidenceThreshold = confidenceThreshold
    }

    /// The settings for a Create ML classifier: its frame rate (metadata, else
    /// ``/PoseCore/PoseStream/fallbackFrameRate``) and window
    /// length, a window every `windowStride` frames (nil: 10, as Apple's sample).
    /// `counters` maps the model's classes to repetition counters (nil: its labels matched by
    /// name, ``RepetitionCounterMapping/matchingNames(_:)``).
    public init(createML model: CreateMLActionClassifier, confidenceThreshold: Double = 0.5, windowStride: Int? = nil,
                tracking: PoseTracker.Configuration = PoseTracker.Configuration(), counters: RepetitionCounterMapping? = nil) {
        self.tracking = tracking
        self.counters = counters ?? .matchingNames(model.labels)
        fps = model.frameRate
        windowLength = model.windowLength
        self.windowStride = windowStride ?? CreateMLActionClassifier.defaultWindowStride
        self.confidenceThreshold = confidenceThreshold
    }
}

/// What an overlay draws for the current frame.
public struct ActionStatus: Sendable, Equatable {
    /// Label of the latest window (nil before the first window).
    public var label: ActionLabel?
    public var confidence: Double
    /// Repetitions counted so far for the latest window's class (0 for abstentions and classes
    /// without a counter).
    public var repetitions: Int
    /// The latest repetition of the latest window's class, with its posture cue (nil for none or abstentions).
    public var lastRepetition: RepetitionEvent?
    /// The prominent person's track and pose in the latest frame.
    public var trackID: Int?
    public var pose: Pose?
    /// Whether the latest window's class has a repetition counter (``ActionEngineConfiguration/counters``).
    public var countsRepetitions = false
}

/// The action-recognition pipeline for one stream: tracking → prominent person → resampling
/// (``ProminentPersonStream``) → windows → classifier → repetition counting.
///
/// Feed frames in time order with ``process(_:)`` (or ``process(frameIndex:time:poses:imageWidth:imageHeight:)``)
/// and print the returned events; call ``finish()`` once at the end for the last window and the
/// summary. Prediction events come once per ``ActionEngineConfiguration/windowStride`` model
/// frames after the first full window; a repetition event comes once the window covering it has
/// been classified as that exercise (so it can arrive up to one window late, carrying the frame
/// and time where it happened).
public final class ActionEngine {
    public let configuration: ActionEngineConfiguration
    let classifier: WindowClassifier
    /// The frames' size in pixels (0: not known yet), which a Create ML classifier's coordinates are divided by.
    private var imageWidth = 0, imageHeight = 0
    private var frontEnd: ProminentPersonStream
    private var counter: RepetitionCounter
    private var buffer: [ResampledFrame] = []
    private var slotsSeen = 0
    private var lastWindowStart: Int?
    private var lastWindowEnd = -1
    private var pending: [RepetitionCandidate] = []
    private var counts: [ActionClass: Int] = [:]
    /// Turning points in windows of their exercise that failed its posture rule, per exercise.
    private var rejected: [ActionClass: Int] = [:]
    private var slotsPerLabel: [ActionLabel: Int] = [:]
    private var lastTrack: Int?
    /// The followed person's last pose and its time, to tell a new person from a split track.
    private var lastFollowed: (pose: Pose, time: Double)?
    private var framesConsumed = 0
    private var finished = false
    /// Latest state, for overlays.
    public private(set) var status = ActionStatus(label: nil, confidence: 0, repetitions: 0, lastRepetition: nil, trackID: nil, pose: nil)
    /// The latest repetition of each exercise, for ``status``.
    private var lastRepetitions: [ActionClass: RepetitionEvent] = [:]
    /// The last classified window's real slots and top class: at the end of the input it settles
    /// the repetitions the end itself confirms.
    private var lastWindow: (first: Int, last: Int, topClass: ActionClass?)?
    /// Every turning point any counter found, in the order they were settled, with its posture
    /// reading and verdict: what the threshold protocol (`ActionTraining`'s `RepetitionThresholdSearch`)
    /// measures. Kept only when ``recordsTurningPoints`` is set (a stream may run for days).
    @_spi(Training) public private(set) var turningPoints: [TurningPointRecord] = []
    @_spi(Training) public var recordsTurningPoints = false

    /// A pipeline around a trained classifier.
    public convenience init(classifier: TemporalConvNet, configuration: ActionEngineConfiguration = ActionEngineConfiguration()) throws {
        try self.init(windowClassifier: .actionNet(classifier), configuration: configuration)
    }

    /// A pipeline around a Create ML action classifier: windows of its length at its frame rate,
    /// labeled with its classes as it spells them; repetitions are counted for the classes
    /// ``ActionEngineConfiguration/counters`` maps to a counter, under their own labels. Its coordinates need the frames'
    /// size: feed ``/PoseCore/PoseFrame``s with `width` and `height`, or pass them to
    /// ``process(frameIndex:time:poses:imageWidth:imageHeight:)``.
    public convenience init(createML model: CreateMLActionClassifier, configuration: ActionEngineConfiguration) throws {
        try self.init(windowClassifier: .createML(model), configuration: configuration)
    }

    init(windowClassifier classifier: WindowClassifier, configuration: ActionEngineConfiguration) throws {
        guard configuration.windowLength == classifier.windowLength else {
            throw ActionNetError.invalidConfiguration("window length \(configuration.windowLength) but the classifier takes \(classifier.windowLength)")
        }
        guard configuration.windowStride >= 1, configuration.windowStride <= configuration.windowLength else {
            throw ActionNetError.invalidConfiguration("window stride \(configuration.windowStride) not in 1...\(configuration.windowLength)")
        }
        guard (0...1).contains(configuration.minimumPoseFraction), (0...1).contains(configuration.confidenceThreshold) else {
            throw ActionNetError.invalidConfiguration("fractions must be in 0...1")
        }
        let labels = classifier.classLabels.map(\.name)
        if let stray = configuration.counters.entries.first(where: { !labels.contains($0.label) }) {
            throw ActionNetError.invalidConfiguration("repetition counter for '\(stray.label)', which is not a class of the classifier")
        }
        self.configuration = configuration
        self.classifier = classifier
        self.frontEnd = try ProminentPersonStream(fps: configuration.fps, tracking: configuration.tracking)
        counter = RepetitionCounter(configuration.repetitionThresholds)
    }

    /// A pipeline from a weight file (`Weights/actionnet.pkw`), at the file's fps and (unless
    /// `windowStride` is given) its window stride.
    public convenience init(weightsURL: URL, confidenceThreshold: Double = 0.5, windowStride: Int? = nil,
                            tracking: PoseTracker.Configuration = PoseTracker.Configuration()) throws {
        let (net, header) = try ActionWeightsFile.load(contentsOf: weightsURL)
        try self.init(classifier: net, configuration: ActionEngineConfiguration(
            classifier: net, header: header, confidenceThreshold: confidenceThreshold, windowStride: windowStride, tracking: tracking))
    }

    /// Runs a whole stream of `(frameIndex, time, poses)` and hands every event, summary last,
    /// to `emit` as soon as it is known.
    /// - Throws: `emit`'s errors, and the classifier's (``process(frameIndex:time:poses:imageWidth:imageHeight:)``).
    public func run<S: Sequence>(_ frames: S, emit: (ActionEvent) throws -> Void) throws
    where S.Element == (frameIndex: Int, time: Double, poses: [Pose]) {
        for f in frames {
            for e in try process(frameIndex: f.frameIndex, time: f.time, poses: f.poses) { try emit(e) }
        }
        for e in try finish() { try emit(e) }
    }

    /// Consumes one frame's poses, with their identities when the frame has them (`posekit pose`
    /// output: its `"id"`s are used as they are, so `actions --poses` follows the people `pose` saw).
    /// - Throws: the classifier's error on a window it cannot label (a Create ML model whose
    ///   values overflow float32 on it: ``CoreMLModelError/badWindow(_:)``).
    public func process(_ frame: PoseFrame) throws -> [ActionEvent] {
        try process(frameIndex: frame.frame, time: frame.time, poses: frame.poses,
                imageWidth: frame.width, imageHeight: frame.height)
    }

    /// Consumes one frame's poses: its index in the source, its time in seconds, every person found
    /// and, when they were tracked already, their identities (nil: tracked here); and the frame's
    /// size in pixels (0: as before; only a Create ML classifier uses it).
    ///
    /// - Throws: the classifier's error on a window it cannot label (a Create ML model whose
    ///   values overflow float32 on it: ``CoreMLModelError/badWindow(_:)``); ActionNet labels every window.
    public func process(frameIndex: Int, time: Double, poses: [Pose],
                        imageWidth: Int = 0, imageHeight: Int = 0) throws -> [ActionEvent] {
        guard !finished else { return [] }
        if imageWidth > 0 && imageHeight > 0 { (self.imageWidth, self.imageHeight) = (imageWidth, imageHeight) }
        framesConsumed += 1
        // Windows and counters read COCO-17 on the image: each body pose through its set's
        // COCO-17 map, clamped into the frame when its size is known (keypoints may lie outside);
        // a pose without a body (a hand) is not a person here.
        let found = poses.filter { $0.keypointSet.coversCOCO17 }
        let bodies = found.map { $0.cocoSeventeen!.clamped(width: self.imageWidth, height: self.imageHeight) }
        let (prominent, slots) = frontEnd.push(frameIndex: frameIndex, time: time, poses: bodies)
        status.trackID = prominent?.trackID
        // The status shows the pose as given, with its identity (an overlay finds it among the frame's poses).
        status.pose = prominent.flatMap { p in
            bodies.indices.first { bodies[$0].keypoints == p.pose.keypoints && bodies[$0].score == p.pose.score }.map {
                var given = found[$0]
                given.id = p.pose.id
                return given
            }
        }
        var events: [ActionEvent] = []
        for slot in slots {
            events += try consume(slot)
        }
        return events
    }

    private func consume(_ slot: ResampledFrame) throws -> [ActionEvent] {
        if let id = slot.trackID, let pose = slot.pose {
            if let last = lastTrack, last != id, !continuesLastFollowed(pose, time: slot.time) {
                // A new person: the previous one's input has ended (a repetition at its turning
                // point still counts), and the phases restart.
                pending += counter.finish()
                counter.reset()
            }
            lastTrack = id
            lastFollowed = (pose, slot.time)
        }
        pending += counter.update(slot)
        buffer.append(slot)
        slotsSeen += 1
        let length = configuration.windowLength
        if buffer.count > length { buffer.removeFirst(buffer.count - length) }
        guard buffer.count == length, (slotsSeen - length) % configuration.windowStride == 0 else { return [] }
        return try classify(PoseWindow(frames: buffer))
    }

    /// Whether a pose under a new track ID is the followed person again: the tracker starts a new
    /// ID after a gap over its limit or a jump of the box (a squat's bottom, a lying body), but
    /// a pose within a second and half a body height of where the person was is the same
    /// person to the repetition counter, which must not lose a repetition to a split track.
    private func continuesLastFollowed(_ pose: Pose, time: Double) -> Bool {
        guard let last = lastFollowed, time - last.time <= 1 else { return false }
        let a = last.pose.boundingBox(minimumScore: 0.3), b = pose.boundingBox(minimumScore: 0.3)
        let dx = (a.minX + a.maxX - b.minX - b.maxX) / 2, dy = (a.minY + a.maxY - b.minY - b.maxY) / 2
        let size = max(a.height, b.height, a.width, b.width)
        return (dx * dx + dy * dy).squareRoot() <= 0.5 * size
    }

    /// Ends the stream: classifies a last window over any frames no window covered yet (a
    /// zero-padded one when the stream is shorter than a window), settles pending repetitions
    /// and returns the summary as the final event.
    /// - Throws: the classifier's error on the last window (see ``process(_:)``).
    public func finish() throws -> [ActionEvent] {
        guard !finished else { return [] }
        finished = true
        var events: [ActionEvent] = []
        pending += counter.finish()
        if let last = buffer.last, last.slot > lastWindowEnd {
            var frames = buffer
            if frames.count < configuration.windowLength {
                let first = frames[0]
                frames += (frames.count..<configuration.windowLength).map {
                    ResampledFrame(slot: first.slot + $0, time: first.time + Double($0) / configuration.fps,
                                   sourceFrame: last.sourceFrame, pose: nil, trackID: nil)
                }
                events += try classify(PoseWindow(frames: frames), realSlots: buffer.count)
            } else {
                events += try classify(PoseWindow(frames: frames))
            }
        } else if let window = lastWindow {
            events += settle(first: window.first, last: window.last, topClass: window.topClass)
        }
        record(pending, .uncovered)
        pending.removeAll()
        events.append(.summary(summary))
        return events
    }

    /// The summary so far: seconds per label of the windows classified, repetitions counted (a
    /// live view's Summary panel). After ``finish()``, the summary it ended with.
    public var summary: ActionSummary {
        let labeled = slotsPerLabel.filter { $0.value > 0 }
        let seconds = labeled.mapValues { Double($0) / configuration.fps }
        let actions = labeled.filter { $0.key.isClass }
        let pool = actions.isEmpty ? labeled : actions
        let best = pool.max { $0.value < $1.value || ($0.value == $1.value && $0.key.name > $1.key.name) }?.key
        var reps: [ActionClass: Int] = [:], rejectedReps: [ActionClass: Int] = [:]
        for e in configuration.counters.entries.map(\.counter) { reps[e] = counts[e] ?? 0; rejectedReps[e] = rejected[e] ?? 0 }
        return ActionSummary(frames: framesConsumed, label: best, seconds: seconds, reps: reps,
                             rejectedReps: rejectedReps, classLabels: classifier.classLabels, counters: configuration.counters)
    }

    /// Labels a window, credits its new frames' time to the label and settles the repetitions it covers.
    private func classify(_ window: PoseWindow, realSlots: Int? = nil) throws -> [ActionEvent] {
        let frames = window.frames
        let realCount = realSlots ?? frames.count
        let first = frames[0], lastReal = frames[realCount - 1]
        let prediction = try WindowPrediction(window, realSlots: realCount, classifier: classifier, configuration: configuration,
                                          imageWidth: imageWidth, imageHeight: imageHeight)
        // Time: the window's label owns its frames not yet owned by an earlier window.
        let newFrom = max(first.slot, lastWindowEnd + 1)
        if lastReal.slot >= newFrom { slotsPerLabel[prediction.label, default: 0] += lastReal.slot - newFrom + 1 }
        lastWindowEnd = max(lastWindowEnd, lastReal.slot)
        lastWindowStart = first.slot
        lastWindow = (first.slot, lastReal.slot, prediction.topClass)
        var events: [ActionEvent] = [.prediction(prediction)]
        events += settle(first: first.slot, last: lastReal.slot, topClass: prediction.topClass)
        status.label = prediction.label
        status.confidence = prediction.confidence
        if prediction.label.isClass, let c = prediction.topClass {
            status.repetitions = counts[c] ?? 0
            status.lastRepetition = lastRepetitions[c]
            status.countsRepetitions = configuration.counters.label(for: c) != nil
        } else {
            status.repetitions = 0
            status.lastRepetition = nil
            status.countsRepetitions = false
        }
        return events
    }

    private func record(_ candidates: [RepetitionCandidate], _ verdict: TurningPointRecord.Verdict) {
        if recordsTurningPoints { turningPoints += candidates.map { TurningPointRecord($0, verdict) } }
    }

    /// Repetitions inside a window's slots that belong to its class are counted, unless they
    /// failed their posture rule (then they are only tallied as rejected); those before the next
    /// window's start can no longer be covered by any window and are dropped.
    private func settle(first: Int, last: Int, topClass: ActionClass?) -> [ActionEvent] {
        pending.sort { $0.slot < $1.slot }
        var events: [ActionEvent] = []
        var keep: [RepetitionCandidate] = []
        for rep in pending {
            let covered = rep.slot >= first && rep.slot <= last && rep.action == topClass
            if covered && !rep.looksLikeExercise {
                record([rep], .rejected)
                rejected[rep.action, default: 0] += 1
                // Visible as an event of its own: a movement judged not to be the exercise.
                events.append(.rejectedRepetition(RejectedRepetition(
                    action: rep.action, label: configuration.counters.label(for: rep.action) ?? rep.action.name,
                    frame: rep.sourceFrame, time: rep.time, rule: rep.rule.name, reading: rep.posture ?? 0,
                    threshold: rep.rule.minimum, cue: rep.cue)))
            } else if covered {
                record([rep], .counted)
                let n = (counts[rep.action] ?? 0) + 1
                counts[rep.action] = n
                let event = RepetitionEvent(action: rep.action, count: n, frame: rep.sourceFrame, time: rep.time, cue: rep.cue,
                                            label: configuration.counters.label(for: rep.action) ?? rep.action.name)
                lastRepetitions[rep.action] = event
                events.append(.repetition(event))
            } else if rep.slot >= first + configuration.windowStride || rep.slot > last {
                keep.append(rep)
            } else {
                record([rep], .uncovered)
            }
        }
        pending = keep
        return events
    }
}

/// One turning point a counter found and what became of it (``ActionEngine/turningPoints``).
@_spi(Training) public struct TurningPointRecord: Sendable {
    /// Counted, rejected by its posture rule (both in a window of its exercise), or in no window of its exercise.
    public enum Verdict: Sendable { case counted, rejected, uncovered }
    public var action: ActionClass
    public var time: Double
    /// Its posture rule's reading over the turning phase (nil: never measured, never rejected).
    public var reading: Double?
    public var verdict: Verdict

    init(_ candidate: RepetitionCandidate, _ verdict: Verdict) {
        action = candidate.action; time = candidate.time; reading = candidate.posture; self.verdict = verdict
    }
}
