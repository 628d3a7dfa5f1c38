import KernelBenchmarks
import Foundation
import Testing
import Tensor
@testable import PoseNet
import PoseCore

/// Hand-made heads on an `h × w` grid at stride 16: heatmap from `score(y, x, part)`, offsets from
/// `offset(y, x, part)` (dy, dx), displacements zero unless `displacement` says otherwise.
func makeHeads(h: Int = 5, w: Int = 5, stride: Int = 16,
               score: (Int, Int, Int) -> Float,
               offset: (Int, Int, Int) -> (Float, Float) = { _, _, _ in (0, 0) },
               displacement: (Int, Int, Int) -> (Float, Float) = { _, _, _ in (0, 0) }) throws -> PoseNetOutput {
    var heat = [Float](), offsets = [Float](repeating: 0, count: h * w * 34), disp = [Float](repeating: 0, count: h * w * 32)
    for y in 0..<h {
        for x in 0..<w {
            for k in 0..<17 {
                heat.append(score(y, x, k))
                let (dy, dx) = offset(y, x, k)
                offsets[(y * w + x) * 34 + k] = dy
                offsets[(y * w + x) * 34 + 17 + k] = dx
            }
            for e in 0..<16 {
                let (dy, dx) = displacement(y, x, e)
                disp[(y * w + x) * 32 + e] = dy
                disp[(y * w + x) * 32 + 16 + e] = dx
            }
        }
    }
    return try PoseNetOutput(heatmapScores: Tensor(shape: [h, w, 17], values: heat),
                             offsets: Tensor(shape: [h, w, 34], values: offsets),
                             displacementsFwd: Tensor(shape: [h, w, 32], values: disp),
                             displacementsBwd: Tensor(shape: [h, w, 32], values: disp), outputStride: stride)
}

/// A heatmap whose every part peaks at the listed cells with the given scores, 0.1 elsewhere.
func peaks(_ list: [(y: Int, x: Int, part: Int, score: Float)]) -> (Int, Int, Int) -> Float {
    { y, x, k in list.first { $0.y == y && $0.x == x && $0.part == k }?.score ?? 0.1 }
}

@Suite struct DecodingFixtureTests {
    /// TF.js's heap pops equal scores in the order A, C, B (worked through by hand on its
    /// swim/sink rules), unlike a FIFO; the decoder must follow it to order tied poses as TF.js.
    @Test func maxHeapMatchesTFJSOrder() {
        var heap = MaxHeap<(String, Float)>(score: { $0.1 })
        for name in ["A", "B", "C"] { heap.enqueue((name, 1)) }
        #expect([heap.dequeue()!.0, heap.dequeue()!.0, heap.dequeue()!.0] == ["A", "C", "B"])
        #expect(heap.dequeue() == nil)
        // Distinct scores always come out in decreasing order.
        var rng = SystemRandomNumberGenerator()
        let values = (0..<200).map { _ in Float.random(in: 0..<1, using: &rng) }
        var sorted = MaxHeap<Float>(score: { $0 })
        values.forEach { sorted.enqueue($0) }
        var out: [Float] = []
        while let v = sorted.dequeue() { out.append(v) }
        #expect(out == values.sorted(by: >))
    }

    @Test func localMaximumTiesCount() throws {
        // Part 0 has a plateau of two equal cells, part 1 a single peak next to a higher cell.
        let heads = try makeHeads(score: peaks([(2, 1, 0, 0.8), (2, 2, 0, 0.8), (1, 1, 1, 0.7), (1, 2, 1, 0.75)]))
        let candidates = heads.withHeads { h -> [PartCandidate] in
            var q = h.partCandidateQueue(threshold: 0.5, localMaximumRadius: 1)
            var all: [PartCandidate] = []
            while let c = q.dequeue() { all.append(c) }
            return all
        }
        #expect(candidates.map(\.part) == [0, 0, 1])
        #expect(Set(candidates.prefix(2).map { $0.cell.x }) == [1, 2])
        #expect(candidates[2].cell == GridCell(y: 1, x: 2))
        // Radius 0: every cell above the threshold is a candidate, including the lower 0.7.
        let all = heads.withHeads { $0.partCandidateQueue(threshold: 0.5, localMaximumRadius: 0).count }
        #expect(all == 4)
    }

