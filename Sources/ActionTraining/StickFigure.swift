import Foundation
import ActionNet
import PoseCore

/// Joint angles of the articulated stick figure (radians) plus whole-body placement.
///
/// Limb directions use one convention: a limb at rest hangs down; `flex` swings it forward in the
/// sagittal plane (90° = pointing forward, 180° = overhead); `abduction` swings it out sideways
/// (90° = horizontal to the side). Knees bend the shin backward, elbows bend the forearm forward.
struct FigurePose {
    var rootPitch = 0.0      // whole body tipped forward about the hips (≈ 80° in a plank)
    var torsoPitch = 0.0     // torso lean forward relative to the legs
    var hipFlex = (0.0, 0.0), hipAbduction = (0.0, 0.0), knee = (0.0, 0.0)          // (left, right)
    var shoulderFlex = (0.0, 0.0), shoulderAbduction = (0.1, 0.1), elbow = (0.1, 0.1)
    var jump = 0.0           // lift off the floor, torso units
    var yaw = 0.0            // body turn about the vertical axis
    var shiftX = 0.0, shiftZ = 0.0   // translation on the floor

    /// Linear blend `a + (b − a)·t` of every field.
    static func blend(_ a: FigurePose, _ b: FigurePose, _ t: Double) -> FigurePose {
        func l(_ x: Double, _ y: Double) -> Double { x + (y - x) * t }
        func l2(_ x: (Double, Double), _ y: (Double, Double)) -> (Double, Double) { (l(x.0, y.0), l(x.1, y.1)) }
        var p = FigurePose()
        p.rootPitch = l(a.rootPitch, b.rootPitch); p.torsoPitch = l(a.torsoPitch, b.torsoPitch)
        p.hipFlex = l2(a.hipFlex, b.hipFlex); p.hipAbduction = l2(a.hipAbduction, b.hipAbduction); p.knee = l2(a.knee, b.knee)
        p.shoulderFlex = l2(a.shoulderFlex, b.shoulderFlex); p.shoulderAbduction = l2(a.shoulderAbduction, b.shoulderAbduction)
        p.elbow = l2(a.elbow, b.elbow); p.jump = l(a.jump, b.jump); p.yaw = l(a.yaw, b.yaw)
        p.shiftX = l(a.shiftX, b.shiftX); p.shiftZ = l(a.shiftZ, b.shiftZ)
        return p
    }
}

/// A randomised body (limb lengths in torso units) and camera, rendering ``FigurePose``s to
/// 2-D keypoints with PoseNet-like noise.
struct StickFigure {
    var hipHalfWidth, shoulderHalfWidth, upperArm, forearm, thigh, shin, neck: Double
    // Camera: yaw around the person (0 = facing the camera, ±π/2 = side view), pitch, distance.
    var cameraYaw, cameraPitch, cameraDistance, cameraHeight: Double
    var imageWidth, imageHeight: Double
    var focal: Double
    var centerX, centerY: Double
    // Noise: jitter σ in pixels per person height, keypoint dropout rate, whole-frame miss rate.
    var jitter, dropout, frameMiss, swapRate: Double
    /// Scales every score (PoseNet is much less sure of itself on some videos), lying poses more.
    var scoreScale: Double
    /// Long-run fraction of frames in which the far leg collapses onto the near one, as
    /// PoseNet's single-pose decode does in side views; collapses come in bursts.
    var collapseRate: Double
    /// Scales the ankles' scores: on many videos PoseNet barely finds the feet (dark shoes,
    /// floor, image edge), so they fall under the keypoint gate in most frames.
    var footScore: Double
    /// Scales the legs' scores when the body lies (plank, push-up): seen end-on or along the
    /// floor, PoseNet loses the legs far more than the arms.
    var lyingLegScore: Double
    /// Chance per frame that PoseNet loses most of a body lying low with bent arms (a push-up's
    /// bottom, chest near the floor): only a handful of keypoints keep a usable score.
    var lowBodyLoss: Double
    private var collapsed = false

