import PoseCore

extension KeypointEvaluation {
    /// What was run to find the poses scored (`posekit eval --json` names them).
    public struct Settings: Sendable, Equatable {
        public var model: String
        /// The input sizes, largest first (one without multi-scale).
        public var inputSizes: [Int]
        public var outputStride: Int
        public var flip: Bool
        public var maximumUpscale: Double?
        /// The precision as it ran (`auto` resolved).
        public var precision: String

        public init(model: String, inputSizes: [Int], outputStride: Int, flip: Bool, maximumUpscale: Double?, precision: String) {
            (self.model, self.inputSizes, self.outputStride, self.flip) = (model, inputSizes, outputStride, flip)
            (self.maximumUpscale, self.precision) = (maximumUpscale, precision)
        }
    }

    /// The one JSON object of `posekit eval --json`: counts, the COCO metrics (scores: `JSONText`'s
    /// one number rule, 4 decimals) and the settings, which are null when scoring poses found
    /// elsewhere (`settings` nil).
    public func jsonLine(images: Int, detections: Int, oksAreaScale: Double, settings: Settings?, accurate: Bool) -> String {
        var json = JSONText(capacity: 512)
        json.raw("{\"images\": "); json.integer(images)
        json.raw(", \"detections\": "); json.integer(detections)
        let metrics: [(StaticString, Double)] = [
            ("AP", averagePrecision), ("AP50", averagePrecision50), ("AP75", averagePrecision75),
            ("APm", averagePrecisionMedium), ("APl", averagePrecisionLarge),
            ("AR", averageRecall), ("AR50", averageRecall50), ("AR75", averageRecall75),
        ]
        for (name, value) in metrics {
            json.raw(", \""); json.raw(name); json.raw("\": "); json.number(value, decimals: JSONText.Decimals.scores)
        }
        json.raw(", \"oks_area_scale\": "); json.number(oksAreaScale, decimals: JSONText.Decimals.proportions)
        func field(_ name: StaticString, _ present: Bool, _ write: (inout JSONText) -> Void) {
            json.raw(", \""); json.raw(name); json.raw("\": ")
            if present { write(&json) } else { json.raw("null") }
        }
        let s = settings
        field("model", s != nil) { $0.string(s!.model) }
        field("input_size", s != nil) { $0.integer(s!.inputSizes[0]) }
        field("input_sizes", s != nil) { json in
            json.raw("[")
            for (i, size) in s!.inputSizes.enumerated() { if i > 0 { json.raw(", ") }; json.integer(size) }
            json.raw("]")
        }
        field("output_stride", s != nil) { $0.integer(s!.outputStride) }
        field("flip", s != nil) { $0.raw(s!.flip ? "true" : "false") }
        field("max_upscale", s?.maximumUpscale != nil) { $0.number(s!.maximumUpscale!, decimals: JSONText.Decimals.proportions) }
        json.raw(", \"accurate\": "); json.raw(accurate ? "true" : "false")
        field("precision", s != nil) { $0.string(s!.precision) }
        json.raw("}")
        return json.text
    }
}