    @Test func nearestCellRoundsLikeJavaScriptAndClamps() throws {
        #expect(DecodingHeads.clampedRound(2.5, upperBound: 4) == 3)
        #expect(DecodingHeads.clampedRound(1.4999, upperBound: 4) == 1)
        #expect(DecodingHeads.clampedRound(-0.5, upperBound: 4) == 0)
        #expect(DecodingHeads.clampedRound(-7, upperBound: 4) == 0)
        #expect(DecodingHeads.clampedRound(9, upperBound: 4) == 4)
        #expect(DecodingHeads.clampedRound(.nan, upperBound: 4) == 0)
        #expect(DecodingHeads.clampedRound(.infinity, upperBound: 4) == 4)
        #expect(DecodingHeads.clampedRound(-.infinity, upperBound: 4) == 0)
    }

    /// Zero offsets and displacements: a pose grown from a root lands every keypoint on the root's cell.
    @Test func secondRootOnTheSamePersonIsSkipped() throws {
        let heads = try makeHeads(score: peaks([(1, 1, 0, 0.9), (1, 1, 1, 0.8)]))
        let poses = try decodeMultiplePoses(heads)
        #expect(poses.count == 1)
        #expect(poses[0].keypoints.allSatisfy { $0.position == Point(x: 16, y: 16) })
        // Score: the root's 0.9, leftEye 0.8, fifteen cells at 0.1.
        #expect(abs(poses[0].score - (0.9 + 0.8 + 15 * 0.1) / 17) < 1e-6)
    }

    @Test func nmsRadiusSeparatesPeople() throws {
        // Two roots 45.25 px apart: separate people at radius 20, one person at radius 50.
        let heads = try makeHeads(score: peaks([(1, 1, 0, 0.9), (3, 3, 1, 0.8)]))
        let two = try decodeMultiplePoses(heads)
        #expect(two.count == 2)
        #expect(two[1][.leftEye].position == Point(x: 48, y: 48) && two[1][.nose].position == Point(x: 48, y: 48))
        #expect(abs(two[1].score - (0.8 + 16 * 0.1) / 17) < 1e-6)
        #expect(try decodeMultiplePoses(heads, parameters: .init(nmsRadius: 50)).count == 1)
        // maxPoses caps, minPoseScore filters afterwards.
        #expect(try decodeMultiplePoses(heads, parameters: .init(maxPoses: 1)).count == 1)
        let strict = try decodeMultiplePoses(heads, parameters: .init(minPoseScore: 0.145))
        #expect(strict.count == 1 && strict[0][.nose].score > 0.89)
    }

    /// A keypoint of the second pose that lands within the NMS radius of the same keypoint of the
    /// first pose does not count towards the second pose's score.
    @Test func claimedKeypointsAreDiscounted() throws {
        let ankle = BodyPart.rightAnkle.rawValue
        let heads = try makeHeads(score: peaks([(1, 1, 0, 0.9), (3, 3, 1, 0.8), (3, 3, ankle, 0.6)]),
                                  offset: { y, x, k in (y == 3 && x == 3 && k == ankle) ? (-32, -32) : (0, 0) })
        let poses = try decodeMultiplePoses(heads)
        #expect(poses.count == 2)
        // Refinement snaps the ankle to (16, 16), the first pose's ankle, where the score is 0.1.
        #expect(poses[1][.rightAnkle].position == Point(x: 16, y: 16))
        #expect(abs(poses[1][.rightAnkle].score - 0.1) < 1e-7)
        #expect(abs(poses[1].score - (0.8 + 15 * 0.1) / 17) < 1e-6)
        // With no refinement the ankle stays at the displaced point (48, 48) and scores 0.6 there.
        let raw = try decodeMultiplePoses(heads, parameters: .init(refineSteps: 0))
        #expect(raw[1][.rightAnkle].position == Point(x: 48, y: 48) && abs(raw[1][.rightAnkle].score - 0.6) < 1e-7)
    }