    init(random rng: inout SeededRandom) {
        hipHalfWidth = rng.uniform(0.15...0.24); shoulderHalfWidth = rng.uniform(0.3...0.42)
        upperArm = rng.uniform(0.55...0.68); forearm = rng.uniform(0.5...0.62)
        thigh = rng.uniform(0.8...0.98); shin = rng.uniform(0.8...0.98); neck = rng.uniform(0.3...0.42)
        let view = rng.uniform()
        cameraYaw = view < 0.35 ? rng.uniform(-0.35...0.35) : (view < 0.7 ? (rng.chance(0.5) ? 1 : -1) * rng.uniform(1.2...1.6)
                                                              : (rng.chance(0.5) ? 1 : -1) * rng.uniform(0.35...1.2))
        cameraPitch = rng.uniform(-0.1...0.35)
        cameraDistance = rng.uniform(6...14)
        cameraHeight = rng.uniform(0.5...2.5)
        let sizes: [(Double, Double)] = [(640, 360), (640, 480), (406, 720), (640, 362)]
        let s = sizes[Int(rng.uniform() * Double(sizes.count)) % sizes.count]
        imageWidth = s.0; imageHeight = s.1
        let personFraction = rng.uniform(0.35...0.9)  // standing height / image height
        focal = personFraction * imageHeight * cameraDistance / 3.4
        centerX = imageWidth * rng.uniform(0.3...0.7); centerY = imageHeight * rng.uniform(0.45...0.65)
        jitter = rng.uniform(0.003...0.015); dropout = rng.uniform(0.0...0.08)
        frameMiss = rng.uniform(0.0...0.04); swapRate = rng.uniform(0.0...0.04)
        scoreScale = rng.chance(0.5) ? 1 : rng.uniform(0.35...1)
        collapseRate = abs(sin(cameraYaw)) > 0.6 && rng.chance(0.6) ? rng.uniform(0.2...0.9) : 0
        footScore = rng.chance(0.35) ? rng.uniform(0.1...0.5) : 1
        lyingLegScore = rng.chance(0.5) ? rng.uniform(0.1...0.5) : 1
        lowBodyLoss = rng.chance(0.5) ? rng.uniform(0.3...0.9) : 0
    }

    typealias Vec = SIMD3<Double>

    /// The 17 joint positions in world units (y up, floor at 0), COCO order.
    func joints(_ p: FigurePose) -> [Vec] {
        let up = Vec(0, 1, 0), fwd = Vec(0, 0, 1), side = Vec(1, 0, 0)
        func limb(_ flex: Double, _ abd: Double, _ s: Double, up: Vec, fwd: Vec, side: Vec) -> Vec {
            s * sin(abd) * side + cos(abd) * (-cos(flex) * up + sin(flex) * fwd)
        }
        var j = [Vec](repeating: .zero, count: 17)
        // Legs in the pelvis frame.
        for (i, s) in [(0, 1.0), (1, -1.0)] {
            let hipFlex = i == 0 ? p.hipFlex.0 : p.hipFlex.1, abd = i == 0 ? p.hipAbduction.0 : p.hipAbduction.1
            let knee = i == 0 ? p.knee.0 : p.knee.1
            let hip = Vec(s * hipHalfWidth, 0, 0)
            let k = hip + thigh * limb(hipFlex, abd, s, up: up, fwd: fwd, side: side)
            let a = k + shin * limb(hipFlex - knee, abd, s, up: up, fwd: fwd, side: side)
            j[BodyPart.leftHip.rawValue + i] = hip; j[BodyPart.leftKnee.rawValue + i] = k; j[BodyPart.leftAnkle.rawValue + i] = a
        }
        // Torso, leaning forward by torsoPitch.
        let tu = Vec(0, cos(p.torsoPitch), sin(p.torsoPitch)), tf = Vec(0, -sin(p.torsoPitch), cos(p.torsoPitch))
        let shoulderCenter = tu * 1.0
        for (i, s) in [(0, 1.0), (1, -1.0)] {
            let flex = i == 0 ? p.shoulderFlex.0 : p.shoulderFlex.1, abd = i == 0 ? p.shoulderAbduction.0 : p.shoulderAbduction.1
            let elbowAngle = i == 0 ? p.elbow.0 : p.elbow.1
            let sh = shoulderCenter + Vec(s * shoulderHalfWidth, 0, 0)
            let d = limb(flex, abd, s, up: tu, fwd: tf, side: side)
            var w = tf - (tf * d).sum() * d
            if (w * w).sum() < 1e-6 { w = tu - (tu * d).sum() * d }
            w /= max((w * w).sum().squareRoot(), 1e-9)
            let e = sh + upperArm * d
            let wr = e + forearm * (cos(elbowAngle) * d + sin(elbowAngle) * w)
            j[BodyPart.leftShoulder.rawValue + i] = sh; j[BodyPart.leftElbow.rawValue + i] = e; j[BodyPart.leftWrist.rawValue + i] = wr
        }
        let nose = shoulderCenter + neck * tu + 0.12 * tf
        j[BodyPart.nose.rawValue] = nose
        j[BodyPart.leftEye.rawValue] = nose + Vec(0.06, 0.05, -0.03); j[BodyPart.rightEye.rawValue] = nose + Vec(-0.06, 0.05, -0.03)
        j[BodyPart.leftEar.rawValue] = nose + Vec(0.13, 0.02, -0.13); j[BodyPart.rightEar.rawValue] = nose + Vec(-0.13, 0.02, -0.13)
        // Whole body: tip forward about the pelvis, turn, put the lowest joint on the floor.
        let cp = cos(p.rootPitch), sp = sin(p.rootPitch), cy = cos(p.yaw), sy = sin(p.yaw)
        var minY = Double.infinity
        for i in 0..<17 {
            let v = j[i]
            let pitched = Vec(v.x, v.y * cp - v.z * sp, v.y * sp + v.z * cp)
            j[i] = Vec(pitched.x * cy + pitched.z * sy, pitched.y, -pitched.x * sy + pitched.z * cy)
            minY = min(minY, j[i].y)
        }
        for i in 0..<17 { j[i] += Vec(p.shiftX, p.jump - minY, p.shiftZ) }
        return j
    }

