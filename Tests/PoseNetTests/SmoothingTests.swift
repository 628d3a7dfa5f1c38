import Foundation
import Testing
@testable import PoseNet
import PoseCore

/// A deterministic normal noise source (xorshift + Box-Muller), so the tests are reproducible.
struct NoiseSource {
    var state: UInt64
    mutating func uniform() -> Double {
        state ^= state << 13; state ^= state >> 7; state ^= state << 17
        return (Double(state >> 11) + 0.5) / Double(1 << 53)
    }
    mutating func normal(sigma: Double) -> Double {
        sigma * (-2 * log(uniform())).squareRoot() * cos(2 * .pi * uniform())
    }
}

struct SmoothingTests {
    /// Two steps worked by hand from the paper's formulas.
    @Test func oneEuroFilterMatchesTheFormulasByHand() {
        var filter = OneEuroFilter(minimumCutoff: 1, speedCoefficient: 0.5, derivativeCutoff: 1)
        #expect(filter.filter(10, time: 0) == 10)   // the first sample passes
        // dt = 0.1: α(1 Hz) = 0.2π / (0.2π + 1) = 0.385869...; derivative 100, smoothed 38.5869;
        // cutoff = 1 + 0.5 · 38.5869 = 20.2934 Hz, α = 12.7508 / 13.7508 = 0.927276; 10 + 0.927276 · 10.
        let r = 0.2 * Double.pi, a1 = r / (r + 1)
        let cutoff = 1 + 0.5 * 100 * a1, r2 = 2 * Double.pi * cutoff * 0.1, a2 = r2 / (r2 + 1)
        #expect(abs(filter.filter(20, time: 0.1) - (10 + a2 * 10)) < 1e-12)
        #expect(abs(a2 - 0.927276) < 1e-6)
        // A sample that does not advance time passes unchanged (nothing to smooth over).
        #expect(filter.filter(5, time: 0.1) == 5)
    }

    /// A person standing still with 1 %-of-size keypoint noise; frames at 30 fps.
    func stillFrames(count: Int, diagonal: Double, noise: inout NoiseSource) -> [(Double, Pose)] {
        (0..<count).map { i in
            var pose = gridPerson(x: 200, y: 100, width: diagonal / 2.5)
            for k in pose.keypoints.indices {
                pose.keypoints[k].position.x += noise.normal(sigma: 0.01 * diagonal)
                pose.keypoints[k].position.y += noise.normal(sigma: 0.01 * diagonal)
            }
            return (Double(i) / 30, pose)
        }
    }

    func smoothed(_ frames: [(Double, Pose)]) -> [Pose] {
        var smoother = PoseSmoother()
        return frames.map { t, pose in smoother.smooth(TrackedPose(trackID: 1, pose: pose, box: pose.boundingBox), time: t).pose }
    }

    /// Mean keypoint displacement from frame to frame.
    func jitter(_ poses: [Pose]) -> Double {
        var total = 0.0, count = 0
        for (a, b) in zip(poses, poses.dropFirst()) {
            for (p, q) in zip(a.keypoints, b.keypoints) { total += p.position.squaredDistance(to: q.position).squareRoot(); count += 1 }
        }
        return total / Double(count)
    }

    @Test func jitterOfAStillPersonDropsByMoreThanHalf() {
        var noise = NoiseSource(state: 0x9E3779B97F4A7C15)
        let frames = stillFrames(count: 90, diagonal: 200, noise: &noise)
        let raw = jitter(frames.map(\.1)), filtered = jitter(smoothed(frames))
        #expect(filtered < 0.5 * raw, "jitter \(raw) px -> \(filtered) px")
    }

    /// The filter is scaled to the person: the same motion at 3x the size, smoothed, is the
    /// smoothed small motion at 3x.
    @Test func smoothingScalesWithThePersonsSize() {
        var noise = NoiseSource(state: 7)
        let small = stillFrames(count: 40, diagonal: 100, noise: &noise).enumerated().map { i, frame in
            (frame.0, Pose(keypoints: frame.1.keypoints.map {
                Keypoint(position: Point(x: $0.position.x + 40 * sin(Double(i) / 5), y: $0.position.y), score: $0.score)
            }, score: frame.1.score))
        }
        let large = small.map { t, pose in
            (t, Pose(keypoints: pose.keypoints.map { Keypoint(position: Point(x: 3 * $0.position.x, y: 3 * $0.position.y), score: $0.score) }, score: pose.score))
        }
        for (a, b) in zip(smoothed(small), smoothed(large)) {
            for (p, q) in zip(a.keypoints, b.keypoints) {
                #expect(abs(3 * p.position.x - q.position.x) < 1e-6 && abs(3 * p.position.y - q.position.y) < 1e-6)
            }
        }
    }