    @Test func displacementsOffTheGridClampToTheBorder() throws {
        // Every forward displacement points 1000 px down-right, every backward one 1000 px up-left.
        let fwdHeads = try makeHeads(score: peaks([(2, 2, 0, 0.9)]), displacement: { _, _, _ in (1000, 1000) })
        let fwd = try decodeMultiplePoses(fwdHeads)
        #expect(fwd.count == 1)
        // The nose is the root; its children are looked up at the clamped corner cell (4, 4).
        #expect(fwd[0][.nose].position == Point(x: 32, y: 32))
        #expect(fwd[0][.leftEye].position == Point(x: 64, y: 64) && fwd[0][.rightAnkle].position == Point(x: 64, y: 64))
        let bwdHeads = try makeHeads(score: peaks([(2, 2, BodyPart.leftWrist.rawValue, 0.9)]),
                                     displacement: { _, _, _ in (-1000, -1000) })
        let bwd = try decodeMultiplePoses(bwdHeads)
        #expect(bwd[0][.leftWrist].position == Point(x: 32, y: 32))
        #expect(bwd[0][.leftElbow].position == Point(x: 0, y: 0) && bwd[0][.nose].position == Point(x: 0, y: 0))
    }

    @Test func singlePoseTakesTheFirstOfTiedCells() throws {
        let heads = try makeHeads(score: peaks([(3, 1, 0, 0.9), (1, 4, 0, 0.9), (4, 4, 2, 0.7)]),
                                  offset: { _, _, k in (Float(k), -Float(k)) })
        let pose = decodeSinglePose(heads)
        #expect(pose[.nose].position == Point(x: 64, y: 16))            // (1, 4) comes before (3, 1)
        #expect(pose[.rightEye].position == Point(x: 62, y: 66))         // offset (2, -2) at (4, 4)
        #expect(abs(pose.score - (0.9 + 0.7 + 15 * 0.1) / 17) < 1e-6)
    }

    @Test func emptyHeatmapGivesNoPoses() throws {
        let heads = try makeHeads(score: { _, _, _ in 0.2 })
        #expect(try decodeMultiplePoses(heads).isEmpty)
        #expect(try decodeMultiplePoses(heads, parameters: .init(maxPoses: 0)).isEmpty)
        // The threshold is inclusive: at 0.2 every cell is a (tied) candidate; with an NMS radius
        // spanning the grid (corner to corner is 90.5 px) they are all one person.
        #expect(try decodeMultiplePoses(heads, parameters: .init(partScoreThreshold: 0.2, nmsRadius: 100)).count == 1)
        // At radius 20 cells two apart (32 px) are separate people, but never more than maxPoses.
        let crowd = try decodeMultiplePoses(heads, parameters: .init(partScoreThreshold: 0.2))
        #expect(crowd.count > 1 && crowd.count <= 10)
    }