    /// Projects world joints to image pixels and returns a PoseNet-like noisy pose (nil = missed frame).
    mutating func render(_ p: FigurePose, rng: inout SeededRandom) -> Pose? {
        if rng.chance(frameMiss) { return nil }
        let world = joints(p)
        let cy = cos(cameraYaw), sy = sin(cameraYaw), cp = cos(cameraPitch), sp = sin(cameraPitch)
        var pts: [(x: Double, y: Double, depth: Double)] = []
        for v in world {
            // Camera at (0, cameraHeight, cameraDistance) after turning the scene by cameraYaw,
            // looking along −z and tilted down by cameraPitch.
            let x = v.x * cy - v.z * sy, z = v.x * sy + v.z * cy
            let ry = v.y - cameraHeight, rz = z - cameraDistance
            let depth = max(-ry * sp - rz * cp, 0.5)
            let yCamera = ry * cp - rz * sp
            pts.append((centerX + focal * x / depth, centerY - focal * yCamera / depth, depth))
        }
        let height = (pts.map(\.y).max()! - pts.map(\.y).min()!) + 1
        let centerDepth = (pts[BodyPart.leftHip.rawValue].depth + pts[BodyPart.rightHip.rawValue].depth) / 2
        var kps: [Keypoint] = []
        let sigma = jitter * max(height, 40)
        for (i, pt) in pts.enumerated() {
            let part = BodyPart(rawValue: i)!
            var score = rng.uniform(0.75...0.99) * scoreScale * (abs(p.rootPitch) > 0.8 ? rng.uniform(0.6...1) : 1)
            if pt.depth > centerDepth + 0.1 && part != .nose { score *= rng.uniform(0.2...0.95) }  // far side, partly hidden
            if part == .leftAnkle || part == .rightAnkle { score *= footScore * rng.uniform(0.7...1.3) }
            if i >= BodyPart.leftKnee.rawValue && abs(p.rootPitch) > 0.8 { score *= lyingLegScore * rng.uniform(0.6...1.4) }
            if i <= 4 && abs(sin(cameraYaw)) > 0.8 { score *= rng.uniform(0.5...1) }
            var x = pt.x + sigma * rng.gaussian(), y = pt.y + sigma * rng.gaussian()
            if rng.chance(dropout) {
                score = rng.uniform(0.02...0.3)
                x += rng.gaussian() * height * 0.15; y += rng.gaussian() * height * 0.15
            }
            kps.append(Keypoint(position: Point(x: x, y: y), score: score))
        }
        if abs(p.rootPitch) > 0.8 && (p.elbow.0 + p.elbow.1) / 2 > 0.6 && rng.chance(lowBodyLoss) {
            let kept = 4 + Int(rng.uniform() * 4)
            var order = Array(0..<17)
            order.shuffle(using: &rng)
            for i in order.dropFirst(kept) { kps[i].score *= rng.uniform(0.02...0.2) }
        }
        // Bursty collapse: the state flips with a probability that keeps `collapseRate` on average.
        if collapseRate > 0 && rng.chance(0.15) { collapsed = rng.chance(collapseRate) }
        if collapsed && collapseRate > 0 {
            let leftFar = pts[BodyPart.leftKnee.rawValue].depth > pts[BodyPart.rightKnee.rawValue].depth
            // Mostly all the way onto the near leg, sometimes only part way (PoseNet hedging
            // between two similar-looking legs).
            let pull = rng.chance(0.5) ? 1 : rng.uniform(0.5...1)
            for (l, r) in [(BodyPart.leftKnee, BodyPart.rightKnee), (.leftAnkle, .rightAnkle)] {
                let (far, near) = leftFar ? (l, r) : (r, l)
                let f = kps[far.rawValue].position, n = kps[near.rawValue].position
                kps[far.rawValue].position = Point(x: f.x + pull * (n.x - f.x) + 0.02 * height * rng.gaussian(),
                                                   y: f.y + pull * (n.y - f.y) + 0.02 * height * rng.gaussian())
            }
        }
        if rng.chance(swapRate) {  // PoseNet often confuses the legs in side views
            for (l, r) in [(BodyPart.leftKnee, BodyPart.rightKnee), (.leftAnkle, .rightAnkle)] {
                let t = kps[l.rawValue].position; kps[l.rawValue].position = kps[r.rawValue].position; kps[r.rawValue].position = t
            }
        }
        return Pose(keypoints: kps, score: kps.reduce(0) { $0 + $1.score } / 17)
    }
}
