import ActionNet

/// libFuzzer entry point: read `data` as a Core ML `.mlmodel` (the protobuf wire-format reader,
/// Core ML's one format reader `CoreMLFormat` with every integer range-checked and its weight rule,
/// the Create ML family's layer mapper, the graph's probe run on a zero window). Malformed input must be a `CoreMLModelError`, never a trap; a model that
/// loads must classify a zero window into finite probabilities or refuse it with `badWindow`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCoreML(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    do {
        let model = try CreateMLActionClassifier(bytes: bytes, fileName: "fuzz.mlmodel")
        precondition(!model.labels.isEmpty && model.windowLength >= 1, "a loaded model has labels and a window")
        precondition(model.frameRate > 0 && model.frameRate.isFinite, "frame rate \(model.frameRate)")
        // Keep each run fast: only classify windows of a sensible length.
        guard model.windowLength <= 512 else { return 0 }
        do {
            let prediction = try model.classify([Float](repeating: 0, count: model.windowLength * 54))
            precondition(prediction.probabilities.count == model.labels.count, "one probability per label")
            precondition(prediction.probabilities.allSatisfy(\.isFinite), "non-finite probability from a loaded model")
        } catch CoreMLModelError.badWindow {
        } catch CoreMLModelError.layerFailed {
        }
    } catch is CoreMLModelError {
    } catch {
        fatalError("unexpected error type: \(error)")
    }
    return 0
}
