@_spi(Training) import ActionNet
import PoseCore
import Tensor
import Foundation

/// Settings of `posekit train-actions`; the defaults are what `make train-actions` runs.
public struct ActionTrainingConfiguration: Sendable {
    public var seed: UInt64 = 1
    public var epochs = 14
    public var batchSize = 64
    public var learningRate: Float = 2e-3
    public var weightDecay: Float = 1e-4
    /// Synthetic sequences per exercise kind (the `other` kinds get a third of this each).
    public var sequencesPerExercise = 160
    /// Augmented passes over each real clip.
    public var realCopies = 12
    /// Window stride (model frames) used to cut training windows.
    public var trainingStride = 6
    public var architecture = TemporalConvNet.Architecture()
    /// The model's frame rate, recorded in the weights.
    public var fps: Double = PoseStream.fallbackFrameRate
    public init() {}
}

/// One slot per parallel job; each job writes only its own index.
final class ParallelResults<T>: @unchecked Sendable {
    private let slots: UnsafeMutableBufferPointer<T>
    init(count: Int, initial: T) {
        slots = .allocate(capacity: count)
        slots.initialize(repeating: initial)
    }
    deinit { _ = slots.deinitialize(); slots.deallocate() }
    subscript(i: Int) -> T {
        get { slots[i] }
        set { slots[i] = newValue }
    }
    var values: [T] { Array(slots) }
}

/// Result of one held-out clip.
public struct ClipEvaluation: Sendable {
    public var clip: String
    public var expected: ActionClass
    public var summaryLabel: String
    public var expectedReps: Int?
    public var countedReps: Int
    /// Fraction of the clip's prediction windows labeled with its class.
    public var windowAccuracy: Double
    public var windows: Int
}

/// Trains the classifier in Swift: synthetic motion + real clips, softmax cross-entropy, Adam.
public enum ActionTrainer {
    /// Builds the training set and trains; `log` receives one line per epoch.
    public static func train(_ c: ActionTrainingConfiguration, realClips: [LabeledClip],
                             log: (String) -> Void = { _ in }) throws -> TemporalConvNet {
        BLASThreads.set(Parallelism.defaultThreads)
        let length = c.architecture.windowLength
        // Synthetic sequences, generated in parallel; each has its own seed so the set is reproducible.
        var jobList: [(MotionKind, UInt64)] = []
        var rng = SeededRandom(seed: c.seed)
        for kind in MotionKind.allCases {
            let n = kind.action == .other ? max(c.sequencesPerExercise / 3, 1) : c.sequencesPerExercise
            for _ in 0..<n { jobList.append((kind, rng.next())) }
        }
        let jobs = jobList
        let parts = ParallelResults<WindowDataset>(count: jobs.count + realClips.count, initial: WindowDataset())
        let clipSeeds = realClips.map { _ in rng.next() }
        DispatchQueue.concurrentPerform(iterations: jobs.count + realClips.count) { i in
            if i < jobs.count {
                parts[i] = TrainingData.synthetic(jobs[i].0, seed: jobs[i].1, length: length, stride: c.trainingStride * 2, fps: c.fps)
            } else {
                let clip = realClips[i - jobs.count]
                parts[i] = TrainingData.realAugmented(clip, seed: clipSeeds[i - jobs.count], copies: c.realCopies,
                                                      length: length, stride: c.trainingStride, fps: c.fps)
            }
        }
        var data = WindowDataset()
        for p in parts.values { data.append(contentsOf: p) }
        guard data.count > 0 else { throw ActionNetError.badTrainingData("no training windows") }
        // Balance classes: each class weighs the same in the loss.
        var perClass = [Int](repeating: 0, count: ActionClass.count)
        for l in data.labels { perClass[l] += 1 }
        for i in 0..<data.count { data.weights[i] = Float(data.count) / Float(ActionClass.count * max(perClass[data.labels[i]], 1)) }
        log("training windows: \(data.count) (" + ActionClass.allCases.map { "\($0.name) \(perClass[$0.rawValue])" }.joined(separator: ", ") + ")")

        let net = try TemporalConvNet(architecture: c.architecture)
        net.initialize(seed: c.seed &+ 7)
        let adam = AdamOptimizer(parameterCount: net.parameterCount, learningRate: c.learningRate, weightDecay: c.weightDecay)
        let stride = length * c.architecture.inputChannels
        let batch = c.batchSize
        let pass = TrainingPass(net, batch: batch)
        var order = Array(0..<data.count)
        let steps = c.epochs * (data.count / batch)
        var step = 0
        for epoch in 0..<c.epochs {
            order.shuffle(using: &rng)
            var lossSum: Float = 0, correct = 0, seen = 0
            for b in 0..<(data.count / batch) {
                var labels = [Int](repeating: 0, count: batch), weights = [Float](repeating: 0, count: batch)
                data.features.withUnsafeBufferPointer { src in
                    for n in 0..<batch {
                        let idx = order[b * batch + n]
                        (pass.windows.floats + n * stride).update(from: src.baseAddress! + idx * stride, count: stride)
                        labels[n] = data.labels[idx]; weights[n] = data.weights[idx]
                    }
                }
                // Feature noise: small per-window scale and offset so normalization error is tolerated.
                for n in 0..<batch {
                    let s = Float(rng.uniform(0.9...1.1)), ox = Float(rng.uniform(-0.15...0.15)), oy = Float(rng.uniform(-0.15...0.15))
                    let p = pass.windows.floats + n * stride
                    for t in 0..<length { for k in 0..<17 {
                        let i = t * 51 + 3 * k
                        if p[i + 2] != 0 { p[i] = p[i] * s + ox; p[i + 1] = p[i + 1] * s + oy }
                    } }
                }
                pass.forward()
                lossSum += pass.crossEntropy(labels: labels, weights: weights)
                for n in 0..<batch {
                    let lp = pass.logits.floats + n * ActionClass.count
                    if (0..<ActionClass.count).max(by: { lp[$0] < lp[$1] }) == labels[n] { correct += 1 }
                }
                seen += batch
                pass.gradients.zero()
                pass.backward()
                // Cosine learning-rate decay.
                adam.learningRate = c.learningRate * Float(0.5 * (1 + cos(Double.pi * Double(step) / Double(max(steps, 1)))))
                adam.update(pass.parameters, pass.gradients.floats, count: net.parameterCount)
                net.parametersChanged()  // updated in place: inference plans its graph again
                step += 1
            }
            log(String(format: "epoch %d: loss %.4f, train accuracy %.3f", epoch + 1, lossSum / Float(max(data.count / batch, 1)), Double(correct) / Double(max(seen, 1))))
        }
        return net
    }

