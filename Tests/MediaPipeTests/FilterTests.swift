import Foundation
import Testing
@testable import MediaPipe

/// MediaPipe's filters against a naive double-precision One-Euro written from the reference
/// README's §4.4 formulas, and the graph's reset rule.
@Suite struct FilterTests {
    /// The formulas of §4.4, per coordinate, in double throughout.
    struct NaiveOneEuro {
        let minCutoff: Double, beta: Double, derivativeCutoff: Double
        var last: (time: Double, raw: Double, value: Double, speed: Double)?

        static func alpha(_ cutoff: Double, _ frequency: Double) -> Double { 1 / (1 + (1 / (2 * Double.pi * cutoff)) * frequency) }

        mutating func apply(_ v: Double, time: Double, valueScale: Double) -> Double {
            guard let previous = last else {
                last = (time, v, v, 0)
                return v
            }
            let frequency = 1 / (time - previous.time)
            let dx = (v - previous.raw) * valueScale * frequency
            let a = Self.alpha(derivativeCutoff, frequency)
            let speed = a * dx + (1 - a) * previous.speed
            let cutoff = minCutoff + beta * abs(speed)
            let b = Self.alpha(cutoff, frequency)
            let out = b * v + (1 - b) * previous.value
            last = (time, v, out, speed)
            return out
        }
    }

    /// A jumping point (pixels) with noise: smooth parts, a fast swing, a jump.
    static func trajectory(_ frame: Int) -> (Float, Float, Float) {
        let t = Float(frame) / 30
        let noise = Float((frame * 7919) % 13) / 13 - 0.5
        let x = 0.5 + 0.2 * sinf(3 * t) + 0.002 * noise
        let y = 0.4 + (frame > 40 ? 0.1 : 0) + 0.001 * noise
        return (x, y, -0.1 + 0.01 * cosf(t))
    }

    @Test func landmarkSmoothingFollowsTheOneEuroFormulas() {
        let size = ImageSize(width: 960, height: 540)
        for settings in [LandmarksSmoothing.Settings.poseLandmarks, .poseAuxiliaryLandmarks] {
            var ours = LandmarksSmoothing(settings)
            var naive = (0..<3).map { _ in NaiveOneEuro(minCutoff: Double(settings.minCutoff), beta: Double(settings.beta),
                                                        derivativeCutoff: Double(settings.derivativeCutoff)) }
            let objectScale: Float = 230
            var largest: Double = 0
            for frame in 0..<90 {
                let (x, y, z) = Self.trajectory(frame)
                let timestamp = Int64(frame + 1) * 33_333
                let out = ours.apply(normalized: [Landmark(x: x, y: y, z: z)], timestampMicroseconds: timestamp,
                                     imageSize: size, objectScale: objectScale)[0]
                let time = Double(timestamp) * 1e-6
                let scale = 1 / Double(objectScale)
                let ex = naive[0].apply(Double(x) * 960, time: time, valueScale: scale)
                let ey = naive[1].apply(Double(y) * 540, time: time, valueScale: scale)
                let ez = naive[2].apply(Double(z) * 960, time: time, valueScale: scale)
                largest = max(largest, abs(Double(out.x) * 960 - ex), abs(Double(out.y) * 540 - ey), abs(Double(out.z) * 960 - ez))
            }
            // Float32 filter state against double: far below a thousandth of a pixel.
            #expect(largest < 1e-3, "\(settings): \(largest) px")
        }
    }