    /// Lag on a known path: a person (diagonal 200 px) swinging sideways, sampled at 30 fps
    /// with irregular frame times (±30 % of a frame) and 1 %-of-size noise. The time shift that
    /// best aligns the smoothed track with the true path is the added lag: at most one frame at
    /// exercise paces (arms in jumping jacks: 0.5 diagonals at 1 Hz; hips in squats: 0.2 at 0.5 Hz),
    /// and under two frames for a slow sway (0.1 diagonals at 0.25 Hz), where the filter is
    /// closest to its still-keypoint cutoff.
    @Test(arguments: [(0.5, 1.0, 1.0), (0.2, 0.5, 1.0), (0.1, 0.25, 2.0)])
    func addedLagOnAKnownPath(amplitudeInDiagonals: Double, frequency: Double, maximumFrames: Double) {
        var noise = NoiseSource(state: 12345)
        let diagonal = 200.0, amplitude = amplitudeInDiagonals * diagonal
        func path(_ t: Double) -> Double { 300 + amplitude * sin(2 * .pi * frequency * t) }
        let times = (0..<240).map { Double($0) / 30 + ($0 > 0 ? 0.3 / 30 * (2 * noise.uniform() - 1) : 0) }
        let frames = times.map { t in
            var pose = gridPerson(x: 0, y: 100, width: diagonal / 2.5)
            for k in pose.keypoints.indices { pose.keypoints[k].position.x += path(t) + noise.normal(sigma: 0.01 * diagonal) }
            return (t, pose)
        }
        let nose = smoothed(frames).map { $0.keypoints[0].position.x }
        func error(shift: Double) -> Double {
            zip(times, nose).dropFirst(30).map { t, x in pow(x - path(t - shift), 2) }.reduce(0, +)
        }
        let shifts = stride(from: 0.0, through: 0.2, by: 0.001)
        let lag = shifts.min { error(shift: $0) < error(shift: $1) }!
        #expect(lag * 30 <= maximumFrames, "lag \(lag * 30) frames")
    }

    /// ``PoseStream`` hands the tracker's boxes to its smoother instead of measuring them again:
    /// the same people as a tracker and a smoother run separately, where the smoother measures
    /// every box itself, whether the tracker's keypoint score is the smoother's (the box is
    /// reused) or not (it is not). Keypoints scoring 0.4 widen the box at 0.3 but not at 0.5.
    @Test(arguments: [0.3, 0.5])
    func theStreamReusesTheTrackersBoxesOnlyWhenTheyAreTheSmoothers(keypointScore: Double) throws {
        var noise = NoiseSource(state: 99)
        var tracking = PoseTracker.Configuration()
        tracking.keypointScore = keypointScore
        var stream = try PoseStream(configuration: PoseStream.Configuration(tracking: tracking, smoothing: true))
        var tracker = try PoseTracker(configuration: tracking)
        var smoother = PoseSmoother()
        for frame in 0..<60 {
            let time = Double(frame) / 30
            let poses = [(100.0, 50.0), (400.0, 80.0)].map { x, y in
                var pose = gridPerson(x: x + 3 * Double(frame), y: y, width: 60 + noise.normal(sigma: 3))
                for k in pose.keypoints.indices {
                    pose.keypoints[k].position.x += noise.normal(sigma: 1)
                    pose.keypoints[k].score = k >= 13 ? 0.4 : 0.9   // knees and ankles: confident at 0.3 only
                    if k >= 13 { pose.keypoints[k].position.y += 40 * noise.uniform() }
                }
                return pose
            }
            let tracked = tracker.update(poses: poses, time: time)
            #expect(tracked.allSatisfy { $0.box == $0.pose.boundingBox(minimumScore: keypointScore) }, "frame \(frame)")
            // The stream also names each pose by its track (`Pose.id`).
            let separately = smoother.smooth(tracked, time: time, liveTrackIDs: tracker.liveTrackIDs).map { person in
                var identified = person
                identified.pose.id = person.trackID
                return identified
            }
            #expect(stream.process(poses, frameIndex: frame, time: time) == separately, "frame \(frame)")
        }
    }
}
