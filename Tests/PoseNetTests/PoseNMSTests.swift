import Foundation
import KernelBenchmarks
import Testing
@testable import PoseNet
import PoseCore
import TestSupport

/// The decoder's NMS answers exactly as comparing a keypoint with the same keypoint of every
/// earlier pose (the TF.js loops, written out here), whatever the radius and wherever the points.
@Suite struct PoseNMSTests {
    /// TF.js `withinNmsRadiusOfCorrespondingPoint`: any earlier pose's keypoint within the radius.
    static func claimedByLoop(_ point: Point, part: Int, _ poses: [DecodedKeypoints], _ squaredRadius: Double) -> Bool {
        poses.contains { $0.positions[part].squaredDistance(to: point) <= squaredRadius }
    }

    /// TF.js `getInstanceScore`: the unclaimed keypoints' scores over 17.
    static func scoreByLoop(_ pose: DecodedKeypoints, _ poses: [DecodedKeypoints], _ squaredRadius: Double) -> Double {
        (0..<17).filter { !claimedByLoop(pose.positions[$0], part: $0, poses, squaredRadius) }
            .reduce(0.0) { $0 + Double(pose.scores[$1]) } / 17
    }

    @Test(arguments: [0.0, 1, 20, 37.5, 400])
    func gridAnswersAsTheLoopOverEveryPose(radius: Double) {
        var random = SeededGenerator(seed: 29 + UInt64(radius * 10))
        let squaredRadius = radius * radius
        var nms = PoseNMS(width: 528, height: 528, squaredRadius: squaredRadius, radius: radius, maximumPoses: 150)
        var poses: [DecodedKeypoints] = []
        var answers = (claimed: 0, free: 0)
        for _ in 0..<150 {
            // Keypoints in and far outside the grid (offsets can point past it), on few spots so
            // that many fall near each other.
            var pose = DecodedKeypoints()
            for part in 0..<17 {
                let spread: Float = random.float(0, 1) < 0.2 ? 3000 : 700
                pose.positions[part] = Point(x: Double(random.float(-spread / 4, spread)).rounded(), y: Double(random.float(-spread / 4, spread)).rounded())
                pose.scores[part] = random.float(0, 1)
            }
            // Queries: random points, and points exactly on and just past the radius around an
            // earlier keypoint, in every direction (cells' corners included).
            var queries: [(Point, Int)] = (0..<17).map { (pose.positions[$0], $0) }
            if let earlier = poses.randomElement(using: &random) {
                let part = Int(random.next() % 17), angle = Double(random.float(0, 2 * .pi))
                let center = earlier.positions[part]
                for distance in [radius, radius * (1 + 1e-12), radius + 1e-9, radius * 0.999, radius + 0.5] {
                    queries.append((Point(x: center.x + distance * cos(angle), y: center.y + distance * sin(angle)), part))
                }
                queries.append((Point(x: center.x + radius, y: center.y), part))
                queries.append((Point(x: center.x, y: center.y - radius), part))
            }
            for (point, part) in queries {
                let expected = Self.claimedByLoop(point, part: part, poses, squaredRadius)
                #expect(nms.isClaimed(point, part: part) == expected, "radius \(radius), \(point), part \(part)")
                if expected { answers.claimed += 1 } else { answers.free += 1 }
            }
            #expect(nms.instanceScore(pose) == Self.scoreByLoop(pose, poses, squaredRadius))
            nms.add(pose)
            poses.append(pose)
        }
        #expect(answers.claimed > 100 && answers.free > 100, "both answers must be tested: \(answers)")
    }

    /// A crowd of 100 people, far more than the default cap, decodes back to every one of them.
    @Test func aCrowdOfAHundredDecodesToItsPeople() throws {
        let (output, people) = try SyntheticHeads.crowd(gridSize: 97, people: 100)
        let poses = try decodeMultiplePoses(output, parameters: MultiPoseParameters(maxPoses: 100))
        #expect(poses.count == 100)
        var found = Set<Int>()
        for pose in poses {
            guard let person = people.indices.first(where: { people[$0][0].squaredDistance(to: pose[.nose].position) < 1 }) else {
                Issue.record("pose with nose at \(pose[.nose].position) matches no person")
                continue
            }
            found.insert(person)
            for (i, k) in pose.keypoints.enumerated() { #expect(k.position.squaredDistance(to: people[person][i]) < 1e-6) }
        }
        #expect(found.count == 100)
    }
}
