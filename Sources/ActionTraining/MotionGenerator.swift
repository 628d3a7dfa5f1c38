import Foundation
import ActionNet
import PoseCore

/// Procedural exercise motion: every class, and the `other` activities, as scripted
/// ``FigurePose`` sequences with randomised tempo, amplitude, style and transitions.
enum MotionKind: CaseIterable {
    case squats, lunges, jumpingJacks, burpees
    case standing, walking, pushUps, sitting, armCircles, randomMotion, toeTouch

    /// The training label of the motion's active part.
    var action: ActionClass {
        switch self {
        case .squats: return .squats
        case .lunges: return .lunges
        case .jumpingJacks: return .jumpingJacks
        case .burpees: return .burpees
        default: return .other
        }
    }
}

/// One generated frame: the figure pose and whether the exercise (not a standing lead-in) is under way.
struct MotionFrame { var pose: FigurePose; var active: Bool }

struct MotionGenerator {
    static let deg = Double.pi / 180

    /// Rises 0→1→0 over one repetition with a hold of fraction `hold` at the extreme.
    static func excursion(_ phase: Double, hold: Double) -> Double {
        let half = max(0.5 - hold / 2, 0.05)
        let x = phase < 0.5 ? phase / half : (1 - phase) / half
        return 0.5 - 0.5 * cos(Double.pi * min(max(x, 0), 1))
    }

    static func standing(_ rng: inout SeededRandom) -> FigurePose {
        var p = FigurePose()
        let a = rng.uniform(0.03...0.25), e = rng.uniform(0.05...0.4)
        p.shoulderAbduction = (a, a + rng.uniform(-0.05...0.05)); p.elbow = (e, e)
        let stance = rng.uniform(0...0.12)
        p.hipAbduction = (stance, stance)
        return p
    }

