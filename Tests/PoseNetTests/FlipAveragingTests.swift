import Foundation
import Testing
import Tensor
@testable import PoseNet
import PoseCore
import TestSupport

/// `--flip`: the averaged heads against a hand-written average of two plain runs.
@Suite struct FlipAveragingTests {
    @Test func averagedHeadsEqualTwoPlainRunsAveragedByHand() throws {
        let folder = SharedData.root.appendingPathComponent("reference/mobilenet075__coco_000000000785__257_os16")
        let bundle = try WeightBundle(contentsOf: try ModelLocator.resolve("mobilenet075"))
        let model = try PoseNetModel(bundle: bundle, inputSize: 257, outputStride: 16, threads: 2)
        try ReferenceInput.load(folder.appendingPathComponent("input.ppm"), into: model.input)
        let image = model.input.scalars
        let (s, h, w) = (257, model.outputHeight, model.outputWidth)

        try model.run()
        let plain = [model.heatmapScores.scalars, model.offsets.scalars]
        // The mirror image, written out pixel by pixel.
        model.input.withUnsafeMutableBufferPointer { p in
            for y in 0..<s { for x in 0..<s { for c in 0..<3 { p[(y * s + x) * 3 + c] = image[(y * s + (s - 1 - x)) * 3 + c] } } }
        }
        try model.run()
        let mirrored = [model.heatmapScores.scalars, model.offsets.scalars]

        model.input.withUnsafeMutableBufferPointer { p in _ = p.update(fromContentsOf: image) }
        try model.runWithFlipAveraging()
        #expect(model.input.scalars == image, "the input is restored")
        let averaged = [model.heatmapScores.scalars, model.offsets.scalars]

        // Heatmap channel k at column x ← mirrored run's channel mirror(k) at column w-1-x; offsets'
        // dx channels (17...33) change sign.
        let mirrorName: (String) -> String = { name in
            name.hasPrefix("left") ? "right" + name.dropFirst(4) : name.hasPrefix("right") ? "left" + name.dropFirst(5) : name
        }
        let partMirror = BodyPart.allCases.map { BodyPart(name: mirrorName($0.name))!.rawValue }
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
}
