import Foundation
import Testing
import PoseNet
@testable import ActionNet

/// Repetition counting on noiseless stick figures driven by sinusoids with known counts.
struct RepetitionTests {
    /// Renders `reps` repetitions blending standing → `extreme` with (1 − cos)/2 over `period` seconds.
    func drive(_ extreme: FigurePose, reps: Int, period: Double, cameraYaw: Double, leadIn: Double = 0.6, fps: Double = 30,
               keyframes: [(Double, FigurePose)]? = nil) -> [ResampledFrame] {
        var rng = SeededRandom(seed: 4)
        var figure = StickFigure(random: &rng)
        figure.cameraYaw = cameraYaw; figure.cameraPitch = 0.1; figure.cameraHeight = 1.5
        figure.jitter = 0; figure.dropout = 0; figure.frameMiss = 0; figure.swapRate = 0
        figure.scoreScale = 1; figure.collapseRate = 0
        let count = Int((leadIn * 2 + Double(reps) * period) * fps)
        var out: [ResampledFrame] = []
        for i in 0..<count {
            let t = Double(i) / fps - leadIn
            var pose = FigurePose()
            if t >= 0 && t < Double(reps) * period {
                let phase = t / period - (t / period).rounded(.down)
                if let keys = keyframes { pose = MotionGenerator.keyframes(keys, phase) }
                else { pose = FigurePose.blend(FigurePose(), extreme, 0.5 - 0.5 * cos(2 * Double.pi * phase)) }
            }
            out.append(ResampledFrame(slot: i, time: Double(i) / fps, sourceFrame: i, pose: figure.render(pose, rng: &rng), trackID: 1))
        }
        return out
    }

    func count(_ frames: [ResampledFrame], _ action: ActionClass) -> Int {
        var counter = RepetitionCounter()
        return frames.reduce(0) { $0 + counter.update($1).filter { $0.action == action }.count }
    }

    @Test(arguments: [0.0, 1.45, 0.6])
    func squats(cameraYaw: Double) {
        var bottom = FigurePose()
        bottom.hipFlex = (1.6, 1.6); bottom.knee = (2.0, 2.0); bottom.torsoPitch = 0.5
        for reps in [1, 3, 5] {
            #expect(count(drive(bottom, reps: reps, period: 2.2, cameraYaw: cameraYaw), .squats) == reps, "\(reps) reps, yaw \(cameraYaw)")
        }
    }

    @Test func aFewFramesWithTheAnklesTooLowDoNotStopTheCount() {
        // PoseNet sometimes puts the ankles far below the feet for a frame; such outliers must not
        // become the standing reference, or the person never looks back up between squats.
        var bottom = FigurePose()
        bottom.hipFlex = (1.6, 1.6); bottom.knee = (2.0, 2.0); bottom.torsoPitch = 0.5
        let frames = drive(bottom, reps: 4, period: 2.2, cameraYaw: 0).enumerated().map { i, f -> ResampledFrame in
            guard i % 15 == 0, var pose = f.pose else { return f }
            let torso = pose.midpoint(.leftHip, .rightHip).squaredDistance(to: pose.midpoint(.leftShoulder, .rightShoulder)).squareRoot()
            for a in [BodyPart.leftAnkle, .rightAnkle] { pose.keypoints[a.rawValue].position.y += 0.8 * torso }
            var g = f
            g.pose = pose
            return g
        }
        #expect(count(frames, .squats) == 4)
    }

    @Test func lunges() {
        var bottom = FigurePose()
        bottom.hipFlex = (1.4, -0.4); bottom.knee = (1.5, 1.7)
        #expect(count(drive(bottom, reps: 4, period: 2.5, cameraYaw: 1.5), .lunges) == 4)
    }

    @Test func jumpingJacks() {
        var open = FigurePose()
        open.shoulderAbduction = (2.8, 2.8); open.hipAbduction = (0.4, 0.4)
        for reps in [2, 6, 11] {
            #expect(count(drive(open, reps: reps, period: 0.9, cameraYaw: 0), .jumpingJacks) == reps)
        }
    }

    @Test func burpees() {
        var crouch = FigurePose(); crouch.hipFlex = (1.9, 1.9); crouch.knee = (2.1, 2.1); crouch.torsoPitch = 1.0; crouch.shoulderFlex = (1.5, 1.5)
        var plank = FigurePose(); plank.rootPitch = 1.4; plank.shoulderFlex = (1.57, 1.57)
        var jump = FigurePose(); jump.shoulderFlex = (3, 3); jump.jump = 0.3
        let keys: [(Double, FigurePose)] = [(0, FigurePose()), (0.17, crouch), (0.32, plank), (0.52, plank), (0.66, crouch), (0.82, jump), (0.92, FigurePose()), (1, FigurePose())]
        for yaw in [1.5, 0.0] {
            #expect(count(drive(FigurePose(), reps: 3, period: 3.5, cameraYaw: yaw, keyframes: keys), .burpees) == 3, "yaw \(yaw)")
        }
    }

    @Test func standingStillCountsNothing() {
        let frames = drive(FigurePose(), reps: 5, period: 2, cameraYaw: 0.3)
        for a in ActionClass.exercises { #expect(count(frames, a) == 0) }
    }

    @Test func startingMidRepetitionDoesNotCountThatRepetition() {
        var open = FigurePose()
        open.shoulderAbduction = (2.8, 2.8); open.hipAbduction = (0.4, 0.4)
        // Drop the lead-in and the first 0.45 s: the clip starts wide open.
        let frames = Array(drive(open, reps: 5, period: 0.9, cameraYaw: 0, leadIn: 0).dropFirst(13))
        #expect(count(frames, .jumpingJacks) == 4)
    }
}