    @Test func worldSmoothingIsUnscaledAndTheFirstSamplePassesThrough() {
        var ours = LandmarksSmoothing(.poseWorldLandmarks)
        var naive = NaiveOneEuro(minCutoff: Double(Float(0.1)), beta: 40, derivativeCutoff: 1)
        var largest: Double = 0
        for frame in 0..<60 {
            let (x, _, _) = Self.trajectory(frame)
            let out = ours.apply([Landmark(x: x, y: 0, z: 0)], timestampMicroseconds: Int64(frame + 1) * 33_333)[0]
            if frame == 0 { #expect(out.x == x) }
            largest = max(largest, abs(Double(out.x) - naive.apply(Double(x), time: Double(frame + 1) * 0.033333, valueScale: 1)))
        }
        #expect(largest < 1e-5)
    }

    @Test func resetMakesTheNextSamplePassThrough() {
        var filter = LandmarksSmoothing(.poseLandmarks)
        var visibility = VisibilitySmoothing()
        let size = ImageSize(width: 100, height: 100)
        _ = filter.apply(normalized: [Landmark(x: 0.1, y: 0.1, z: 0)], timestampMicroseconds: 1, imageSize: size, objectScale: 50)
        _ = visibility.apply([Landmark(x: 0, y: 0, z: 0, visibility: 1)])
        let smoothed = filter.apply(normalized: [Landmark(x: 0.9, y: 0.9, z: 0)], timestampMicroseconds: 33_334, imageSize: size, objectScale: 50)
        #expect(smoothed[0].x < 0.9)
        #expect(visibility.apply([Landmark(x: 0, y: 0, z: 0, visibility: 0)])[0].visibility == Float(Double(Float(0.1) * 0) + (1 - Double(Float(0.1)))))
        filter.reset()
        visibility.reset()
        let fresh = filter.apply(normalized: [Landmark(x: 0.9, y: 0.9, z: 0)], timestampMicroseconds: 66_667, imageSize: size, objectScale: 50)
        #expect(fresh[0].x == 0.9 && fresh[0].y == 0.9)
        #expect(visibility.apply([Landmark(x: 0, y: 0, z: 0, visibility: 0.25)])[0].visibility == 0.25)
        // A timestamp not after the last passes the value through; a tiny object scale too.
        #expect(filter.apply(normalized: [Landmark(x: 0.2, y: 0.2, z: 0)], timestampMicroseconds: 66_667, imageSize: size, objectScale: 50)[0].x == 0.2)
        #expect(filter.apply(normalized: [Landmark(x: 0.3, y: 0.3, z: 0)], timestampMicroseconds: 99_999, imageSize: size, objectScale: 0)[0].x == 0.3)
    }
}

/// Association of palm regions with tracked regions, on hand-made rectangles.
@Suite struct AssociationTests {
    @Test func trackedRegionsReplaceOverlappingPalmRegions() {
        let palmA = NormalizedRect(xCenter: 0.3, yCenter: 0.3, width: 0.2, height: 0.2, rotation: 0.4)
        let palmB = NormalizedRect(xCenter: 0.7, yCenter: 0.7, width: 0.2, height: 0.2)
        // IoU with palm A: 0.19·0.2 / (0.04 + 0.04 − 0.038) = 0.905; rotation is ignored.
        let trackedA = NormalizedRect(xCenter: 0.31, yCenter: 0.3, width: 0.2, height: 0.2, rotation: -2)
        // IoU with palm B: 0.1·0.2 / (0.08 − 0.02) = 0.33, kept beside it.
        let trackedC = NormalizedRect(xCenter: 0.8, yCenter: 0.7, width: 0.2, height: 0.2)
        let merged = AssociationNormRect.associate([[palmA, palmB], [trackedA, trackedC]])
        #expect(merged == [palmB, trackedA, trackedC])
        // Two overlapping palm regions: the later one wins, as MediaPipe's list insertion does.
        #expect(AssociationNormRect.associate([[palmA, trackedA], []]) == [trackedA])
    }

    @Test func handednessIsTopOneOfLeftAndRight() {
        #expect(Handedness(leftProbability: 0.8) == Handedness(label: .left, score: 0.8))
        #expect(Handedness(leftProbability: 0.25) == Handedness(label: .right, score: 0.75))
        #expect(Handedness(leftProbability: 0.25).isPersonsRightHand(mirrored: false) == false)
        #expect(Handedness(leftProbability: 0.8).isPersonsRightHand(mirrored: false) == true)
    }
}
