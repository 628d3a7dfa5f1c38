import ArgumentParser
import Foundation
import PoseEvaluation
import PoseKit

/// `posekit eval`: COCO keypoint AP of the whole pipeline on images with ground truth.
struct Eval: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score poses against COCO-format ground truth (OKS keypoint AP, AP50, AP75).",
        discussion: """
              posekit eval --ground-truth gt.json images/            # AP of the defaults
              posekit eval --accurate --ground-truth gt.json images/ # of the preset
              posekit eval --ground-truth gt.json --json images/*.ppm
              posekit eval --ground-truth gt.json --poses poses.jsonl
              posekit eval --model blazepose --ground-truth gt.json images/

            Runs the pipeline (network + decoder, same options and defaults as `posekit pose`) on each \
            image, matches it to the ground truth by file name (photo.ppm finds photo.jpg), and prints \
            the pycocotools summary: AP over OKS thresholds .50:.05:.95, AP50, AP75, AP medium/large \
            and the recalls. Standard COCO sigmas; only labeled keypoints count; areas from the file; \
            at most 20 poses per image count, as in COCO.

            Each image is scored once. A directory holding two copies of an image (photo.jpg and \
            photo.ppm) keeps one, the PPM copy (read as it is, no decoder in between), with a \
            warning; two inputs given separately that are one image are refused. Every input must \
            be in the ground truth, and the images scored must hold someone to find. Ground truth \
            with two images of one id or file name, people on images it does not list or keypoint \
            lists other than 51 numbers is refused.

            --poses scores the output of `posekit pose` instead of running the network: its JSON \
            Lines, or the COCO results list of `posekit pose --format coco` (every image of the \
            ground truth is scored then, as pycocotools does). --oks-area-scale 2 doubles the \
            object area inside OKS (a more lenient score that some published figures use).

            More examples and the accuracy study: docs/cli.md, docs/accuracy.md.
            """)

    @Option(name: .long, help: ArgumentHelp("COCO keypoint ground truth (JSON).", valueName: "path"), completion: .file(extensions: ["json"]))
    var groundTruth: String

    @OptionGroup var model: ModelOptions
    @OptionGroup var decode: DecodeOptions
    @OptionGroup var accuracy: AccuracyOptions

    @Option(name: .long, help: ArgumentHelp("Score this `posekit pose` output (JSON Lines or --format coco) instead of running the network.", valueName: "path|-"), completion: .file(extensions: ["jsonl", "json"]))
    var poses: String?

    @Option(name: .long, help: ArgumentHelp("Multiply the ground-truth area inside OKS by this (1 = pycocotools; \(Limits.oksAreaScale.text)).", valueName: "x"))
    var oksAreaScale: Double = 1

    @Flag(help: "Print one JSON object with the metrics.")
    var json = false

    @Argument(help: ArgumentHelp("Images (PNM files; JPEG, PNG, ... through ffmpeg) or directories of them; each must have an entry in the ground truth.", valueName: "image"), completion: .file())
    var images: [String] = []

    func validate() throws {
        if poses == nil && images.isEmpty { throw ValidationError("give images to run on, or --poses FILE") }
        if poses != nil && !images.isEmpty { throw ValidationError("give either images or --poses, not both") }
        try Limits.oksAreaScale.check(oksAreaScale, "--oks-area-scale")
        if model.isBlazePose {
            let given = model.poseNetOnlyOptions(decode, accuracy)
            if !given.isEmpty { throw ValidationError("\(given.joined(separator: ", ")): PoseNet option\(given.count == 1 ? "" : "s"); --model \(ModelOptions.blazePose) has no use for \(given.count == 1 ? "it" : "them")") }
        }
        try accuracy.check(model, decode)
    }

    func run() async throws {
        // Settings this CPU cannot run are refused before any work (a reduced precision it lacks).
        if poses == nil { try model.requirePrecision() }
        let truth = try CLIError.reading(groundTruth) { try CocoKeypointDataset(contentsOf: URL(fileURLWithPath: groundTruth)) }
        guard truth.scoredPeopleCount > 0 else {
            throw CLIError("\(groundTruth): no person with labeled keypoints, so there is nothing to score against")
        }
        var detections: [KeypointDetection] = []
        var evaluated = Set<Int>()
        /// The ground truth of the images scored, refused when it holds nobody to find (AP would be undefined).
        func scoredTruth() throws -> CocoKeypointDataset {
            let subset = truth.restricted(to: evaluated)
            guard subset.scoredPeopleCount > 0 else {
                throw CLIError("the \(evaluated.count) image(s) scored hold no person with labeled keypoints in \(groundTruth), so AP is undefined")
            }
            return subset
        }
        func imageID(_ name: String) throws -> Int {
            guard let image = truth.image(named: name) else {
                throw CLIError("\(name): no image of that name in \(groundTruth)")
            }
            return image.id
        }
        let posesReader = try poses.map { path in try CLIError.reading(path) { try LineReader(path: path) } }
        if let poses, let posesReader, let results = try CLIError.reading(poses, { try CocoResults.decode(ifListIn: posesReader) }) {
            // A COCO results list names no images without detections: score every image, as pycocotools does.
            for detection in results where truth.images.contains(where: { $0.id == detection.imageID }) == false {
                throw CLIError("\(poses): image_id \(detection.imageID) is not in \(groundTruth)")
            }
            evaluated = Set(truth.images.map(\.id))
            detections = results
        } else if let poses, let posesReader {
            (evaluated, detections) = try KeypointDetection.fromPoseLines(posesReader, name: poses, groundTruthName: groundTruth, imageID: imageID)
        } else {
            // Every image is matched before the network runs, so a missing or repeated one costs nothing.
            let matched = try SameImageInputs.unique(try MediaDirectory.expand(images), arguments: images, imageID: imageID,
                                                     warn: { printToStandardError("posekit: warning: " + $0) }) { id, _, _ in
                ("image \(id) of \(groundTruth)", "give only one of them")
            }
            evaluated = Set(matched.map(\.imageID))
            _ = try scoredTruth()
            // Images: one at a time, on every thread.
            // BlazePose: its COCO-17 subset is scored (`KeypointDetection` maps the set).
            let finder: any PoseFrameModel = model.isBlazePose ? try model.makeBlazePose(decode) : try accuracy.makeDetector(model, decode)
            for (path, id) in matched {
                do {
                    for try await detected in finder.poses(inMediaAt: path, framesInFlight: 1) {
                        guard detected.index == 0 else { throw CLIError("holds more than one frame; eval scores one image per input") }
                        detections += detected.poses.compactMap { KeypointDetection(imageID: id, pose: $0, imageWidth: detected.width, imageHeight: detected.height) }
                    }
                } catch where !endsTheRun(error) {
                    throw CLIError(CLIError.describe(error, input: path))
                }
            }
        }
        // Score only the images given, so a subset can be evaluated on its own.
        let result = try evaluateKeypoints(groundTruth: try scoredTruth(), detections: detections, oksAreaScale: oksAreaScale)
        if json {
            let scales = accuracy.scales(model, decode)
            let settings = poses != nil ? nil : KeypointEvaluation.Settings(
                model: model.model, inputSizes: scales.sizes, outputStride: scales.outputStride, flip: scales.flip,
                maximumUpscale: scales.maximumUpscale, precision: try model.precision.resolved().rawValue)
            print(result.jsonLine(images: evaluated.count, detections: detections.count, oksAreaScale: oksAreaScale, settings: settings,
                                  accurate: accuracy.accurate))
        } else {
            print("\(evaluated.count) images, \(detections.count) poses" + (oksAreaScale == 1 ? "" : ", OKS area x\(oksAreaScale)"))
            print(result.summary)
        }
    }
}