    /// A sequence of `count` frames at `fps` for `kind`.
    static func sequence(_ kind: MotionKind, count: Int, fps: Double, rng: inout SeededRandom) -> [MotionFrame] {
        var base = standing(&rng)
        let duration = Double(count) / fps
        // Lead-in / lead-out of standing (transitions from and to standing).
        let leadIn = rng.chance(0.4) ? rng.uniform(0.3...2.0) : 0
        let leadOut = rng.chance(0.3) ? rng.uniform(0.3...1.5) : 0
        let activeEnd = max(duration - leadOut, leadIn + 0.5)
        let period: Double
        switch kind {
        case .squats: period = rng.uniform(1.4...4.0)
        case .lunges: period = rng.uniform(1.6...4.0)
        case .jumpingJacks: period = rng.uniform(0.6...1.6)
        case .burpees: period = rng.uniform(2.5...5.5)
        case .walking: period = rng.uniform(0.9...1.4)
        case .pushUps: period = rng.uniform(1.2...3.0)
        case .armCircles: period = rng.uniform(0.8...2.0)
        case .toeTouch: period = rng.uniform(2.0...5.0)
        default: period = rng.uniform(1.0...3.0)
        }
        let hold = rng.uniform(0...0.3)
        let startPhase = rng.chance(0.3) ? rng.uniform() : 0  // sometimes the clip starts mid-repetition
        var extreme = base
        var second = base    // lunges: the other leg; burpees: the plank
        var third = base     // burpees: the jump
        switch kind {
        case .squats:
            let depth = rng.uniform(0.7...1.1)
            let flex = (rng.uniform(85...115)) * deg * depth
            extreme.hipFlex = (flex, flex); extreme.knee = (flex * rng.uniform(1.1...1.35), flex * rng.uniform(1.1...1.35))
            extreme.torsoPitch = rng.uniform(15...45) * deg * depth
            let wide = rng.uniform(0.05...0.35)
            extreme.hipAbduction = (wide, wide); extreme.rootPitch = 0
            switch Int(rng.uniform() * 4) {
            case 0, 1: extreme.shoulderFlex = (rng.uniform(70...100) * deg, rng.uniform(70...100) * deg); extreme.elbow = (0.1, 0.1)
            case 2: extreme.shoulderFlex = (50 * deg, 50 * deg); extreme.elbow = (2.2, 2.2)
            default: break
            }
            if rng.chance(0.3) { base.shoulderFlex = extreme.shoulderFlex; base.elbow = extreme.elbow }  // arms held forward throughout
        case .lunges:
            // A lunge goes deep (front thigh near horizontal) with the torso upright; that and
            // the split legs are what tell it from a squat, whose torso leans forward.
            let depth = rng.uniform(0.75...1.1)
            extreme.hipFlex = (rng.uniform(70...95) * deg * depth, -rng.uniform(10...35) * deg * depth)
            extreme.knee = (rng.uniform(75...105) * deg * depth, rng.uniform(70...110) * deg * depth)
            extreme.torsoPitch = rng.uniform(-5...12) * deg
            if rng.chance(0.5) { extreme.shoulderAbduction = (0.5, 0.5); extreme.elbow = (1.8, 1.8) }  // hands on hips
            second = extreme
            second.hipFlex = (extreme.hipFlex.1, extreme.hipFlex.0); second.knee = (extreme.knee.1, extreme.knee.0)
            if rng.chance(0.4) { second = extreme }  // same leading leg every repetition
        case .jumpingJacks:
            let arms = rng.uniform(120...175) * deg, legs = rng.uniform(12...28) * deg
            extreme.shoulderAbduction = (arms, arms); extreme.hipAbduction = (legs, legs)
            extreme.elbow = (rng.uniform(0...0.4), rng.uniform(0...0.4))
        case .burpees:
            extreme.hipFlex = (110 * deg, 110 * deg); extreme.knee = (120 * deg, 120 * deg)
            extreme.torsoPitch = rng.uniform(45...70) * deg
            extreme.shoulderFlex = (rng.uniform(70...100) * deg, rng.uniform(70...100) * deg); extreme.elbow = (0, 0)
            second = FigurePose()
            second.rootPitch = rng.uniform(70...85) * deg
            second.shoulderFlex = (rng.uniform(80...100) * deg, rng.uniform(80...100) * deg)
            second.elbow = (0.05, 0.05); second.shoulderAbduction = (0.1, 0.1)
            second.hipAbduction = (rng.uniform(0...0.15), rng.uniform(0...0.15))
            third = base
            third.shoulderFlex = (rng.uniform(150...180) * deg, rng.uniform(150...180) * deg)
            third.jump = rng.uniform(0.1...0.45)
        case .pushUps:
            extreme = FigurePose(); extreme.rootPitch = rng.uniform(72...88) * deg
            let arm = rng.uniform(80...100) * deg
            extreme.shoulderFlex = (arm, arm); extreme.shoulderAbduction = (0.2, 0.2); extreme.elbow = (0.05, 0.05)
            second = extreme
            second.elbow = (rng.uniform(60...100) * deg, rng.uniform(60...100) * deg)
            second.shoulderFlex = (arm - 0.3, arm - 0.3)
            if rng.chance(0.3) { extreme.knee = (1.5, 1.5); second.knee = (1.5, 1.5) }  // knee push-ups
        case .sitting:
            extreme.hipFlex = (rng.uniform(80...100) * deg, rng.uniform(80...100) * deg)
            extreme.knee = (rng.uniform(70...100) * deg, rng.uniform(70...100) * deg)
            extreme.torsoPitch = rng.uniform(-15...20) * deg
            extreme.shoulderFlex = (0.6, 0.6); extreme.elbow = (1.2, 1.2)
        case .toeTouch:
            extreme.torsoPitch = rng.uniform(60...110) * deg
            extreme.shoulderFlex = (rng.uniform(60...110) * deg, rng.uniform(60...110) * deg)
            extreme.hipAbduction = (rng.uniform(0...0.3), rng.uniform(0...0.3))
        default: break
        }
        let ampJitter = (0..<64).map { _ in rng.uniform(0.85...1.1) }
        let periodJitter = (0..<64).map { _ in rng.uniform(0.9...1.1) }
        let stepFlex = rng.uniform(0.3...0.8), backStep = rng.uniform(0.2...0.5)   // lunges: the split stance
        let forwardLunge = rng.chance(0.75)
        let walkSpeed = rng.uniform(-1.2...1.2), walkYaw = rng.uniform(-1.6...1.6)
        var randomKeys = (0..<32).map { _ in Self.randomPose(&rng) }
        randomKeys[0] = base
        let circleSign: Double = rng.chance(0.5) ? 1 : -1
        let sway = rng.uniform(0...0.05)

        var frames: [MotionFrame] = []
        frames.reserveCapacity(count)
        var phaseAcc = startPhase, lastT = 0.0, rep = 0
        for i in 0..<count {
            let t = Double(i) / fps
            let active = t >= leadIn && t < activeEnd
            var pose = base
            pose.yaw = sway * sin(t * 1.3)
            if active {
                phaseAcc += (t - lastT) / (period * periodJitter[rep % 64])
                if phaseAcc >= 1 { phaseAcc -= 1; rep += 1 }
                let phase = phaseAcc, amp = ampJitter[rep % 64]
                switch kind {
                case .squats, .jumpingJacks, .toeTouch:
                    pose = FigurePose.blend(base, extreme, excursion(phase, hold: hold) * amp)
                    if kind == .jumpingJacks { pose.jump = 0.12 * amp * abs(sin(2 * Double.pi * phase)) }
                case .lunges:
                    // stand → step into a split stance → down → back up → feet together
                    let bottom = rep % 2 == 0 ? extreme : second
                    var split = FigurePose.blend(base, bottom, 0.15)
                    // The front leg reaches forward, the back leg extends behind: the stance a
                    // side view shows between repetitions (PoseNet often merges the legs at the bottom).
                    let front = bottom.hipFlex.0 > bottom.hipFlex.1
                    let ahead = max(bottom.hipFlex.0, bottom.hipFlex.1) * stepFlex
                    split.hipFlex = front ? (ahead, -backStep) : (-backStep, ahead)
                    split.knee = (0.1, 0.1)
                    var down = FigurePose.blend(base, bottom, amp)
                    // One foot stays planted (the back one in a forward lunge, the front one in a
                    // reverse lunge), so the hips travel along the floor with the step.
                    split.shiftZ = Self.plantedShift(split, front: front, forwardLunge: forwardLunge)
                    down.shiftZ = Self.plantedShift(down, front: front, forwardLunge: forwardLunge)
                    let h = hold / 2
                    pose = Self.keyframes([(0, base), (0.2, split), (0.45 - h, down), (0.55 + h, down), (0.8, split), (1, base)], phase)
                case .burpees:
                    // stand → crouch, hands down → plank → crouch → jump with arms up → stand
                    let keys: [(Double, FigurePose)] = [(0, base), (0.17, extreme), (0.32, second), (0.52, second), (0.66, extreme), (0.82, third), (0.92, base), (1, base)]
                    pose = Self.keyframes(keys, phase)
                case .pushUps:
                    pose = FigurePose.blend(extreme, second, excursion(phase, hold: hold) * amp)
                case .sitting:
                    pose = extreme
                    pose.shoulderFlex.0 += 0.3 * sin(t * 2.1); pose.torsoPitch += 0.1 * sin(t * 0.7)
                case .walking:
                    let s = sin(2 * Double.pi * phase), c = cos(2 * Double.pi * phase)
                    pose.hipFlex = (0.4 * s, -0.4 * s)
                    pose.knee = (0.6 * max(0, c), 0.6 * max(0, -c))
                    pose.shoulderFlex = (-0.35 * s, 0.35 * s)
                    pose.yaw = walkYaw
                    pose.shiftX = walkSpeed * (t - leadIn) * sin(walkYaw)
                    pose.shiftZ = walkSpeed * (t - leadIn) * cos(walkYaw)
                    pose.jump = 0.03 * abs(s)
                case .armCircles:
                    let a = 2 * Double.pi * phase * circleSign
                    pose.shoulderAbduction = (1.5 + 0.35 * sin(a), 1.5 + 0.35 * sin(a))
                    pose.shoulderFlex = (0.35 * cos(a), 0.35 * cos(a))
                    pose.elbow = (0.05, 0.05)
                case .randomMotion:
                    let pos = (t - leadIn) / period
                    let k = Int(pos), f = pos - Double(k)
                    pose = FigurePose.blend(randomKeys[k % 32], randomKeys[(k + 1) % 32], 0.5 - 0.5 * cos(Double.pi * f))
                case .standing:
                    pose.shoulderFlex = (0.25 * sin(t * 0.9), 0.2 * sin(t * 1.1 + 1))
                    pose.elbow = (base.elbow.0 + 0.3 * max(0, sin(t * 0.5)), base.elbow.1)
                }
            } else if kind == .pushUps || kind == .sitting {
                // Getting down into position / standing up takes about a second.
                let into = min(max((t - (leadIn - 1)) / 1, 0), 1), outOf = min(max((t - activeEnd) / 1, 0), 1)
                pose = FigurePose.blend(base, extreme, t < leadIn ? into : 1 - outOf)
            }
            lastT = t
            frames.append(MotionFrame(pose: pose, active: active))
        }
        return frames
    }

