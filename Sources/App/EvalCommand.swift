import ActionNet
import ArgumentParser
import Foundation
import FrameIO
import PoseNet

/// `posekit eval`: COCO keypoint AP of the whole pipeline on images with ground truth.
struct Eval: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Score poses against COCO-format ground truth (OKS keypoint AP, AP50, AP75).",
        discussion: """
            Runs the pipeline (network + decoder, same options and defaults as `posekit pose`) on each \
            image, matches it to the ground truth by file name (photo.ppm finds photo.jpg), and prints \
            the pycocotools summary: AP over OKS thresholds .50:.05:.95, AP50, AP75, AP medium/large \
            and the recalls. Standard COCO sigmas; only labelled keypoints count; areas from the file.

            --poses scores JSON Lines written by `posekit pose` instead of running the network.
            --oks-area-scale 2 doubles the object area inside OKS (a more lenient score that some \
            published figures use; the shared README's reference numbers are on that scale).

            EXAMPLES
              posekit eval --ground-truth images/ground_truth.json images/*.ppm
              posekit eval --ground-truth gt.json --input-size 513 --json images/*.ppm
              posekit pose images/*.ppm > poses.jsonl
              posekit eval --ground-truth gt.json --poses poses.jsonl
            """)

    @Option(name: .long, help: ArgumentHelp("COCO keypoint ground truth (JSON).", valueName: "path"))
    var groundTruth: String

    @OptionGroup var model: ModelOptions
    @OptionGroup var decode: DecodeOptions

    @Option(name: .long, help: ArgumentHelp("Score these `posekit pose` JSON Lines instead of running the network.", valueName: "path|-"))
    var poses: String?

    @Option(name: .long, help: ArgumentHelp("Multiply the ground-truth area inside OKS by this (1 = pycocotools; \(Limits.oksAreaScale.text)).", valueName: "x"))
    var oksAreaScale: Double = 1

    @Flag(help: "Print one JSON object with the metrics.")
    var json = false

    @Argument(help: ArgumentHelp("Images (PNM files); each must have an entry in the ground truth.", valueName: "image"))
    var images: [String] = []

    func validate() throws {
        if poses == nil && images.isEmpty { throw ValidationError("give images to run on, or --poses FILE") }
        if poses != nil && !images.isEmpty { throw ValidationError("give either images or --poses, not both") }
        try Limits.oksAreaScale.check(oksAreaScale, "--oks-area-scale")
    }

    func run() throws {
        let truth = try CLIError.reading(groundTruth) { try CocoKeypointDataset(contentsOf: URL(fileURLWithPath: groundTruth)) }
        var detections: [KeypointDetection] = []
        var evaluated = Set<Int>()
        func imageID(_ name: String) throws -> Int {
            guard let image = truth.image(named: name) else {
                throw CLIError("\(name): no image of that name in \(groundTruth)")
            }
            evaluated.insert(image.id)
            return image.id
        }
        if let poses {
            var decoder = PoseJSONLinesDecoder()
            try CLIError.reading(poses) { try LineReader(path: poses) }.forEachLine { line in
                guard let frame = try decoder.decode(line: line) else { return }
                guard let name = frame.source else { throw CLIError("\(poses): a line has no \"source\" to match with the ground truth") }
                let id = try imageID(name)
                detections += frame.poses.map { KeypointDetection(imageID: id, pose: $0) }
            }
        } else {
            let detector = PoseDetector(model: try model.makeModel(), decoding: decode.decoding)
            for path in images {
                let id = try imageID(path)
                let reader = try FrameReader(path: path)
                let source = FrameSource(reader: reader, networkInput: detector.model.input, geometry: model.geometry, wantsRGB: false)
                try source.forEachFrame(realtime: false) { slot, _ in
                    detections += try detector.detect(mappingTo: slot.transform, imageSize: (slot.width, slot.height)).map { KeypointDetection(imageID: id, pose: $0) }
                }
            }
        }
        // Score only the images given, so a subset can be evaluated on its own.
        let subset = truth.restricted(to: evaluated)
        let result = try evaluateKeypoints(groundTruth: subset, detections: detections, oksAreaScale: oksAreaScale)
        if json {
            let object: [String: Any] = [
                "images": evaluated.count, "detections": detections.count, "oks_area_scale": oksAreaScale,
                "AP": result.averagePrecision, "AP50": result.averagePrecision50, "AP75": result.averagePrecision75,
                "APm": result.averagePrecisionMedium, "APl": result.averagePrecisionLarge,
                "AR": result.averageRecall, "AR50": result.averageRecall50, "AR75": result.averageRecall75,
                "model": poses == nil ? model.model : NSNull(), "input_size": poses == nil ? (model.inputSize ?? ModelOptions.defaultInputSize) : NSNull(),
            ]
            let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
            print(String(decoding: data, as: UTF8.self))
        } else {
            print("\(evaluated.count) images, \(detections.count) poses" + (oksAreaScale == 1 ? "" : ", OKS area x\(oksAreaScale)"))
            print(result.summary)
        }
    }
}