    /// Runs the whole pipeline on a clip and compares with its labels.
    public static func evaluate(_ net: TemporalConvNet, clip: LabeledClip, configuration: ActionEngineConfiguration = ActionEngineConfiguration()) throws -> (ClipEvaluation, [ActionEvent]) {
        let engine = try ActionEngine(classifier: net, configuration: configuration)
        var events: [ActionEvent] = []
        for f in clip.frames { events += try engine.process(f) }
        events += try engine.finish()
        var windows = 0, right = 0
        var summaryLabel = "none", reps = 0
        for e in events {
            switch e {
            case .prediction(let p):
                windows += 1
                if p.label == .action(clip.label) { right += 1 }
            case .summary(let s):
                summaryLabel = s.label?.name ?? "none"
                reps = s.reps[clip.label] ?? 0
            case .repetition, .rejectedRepetition: break
            }
        }
        return (ClipEvaluation(clip: clip.name, expected: clip.label, summaryLabel: summaryLabel, expectedReps: clip.repetitions,
                               countedReps: reps, windowAccuracy: windows > 0 ? Double(right) / Double(windows) : 0, windows: windows), events)
    }

    /// Window accuracy per class on fresh synthetic sequences (`sequences` per motion kind, from
    /// `seed`; use a seed other than training's): `(correct, total)` for each class.
    public static func syntheticAccuracy(_ net: TemporalConvNet, seed: UInt64, sequences: Int) -> [ActionClass: (correct: Int, total: Int)] {
        var rng = SeededRandom(seed: seed)
        var result: [ActionClass: (correct: Int, total: Int)] = [:]
        let length = net.architecture.windowLength, size = length * net.architecture.inputChannels
        for kind in MotionKind.allCases {
            for _ in 0..<sequences {
                let data = TrainingData.synthetic(kind, seed: rng.next(), length: length, stride: 10,
                                                  fps: ActionTrainingConfiguration().fps)
                for i in 0..<data.count {
                    let probs = net.probabilities(features: Array(data.features[(i * size)..<((i + 1) * size)]))
                    let top = probs.indices.max { probs[$0] < probs[$1] }!
                    let label = ActionClass(rawValue: data.labels[i])!
                    var r = result[label] ?? (0, 0)
                    r.total += 1
                    if top == data.labels[i] { r.correct += 1 }
                    result[label] = r
                }
            }
        }
        return result
    }

    /// Median milliseconds per window of classifier inference (features → probabilities) over `iterations` runs.
    public static func benchmark(_ net: TemporalConvNet, iterations: Int = 2000) -> Double {
        var rng = SeededRandom(seed: 3)
        let features = (0..<(net.architecture.windowLength * net.architecture.inputChannels)).map { _ in Float(rng.gaussian()) }
        var times: [Double] = []
        var sink = 0.0
        for _ in 0..<max(iterations, 1) {
            let start = MonotonicClock.now()
            sink += net.probabilities(features: features)[0]
            times.append((MonotonicClock.now() - start) * 1e3)
        }
        if sink.isNaN { print("") }
        return Median.of(times)
    }
}
