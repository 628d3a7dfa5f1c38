import Foundation
import ActionNet
import PoseCore

/// A real clip's poses (`posekit pose` JSON Lines) with its label from `labels.json`.
public struct LabeledClip: Sendable {
    public var name: String
    public var label: ActionClass
    public var repetitions: Int?
    public var frames: [PoseFrame]

    public init(name: String, label: ActionClass, repetitions: Int?, frames: [PoseFrame]) {
        self.name = name; self.label = label; self.repetitions = repetitions; self.frames = frames
    }

    /// Reads `labels.json` (the shared media format: `file`, `label`, `repetitions`) and, for each
    /// entry, `<posesDirectory>/<file without .y4m>.jsonl`. Entries without a poses file are skipped.
    public static func load(labels: URL, posesDirectory: URL) throws -> [LabeledClip] {
        let data: Data
        do { data = try RegularFile.contents(atPath: labels.path) } catch { throw ActionNetError.badTrainingData(String(describing: error)) }
        guard let list = try? JSONSerialization.jsonObject(with: data) as? [[String: Any]] else {
            throw ActionNetError.badTrainingData("cannot read \(labels.path) as a JSON array")
        }
        var clips: [LabeledClip] = []
        for entry in list {
            guard let file = entry["file"] as? String, let labelName = entry["label"] as? String,
                  let label = ActionClass(name: labelName) else { continue }
            let name = file.replacingOccurrences(of: ".y4m", with: "")
            let url = posesDirectory.appendingPathComponent(name + ".jsonl")
            guard let text = try? String(contentsOf: url, encoding: .utf8) else { continue }
            let frames = try PoseJSONLinesDecoder.decodeAll(text)
            clips.append(LabeledClip(name: name, label: label, repetitions: entry["repetitions"] as? Int, frames: frames))
        }
        return clips
    }
}

/// Labeled classifier inputs, stored contiguously (`count × windowLength × 51`).
struct WindowDataset {
    var features: [Float] = []
    var labels: [Int] = []
    var weights: [Float] = []
    var count: Int { labels.count }

    mutating func append(_ f: [Float], label: ActionClass, weight: Float = 1) {
        features += f; labels.append(label.rawValue); weights.append(weight)
    }

    mutating func append(contentsOf other: WindowDataset) {
        features += other.features; labels += other.labels; weights += other.weights
    }
}

enum TrainingData {
    static let inputRates: [Double] = [24000.0 / 1001, 25, 29.29, 30]

    /// The same front end as ``ActionEngine``: tracking, prominent person, resampling.
    static func modelFrames(_ frames: [PoseFrame], fps: Double) -> [ResampledFrame] {
        var frontEnd = try! ProminentPersonStream(fps: fps)
        var out: [ResampledFrame] = []
        for f in frames {
            out += frontEnd.push(frameIndex: f.frame, time: f.time, poses: f.poses).slots
        }
        return out
    }

    /// Windows of `length` model frames every `stride`; `label(window)` names the class or nil to skip.
    static func windows(_ slots: [ResampledFrame], length: Int, stride: Int, minimumPoseFraction: Double,
                        label: (PoseWindow) -> ActionClass?, into data: inout WindowDataset, weight: Float = 1) {
        guard slots.count >= length else { return }
        var start = 0
        while start + length <= slots.count {
            let w = PoseWindow(frames: Array(slots[start..<(start + length)]))
            if w.realPoseFraction >= minimumPoseFraction, let l = label(w) { data.append(w.features(), label: l, weight: weight) }
            start += stride
        }
    }

    /// One synthetic sequence of `kind`, rendered at a random input rate and windowed.
    static func synthetic(_ kind: MotionKind, seed: UInt64, length: Int, stride: Int, fps: Double) -> WindowDataset {
        var rng = SeededRandom(seed: seed)
        let rate = inputRates[Int(rng.uniform() * 4) % 4]
        let seconds = rng.uniform(4.5...9)
        let count = Int(seconds * rate)
        let motion = MotionGenerator.sequence(kind, count: count, fps: rate, rng: &rng)
        var figure = StickFigure(random: &rng)
        var frames: [PoseFrame] = []
        for (i, m) in motion.enumerated() {
            let pose = figure.render(m.pose, rng: &rng)
            frames.append(PoseFrame(frame: i, time: Double(i) / rate, width: Int(figure.imageWidth), height: Int(figure.imageHeight),
                                    poses: pose.map { [$0] } ?? []))
        }
        let slots = modelFrames(frames, fps: fps)
        var data = WindowDataset()
        windows(slots, length: length, stride: stride, minimumPoseFraction: 0.6, label: { w in
            let poses = w.frames.map { motion[min($0.sourceFrame, motion.count - 1)] }
            let active = poses.filter(\.active).count
            // A burpee window that never leaves the floor shows only a plank or a push-up:
            // nothing in it says burpee, so it must not teach the classifier that planks are burpees.
            if kind == .burpees && poses.allSatisfy({ $0.pose.rootPitch > 0.6 }) { return .other }
            return Double(active) >= 0.5 * Double(w.length) ? kind.action : .other
        }, into: &data)
        return data
    }

    /// Augmented copies of a real clip: time stretch, mirror, scale, keypoint jitter, dropped frames.
    static func realAugmented(_ clip: LabeledClip, seed: UInt64, copies: Int, length: Int, stride: Int, fps: Double) -> WindowDataset {
        var data = WindowDataset()
        var rng = SeededRandom(seed: seed)
        for copy in 0..<copies {
            let stretch = copy == 0 ? 1 : rng.uniform(0.8...1.25)
            let mirror = copy % 2 == 1
            let jitter = copy == 0 ? 0 : rng.uniform(0...4)
            let drop = copy == 0 ? 0 : rng.uniform(0...0.05)
            let width = Double(clip.frames.first?.width ?? 640)
            var frames: [PoseFrame] = []
            for f in clip.frames where !rng.chance(drop) {
                var g = f
                g.time = f.time * stretch
                g.poses = f.poses.map { pose in
                    var kps = pose.keypoints
                    for k in 0..<kps.count {
                        var p = kps[k].position
                        if mirror { p.x = width - p.x }
                        p.x += jitter * rng.gaussian(); p.y += jitter * rng.gaussian()
                        kps[k].position = p
                    }
                    if mirror { kps = pose.keypointSet.mirrored.map { kps[$0] } }   // left ↔ right
                    return Pose(keypoints: kps, score: pose.score, keypointSet: pose.keypointSet)
                }
                frames.append(g)
            }
            let offset = Int(rng.uniform() * Double(stride))
            let slots = Array(modelFrames(frames, fps: fps).dropFirst(offset))
            windows(slots, length: length, stride: stride, minimumPoseFraction: 0.6, label: { _ in clip.label }, into: &data)
        }
        return data
    }
}
