import Foundation
import FrameIO
import MediaPipe
import PoseCore

extension MediaPipePipelineBenchmark {
    /// `posekit bench hands`'s rounds: `pipeline` over `images` `rounds` times; each round's
    /// median per frame (ms) and how many frames of the last round had a hand.
    public static func rounds(_ pipeline: HandLandmarkPipeline, _ images: [RGBImage], count rounds: Int) throws -> (medians: [Double], found: Int) {
        var medians: [Double] = [], found = 0
        for _ in 0..<rounds {
            let round = try MediaPipePipelineBenchmark.round(pipeline, images)
            medians.append(round.median)
            found = round.found
        }
        return (medians, found)
    }

    /// `posekit bench blazepose`'s rounds: `pipeline` over `images` `rounds` times, each round's
    /// median per frame printed (`print`) and, with a `peer`, MediaPipe's own round after it and
    /// the ratio; then the median of the ratios.
    public static func rounds(_ pipeline: BlazePosePipeline, _ images: [RGBImage], count rounds: Int, against peer: MediaPipePeer?,
                              print: (String) -> Void) throws {
        var ratios: [Double] = []
        for round in 1...rounds {
            let (ours, found) = try MediaPipePipelineBenchmark.round(pipeline, images)
            var line = String(format: "round %d: ours %.2f ms (pose in %d frames)", round, ours, found)
            if let peer {
                let theirs = try peer.run()
                ratios.append(ours / theirs.median)
                line += String(format: "; MediaPipe %.2f ms (pose in %d frames); ratio %.2f", theirs.median, theirs.found, ours / theirs.median)
            }
            print(line)
        }
        if !ratios.isEmpty {
            print(String(format: "ours / MediaPipe per frame: median of %d rounds %.2f", ratios.count, Median.of(ratios)))
        }
    }
}