    @Test func badHeadsThrow() throws {
        let good = try makeHeads(score: { _, _, _ in 0.2 })
        func heads(_ s: Tensor, _ o: Tensor, _ f: Tensor, _ b: Tensor, stride: Int = 16) throws -> PoseNetOutput {
            try PoseNetOutput(heatmapScores: s, offsets: o, displacementsFwd: f, displacementsBwd: b, outputStride: stride)
        }
        let (s, o, f, b) = (good.heatmapScores, good.offsets, good.displacementsFwd, good.displacementsBwd)
        #expect(throws: PoseDecodingError.self) { try heads(s, o, f, try Tensor(zeros: [4, 5, 32])) }
        #expect(throws: PoseDecodingError.self) { try heads(s, try Tensor(zeros: [5, 5, 17]), f, b) }
        #expect(throws: PoseDecodingError.self) { try heads(try s.reshaped([25, 17]), o, f, b) }
        #expect(throws: PoseDecodingError.self) { try heads(s, o, f, b, stride: 0) }
        do {
            _ = try makeHeads(score: { y, x, k in (y, x, k) == (2, 3, 4) ? .nan : 0.2 })
            Issue.record("a NaN heatmap was accepted")
        } catch let error as PoseDecodingError {
            #expect(error.description.contains("heatmap[2, 3, 4] is nan"), "\(error)")
        }
        #expect(throws: PoseDecodingError.self) {
            try makeHeads(score: { _, _, _ in 0.2 }, offset: { y, _, _ in y == 4 ? (.infinity, 0) : (0, 0) })
        }
    }

    /// The packed layout of ``PoseNetOutput``'s table: per cell the heatmap in channels 0..<17,
    /// offsets 17..<51, forward displacements 51..<83, backward 83..<115; the per-head copies and
    /// the decoders' views give back what was packed.
    @Test func headsArePackedCellByCell() throws {
        let (h, w) = (3, 4)
        func head(_ id: Int, _ channels: Int) throws -> Tensor {
            try Tensor(shape: [h, w, channels], values: (0..<(h * w * channels)).map { Float(id * 100_000 + $0) })
        }
        let parts = try [head(1, 17), head(2, 34), head(3, 32), head(4, 32)]
        let output = try PoseNetOutput(heatmapScores: parts[0], offsets: parts[1], displacementsFwd: parts[2],
                                       displacementsBwd: parts[3], outputStride: 16)
        #expect(output.heads.shape == [h, w, 115] && PoseNetOutput.channelCount == 115)
        #expect([PoseNetOutput.heatmapChannels, PoseNetOutput.offsetChannels, PoseNetOutput.displacementFwdChannels,
                 PoseNetOutput.displacementBwdChannels] == [0..<17, 17..<51, 51..<83, 83..<115])
        let packed = output.heads.scalars
        for (part, first) in zip(parts, [0, 17, 51, 83]) {
            let channels = part.shape[2], own = part.scalars
            for cell in 0..<(h * w) { for k in 0..<channels { #expect(packed[cell * 115 + first + k] == own[cell * channels + k]) } }
        }
        #expect(output.heatmapScores.scalars == parts[0].scalars && output.offsets.scalars == parts[1].scalars)
        #expect(output.displacementsFwd.scalars == parts[2].scalars && output.displacementsBwd.scalars == parts[3].scalars)
        output.withHeads { heads in
            #expect(heads.scores[2, 3, 16] == parts[0][2, 3, 16] && heads.offsets[1, 0, 33] == parts[1][1, 0, 33])
            #expect(heads.displacementsFwd[0, 1, 5] == parts[2][0, 1, 5] && heads.displacementsBwd[2, 2, 31] == parts[3][2, 2, 31])
        }
        // Wrapping packed heads is no copy.
        #expect(try PoseNetOutput(heads: output.heads, outputStride: 16).heads.storage === output.heads.storage)
    }

    /// A NaN or infinity anywhere in packed heads (the 16-lane blocks and the tail after them) is
    /// an error naming the head, the cell and the head's own channel.
    @Test func nonFiniteValuesInPackedHeadsAreNamed() throws {
        let (h, w) = (3, 4)   // 1380 values: 86 blocks of 16 and a tail of 4
        for (index, value, message) in [(0, Float.nan, "heatmap[0, 0, 0] is nan"), ((1 * 4 + 2) * 115 + 100, -.infinity, "displacementsBwd[1, 2, 17] is -inf"),
                                         (115 + 17, .infinity, "offsets[0, 1, 0] is inf"), (h * w * 115 - 1, .nan, "displacementsBwd[2, 3, 31] is nan")] {
            let heads = try Tensor(zeros: [h, w, 115])
            heads.withUnsafeMutableBufferPointer { $0[index] = value }
            do {
                _ = try PoseNetOutput(heads: heads, outputStride: 16)
                Issue.record("\(value) at \(index) was accepted")
            } catch let error as PoseDecodingError {
                #expect(error.description.contains(message), "\(error)")
            }
        }
        #expect(throws: PoseDecodingError.self) { try PoseNetOutput(heads: try Tensor(zeros: [h, w, 114]), outputStride: 16) }
        #expect(throws: PoseDecodingError.self) { try PoseNetOutput(heads: try Tensor(zeros: [h * w, 115]), outputStride: 16) }
        #expect(throws: PoseDecodingError.self) { try PoseNetOutput(heads: try Tensor(zeros: [h, w, 115]), outputStride: 0) }
    }

    @Test func parametersOutOfRangeThrow() throws {
        let heads = try makeHeads(score: { _, _, _ in 0.2 })
        let bad: [MultiPoseParameters] = [
            .init(maxPoses: -1), .init(partScoreThreshold: 1.5), .init(partScoreThreshold: -0.1),
            .init(partScoreThreshold: .nan), .init(nmsRadius: -1), .init(nmsRadius: .infinity),
            .init(localMaximumRadius: -1), .init(refineSteps: -1), .init(refineSteps: 17),
            .init(minPoseScore: 2), .init(minPoseScore: .nan),
        ]
        for parameters in bad {
            #expect(throws: PoseDecodingError.self, "\(parameters)") { try decodeMultiplePoses(heads, parameters: parameters) }
        }
        // A window far larger than the grid is fine: the whole grid is the window.
        #expect(try decodeMultiplePoses(heads, parameters: .init(partScoreThreshold: 0.2, nmsRadius: 100, localMaximumRadius: 1 << 40)).count == 1)
    }

    /// The benchmark's synthetic crowd: heads built from ten known people must decode back to them.
    @Test func syntheticCrowdDecodesToItsPeople() throws {
        let (output, people) = try SyntheticHeads.crowd(gridSize: 33, people: 10)
        let poses = try decodeMultiplePoses(output)
        #expect(poses.count == 10)
        for pose in poses {
            let match = people.first { $0[0].squaredDistance(to: pose[.nose].position) < 1 }
            #expect(match != nil, "pose with nose at \(pose[.nose].position) matches no person")
            if let person = match {
                for (i, k) in pose.keypoints.enumerated() { #expect(k.position.squaredDistance(to: person[i]) < 1e-6) }
            }
        }
        #expect(Set(poses.map { Int($0[.nose].position.x) * 1000 + Int($0[.nose].position.y) }).count == 10)
    }

    @Test func missingReferenceFolderThrows() {
        #expect(throws: PoseDecodingError.self) {
            try PoseNetOutput(referenceFolder: URL(fileURLWithPath: "/nonexistent/posekit-case"))
        }
    }

    @Test func poseGeometryTransformAndCoding() throws {
        let keypoints = BodyPart.allCases.map { Keypoint(position: Point(x: Double($0.rawValue), y: 2 * Double($0.rawValue)), score: 0.5) }
        let pose = Pose(keypoints: keypoints, score: 0.5)
        #expect(pose.boundingBox == BoundingBox(minX: 0, minY: 0, maxX: 16, maxY: 32) && pose.area == 512)
        let stretched = pose.mapped(by: InputPlacement(imageWidth: 200, imageHeight: 50, inputSize: 100, fit: .stretch).inputToImage)
        #expect(stretched[.rightAnkle].position == Point(x: 32, y: 16) && stretched.score == 0.5)
        let decoded = try JSONDecoder().decode(Pose.self, from: JSONEncoder().encode(pose))
        #expect(decoded == pose)
        let encoded = String(decoding: try JSONEncoder().encode(pose), as: UTF8.self)
        #expect(encoded.contains(#""part":"leftShoulder""#) && encoded.contains(#""keypointSet":"coco17""#))
        let shortJSON = #"{"keypoints": [], "score": 1}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Pose.self, from: Data(shortJSON.utf8)) }
    }
}
