import PoseNet
import PoseCore
import Tensor
/// A PoseNet weight set read from a foreign model file, in canonical names, shapes and
/// layouts (``PoseNetWeightNames``), before it is written as a `.pkw` bundle.
public struct ImportedWeights: Sendable {
    /// One tensor, fp32 in memory, remembering how the source stored it.
    public struct ImportedTensor: Sendable {
        public let name: String
        public let shape: [Int]
        public let layout: TensorLayout
        /// Row-major values in ``layout``.
        public let values: [Float]
        /// How the source file stored these values (fp16 sources can stay fp16 losslessly).
        public let sourceDType: WeightDType
    }

    /// Everything but the tensor list (which ``tensors`` holds).
    public var manifest: WeightManifest
    /// Tensors in canonical order.
    public var tensors: [ImportedTensor]

    /// How to choose each tensor's storage type when writing a bundle.
    public enum StoragePolicy: String, Sendable, CaseIterable {
        /// fp16 where the source was fp16 and the (possibly batchnorm-folded) values are still
        /// exactly representable in fp16; fp32 otherwise. Lossless.
        case automatic = "auto"
        /// Everything fp32. Lossless, larger.
        case fp32
        /// Everything rounded to fp16. Halves fp32 sources, loses precision.
        case fp16
    }

    /// A writer holding these tensors, ready to ``WeightBundleWriter/write(to:)``.
    public func bundleWriter(storage policy: StoragePolicy = .automatic) throws -> WeightBundleWriter {
        var writer = WeightBundleWriter(manifest: manifest)
        for t in tensors {
            let dtype: WeightDType
            switch policy {
            case .fp32: dtype = .fp32
            case .fp16: dtype = .fp16
            case .automatic:
                dtype = t.sourceDType == .fp16 && HalfPrecision.isExactlyRepresentable(t.values) ? .fp16 : .fp32
            }
            try writer.add(name: t.name, shape: t.shape, layout: t.layout, values: t.values, storage: dtype)
        }
        return writer
    }

    /// Checks `tensors` (name → shape and values) against the canonical PoseNet layout and
    /// returns them in canonical order. The block widths are read from the pointwise weights
    /// and block 0, so any width multiplier passes as long as the tensors agree with each other.
    static func canonical(_ byName: [String: (shape: [Int], values: [Float], dtype: WeightDType)], file: String) throws -> (tensors: [ImportedTensor], blockChannels: [Int]) {
        func shape(of name: String) throws -> [Int] {
            guard let t = byName[name] else { throw ImportError.missingTensor(file: file, name: name) }
            return t.shape
        }
        let first = try shape(of: PoseNetWeightNames.firstConvWeights)
        guard first.count == 4, first[0] == 3, first[1] == 3, first[2] == 3, first[3] > 0 else {
            throw ImportError.badTensor(file: file, name: PoseNetWeightNames.firstConvWeights, detail: "shape \(first), expected [3, 3, 3, C0] (HWIO)")
        }
        var channels = [first[3]]
        for block in 1..<PoseNetWeightNames.blockCount {
            let name = PoseNetWeightNames.pointwiseWeights(block)
            let s = try shape(of: name)
            guard s.count == 4, s[3] > 0 else { throw ImportError.badTensor(file: file, name: name, detail: "shape \(s), expected [1, 1, Cin, Cout] (HWIO)") }
            channels.append(s[3])
        }
        var out: [ImportedTensor] = []
        for slot in PoseNetWeightNames.slots(blockChannels: channels) {
            guard let t = byName[slot.name] else { throw ImportError.missingTensor(file: file, name: slot.name) }
            guard t.shape == slot.shape else {
                throw ImportError.badTensor(file: file, name: slot.name, detail: "shape \(t.shape), expected \(slot.shape) (\(slot.layout.rawValue))")
            }
            guard t.values.count == slot.shape.reduce(1, *) else {
                throw ImportError.badTensor(file: file, name: slot.name, detail: "\(t.values.count) values for shape \(slot.shape)")
            }
            guard t.values.allSatisfy({ $0.isFinite }) else {
                throw ImportError.badTensor(file: file, name: slot.name, detail: "contains NaN or infinity")
            }
            out.append(ImportedTensor(name: slot.name, shape: slot.shape, layout: slot.layout, values: t.values, sourceDType: t.dtype))
        }
        return (out, channels)
    }
}
