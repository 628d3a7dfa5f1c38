import Foundation
import Testing
import Tensor
@testable import PoseNet
import PoseCore
import TestSupport

/// `--flip`: the averaged heads against a hand-written average of two plain runs.
@Suite struct FlipAveragingTests {
    @Test func mirrorMapsSwapSidesByHand() {
        #expect(FlipAveraging.mirroredPart[BodyPart.leftEye.rawValue] == BodyPart.rightEye.rawValue)
        #expect(FlipAveraging.mirroredPart[BodyPart.rightAnkle.rawValue] == BodyPart.leftAnkle.rawValue)
        #expect(FlipAveraging.mirroredPart[BodyPart.nose.rawValue] == BodyPart.nose.rawValue)
        // poseChain: 0 nose→leftEye ↔ 2 nose→rightEye, 7 leftShoulder→leftHip ↔ 13 rightShoulder→rightHip.
        #expect(FlipAveraging.mirroredEdge[0] == 2 && FlipAveraging.mirroredEdge[7] == 13 && FlipAveraging.mirroredEdge[15] == 9)
    }

    /// `left…` ↔ `right…`, written out by name (independent of ``FlipAveraging``'s tables).
    static func mirrorName(_ name: String) -> String {
        name.hasPrefix("left") ? "right" + name.dropFirst(4) : name.hasPrefix("right") ? "left" + name.dropFirst(5) : name
    }

    /// The heads `pick` chooses of three runs on a reference input at `size`: the image, its
    /// mirror image written out pixel by pixel, and `runWithFlipAveraging` (which must restore the input).
    static func threeRuns(_ reference: String, size: Int, _ pick: (PoseNetModel) -> [[Float]])
        throws -> (plain: [[Float]], mirrored: [[Float]], averaged: [[Float]], model: PoseNetModel) {
        let folder = SharedData.root.appendingPathComponent("reference/\(reference)")
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let model = try PoseNetModel(bundle: bundle, inputSize: size, outputStride: 16, threads: 2)
        try ReferenceInput.load(folder.appendingPathComponent("input.ppm"), into: model.input)
        let image = model.input.scalars
        try model.run()
        let plain = pick(model)
        model.input.withUnsafeMutableBufferPointer { p in
            for y in 0..<size { for x in 0..<size { for c in 0..<3 { p[(y * size + x) * 3 + c] = image[(y * size + (size - 1 - x)) * 3 + c] } } }
        }
        try model.run()
        let mirrored = pick(model)
        model.input.withUnsafeMutableBufferPointer { p in _ = p.update(fromContentsOf: image) }
        try model.runWithFlipAveraging()
        #expect(model.input.scalars == image, "the input is restored")
        return (plain, mirrored, pick(model), model)
    }

    @Test func averagedHeadsEqualTwoPlainRunsAveragedByHand() throws {
        let (plain, mirrored, averaged, model) = try Self.threeRuns("mobilenet075__coco_000000000785__257_os16", size: 257) {
            [$0.heatmapScores.scalars, $0.offsets.scalars]
        }
        let (h, w) = (model.outputHeight, model.outputWidth)

        // Heatmap channel k at column x ← mirrored run's channel mirror(k) at column w-1-x; offsets'
        // dx channels (17...33) change sign.
        let partMirror = BodyPart.allCases.map { BodyPart(name: Self.mirrorName($0.name))!.rawValue }
        var worst: Float = 0
        for y in 0..<h {
            for x in 0..<w {
                let p = y * w + x, q = y * w + (w - 1 - x)
                for k in 0..<17 {
                    let want = 0.5 * (plain[0][p * 17 + k] + mirrored[0][q * 17 + partMirror[k]])
                    worst = max(worst, absoluteError(averaged[0][p * 17 + k], want))
                    let dy = 0.5 * (plain[1][p * 34 + k] + mirrored[1][q * 34 + partMirror[k]])
                    let dx = 0.5 * (plain[1][p * 34 + 17 + k] - mirrored[1][q * 34 + 17 + partMirror[k]])
                    worst = max(worst, absoluteError(averaged[1][p * 34 + k], dy), absoluteError(averaged[1][p * 34 + 17 + k], dx))
                }
            }
        }
        #expect(worst <= 1e-5, "max difference \(worst)")
    }