    /// Floor shift (+z = forward) that keeps a lunge's planted foot where it stood: the back
    /// foot in a forward lunge (`forwardLunge`), else the front one. `front` is true when the
    /// left leg leads. Nominal thigh and shin of 0.9 torso; the figure's own differ a little.
    static func plantedShift(_ p: FigurePose, front: Bool, forwardLunge: Bool) -> Double {
        let leftLeads = front
        let planted = forwardLunge != leftLeads   // true: the left foot stays put
        let (flex, knee) = planted ? (p.hipFlex.0, p.knee.0) : (p.hipFlex.1, p.knee.1)
        return -0.9 * (sin(flex) + sin(flex - knee))
    }

    static func keyframes(_ keys: [(Double, FigurePose)], _ phase: Double) -> FigurePose {
        for i in 1..<keys.count where phase <= keys[i].0 {
            let (t0, a) = keys[i - 1], (t1, b) = keys[i]
            let f = (phase - t0) / max(t1 - t0, 1e-9)
            return FigurePose.blend(a, b, 0.5 - 0.5 * cos(Double.pi * f))
        }
        return keys.last!.1
    }

    /// A random, moderate pose for the `random motion` part of `other`.
    static func randomPose(_ rng: inout SeededRandom) -> FigurePose {
        var p = FigurePose()
        p.shoulderFlex = (rng.uniform(-0.5...2.5), rng.uniform(-0.5...2.5))
        p.shoulderAbduction = (rng.uniform(0...2.0), rng.uniform(0...2.0))
        p.elbow = (rng.uniform(0...2), rng.uniform(0...2))
        p.hipFlex = (rng.uniform(-0.2...0.6), rng.uniform(-0.2...0.6))
        p.knee = (rng.uniform(0...0.6), rng.uniform(0...0.6))
        p.hipAbduction = (rng.uniform(0...0.3), rng.uniform(0...0.3))
        p.torsoPitch = rng.uniform(-0.1...0.5)
        p.yaw = rng.uniform(-0.8...0.8)
        return p
    }
}
