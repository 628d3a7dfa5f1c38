/// `--accurate`: the setting chosen by the protocol of docs/accuracy.md: the best COCO keypoint
/// AP on images-val among the candidates of `scripts/accuracy-tables.py`, reported on images,
/// which it was not chosen on (0.651 against the default's 0.523; 0.647 against 0.620 on
/// images-val, 0.637 against 0.563 on both).
public enum AccuracyPreset {
    /// Input sizes merged, largest first: 897 finds the small people of crowded photos, 513 (the
    /// default) keeps the large ones, whom 897 alone misassembles.
    public static let inputSizes = [897, 513]
    /// The output stride of every size.
    public static let outputStride = 16
    /// Flip averaging lowers AP on images-val here (docs/accuracy.md), so the preset leaves it off.
    public static let flip = false
    /// No image is enlarged more than this: a 215-pixel photo runs at 321, not 897.
    public static let maximumUpscale = 1.5
    /// Wall time against the default, measured side by side on the 25 shared images.
    public static let relativeCost = 3.0

    /// The preset's scales; `largest` (`--input-size`) replaces the largest size, the others
    /// keep their ratio to it (as `16k + 1` sizes).
    public static func scales(largest: Int?) -> InputScales {
        var sizes = inputSizes
        if let largest {
            let ratio = Double(largest - 1) / Double(inputSizes[0] - 1)
            sizes = [largest] + inputSizes.dropFirst().map { max(33, Int((Double($0 - 1) * ratio / Double(outputStride)).rounded()) * outputStride + 1) }
                .filter { $0 < largest }
        }
        var unique: [Int] = []
        for size in sizes where !unique.contains(size) { unique.append(size) }
        return InputScales(sizes: unique, outputStride: outputStride, flip: flip, maximumUpscale: maximumUpscale)
    }

    /// What the preset is for, as measured (docs/accuracy.md "--accurate in crowds"): it finds small
    /// and mid-sized people better; large people standing side by side it can assemble worse
    /// than the default.
    public static let promise = "Finds small and mid-sized people better, in crowds too; for large people standing side by side (close-ups of a group) the default can be better"

    /// What `--help` says the preset runs.
    public static var summary: String {
        let sizes = inputSizes.map(String.init).joined(separator: " and ")
        return "input sizes \(sizes) merged, output stride \(outputStride)\(flip ? ", flip averaging" : ""), no image enlarged more than \(maximumUpscale.shortText)x"
    }
}

private extension Double {
    /// `1.5`, `2` (no trailing `.0`), as help texts show a factor.
    var shortText: String { self == rounded() ? String(Int(self)) : String(self) }
}