    /// Multi-person decoding follows the displacement fields along skeleton edges, so their mirror
    /// must be right: the mirror image's field for edge `parent → child` is the one of the edge
    /// between the mirrored parts, in the same direction, with dx negated. On a real photo of five
    /// people, the plain run's fields must agree with the mirror run's fields mapped back that way
    /// far better than with any of the plausible mistakes (no left/right swap, dx not negated,
    /// forward and backward fields crossed), and `runWithFlipAveraging` must average exactly them.
    @Test func mirroredDisplacementFieldsMatchThePlainRun() throws {
        var heat: [Float] = []
        let (plain, mirrored, averaged, model) = try Self.threeRuns("mobilenet075__coco_000000197388__353_os16", size: 353) { model in
            if heat.isEmpty { heat = model.heatmapScores.scalars }   // the plain run's, which comes first
            return [model.displacementsFwd.scalars, model.displacementsBwd.scalars]
        }
        let (h, w, edges) = (model.outputHeight, model.outputWidth, 16)

        // The skeleton's edges by part names, and each one's mirror found by name.
        let names = Skeleton.treeEdges.map { ($0.parent.name, $0.child.name) }
        let mirrorEdge = names.map { edge in names.firstIndex { $0 == (Self.mirrorName(edge.0), Self.mirrorName(edge.1)) }! }
        #expect(mirrorEdge != Array(0..<edges), "some edges have a mirror of their own")

        /// Mean |plain − mapped mirror| over both components, weighted by the source part's heat
        /// (where a person is, so the field means something). `field` picks the mirror run's field
        /// for each plain one (0 forward, 1 backward).
        func disagreement(edgeMap: [Int], dxSign: Float, field: [Int]) -> Float {
            var sum: Float = 0, weight: Float = 0
            for f in 0..<2 {
                for y in 0..<h {
                    for x in 0..<w {
                        let p = y * w + x, q = y * w + (w - 1 - x)
                        for e in 0..<edges {
                            let source = f == 0 ? Skeleton.treeEdges[e].parent : Skeleton.treeEdges[e].child
                            let weightHere = heat[p * 17 + source.rawValue]
                            let other = mirrored[field[f]]
                            let dy = other[q * 2 * edges + edgeMap[e]], dx = dxSign * other[q * 2 * edges + edges + edgeMap[e]]
                            sum += weightHere * (abs(plain[f][p * 2 * edges + e] - dy) + abs(plain[f][p * 2 * edges + edges + e] - dx))
                            weight += weightHere
                        }
                    }
                }
            }
            return sum / weight
        }
        let right = disagreement(edgeMap: mirrorEdge, dxSign: -1, field: [0, 1])
        let mistakes = [
            "no left/right swap": disagreement(edgeMap: Array(0..<edges), dxSign: -1, field: [0, 1]),
            "dx not negated": disagreement(edgeMap: mirrorEdge, dxSign: 1, field: [0, 1]),
            "forward and backward crossed": disagreement(edgeMap: mirrorEdge, dxSign: -1, field: [1, 0]),
        ]
        for (mistake, error) in mistakes {
            #expect(right < 0.5 * error, "mirror mapping disagrees by \(right) px, \(mistake) by \(error) px")
        }

        var worst: Float = 0
        for f in 0..<2 {
            for y in 0..<h {
                for x in 0..<w {
                    let p = y * w + x, q = y * w + (w - 1 - x)
                    for e in 0..<edges {
                        let dy = 0.5 * (plain[f][p * 2 * edges + e] + mirrored[f][q * 2 * edges + mirrorEdge[e]])
                        let dx = 0.5 * (plain[f][p * 2 * edges + edges + e] - mirrored[f][q * 2 * edges + edges + mirrorEdge[e]])
                        worst = max(worst, absoluteError(averaged[f][p * 2 * edges + e], dy),
                                    absoluteError(averaged[f][p * 2 * edges + edges + e], dx))
                    }
                }
            }
        }
        #expect(worst <= 1e-4, "max difference \(worst)")
    }
}
