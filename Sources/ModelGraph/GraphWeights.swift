import Foundation
import Tensor

/// A network's constants in the forms its kernels read (packed GEMM panels, their int8 or bf16
/// copies, transposed weights), each made once and shared by every runner: the one place where
/// weights are packed.
///
/// A ``Graph`` holds one (``Graph/weights``). Every ``GraphRunner`` planned on that graph, whatever
/// its thread count, output selection or precision, and every runner of another frame in flight,
/// reads the forms made here: the first runner packs, the others find them (the manner of
/// ONNX Runtime's prepacked-weights container and XNNPACK's weights cache). A family mapper that
/// makes several graphs from one set of weights (PoseNet at several input sizes) gives them all
/// one store, so a multi-scale detector packs each layer once.
///
/// A form is found by the constants it was made from, by their identity (storage and offset) and
/// shape, and by what it is (`"gemm"`, `"gemm int8"`, `"ohwi"`): a constant replaced in a graph
/// (another tensor) is packed anew; the store keeps the tensors it packed from, so their storage
/// cannot be reused for another while their forms are here. A constant's values must not be
/// written in place once a runner has packed it.
public final class GraphWeights: @unchecked Sendable {
    private let lock = NSLock()
    private var forms: [Key: Entry] = [:]

    /// An empty store.
    public init() {}

    private struct Source: Hashable {
        let storage: ObjectIdentifier
        let offset: Int
        let shape: [Int]
        init(_ tensor: Tensor) { (storage, offset, shape) = (ObjectIdentifier(tensor.storage), tensor.offset, tensor.shape) }
    }

    private struct Key: Hashable {
        let sources: [Source]
        let form: String
    }

    private struct Entry {
        /// Kept so that the sources' storage outlives the key made of its identity.
        let sources: [Tensor]
        let value: Any
    }

    /// How many forms have been made (each once): what a second runner on the same weights adds is none.
    public var formCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return forms.count
    }

    /// The form `form` of `sources`, made by `make` the first time it is asked for.
    ///
    /// Concurrent first requests may each make it; one result is kept and every caller gets that one.
    func form<T>(_ form: String, of sources: [Tensor], make: () throws -> T) throws -> T {
        let key = Key(sources: sources.map(Source.init), form: form)
        lock.lock()
        if let entry = forms[key], let value = entry.value as? T {
            lock.unlock()
            return value
        }
        lock.unlock()
        let made = try make()  // outside the lock: packing a large layer takes milliseconds
        lock.lock()
        defer { lock.unlock() }
        if let entry = forms[key], let value = entry.value as? T { return value }
        forms[key] = Entry(sources: sources, value: made)
        return made
    }
}

extension GraphWeights {
    /// `weights` (any shape with `rows × columns` elements, row-major `[rows, columns]`) and
    /// `bias` packed for the GEMM (`PackedPointwiseWeights`), in `precision` (fp32, or the int8 /
    /// bf16 copy converted from the fp32 packing, itself kept too).
    func packedGEMM(weights: Tensor, bias: Tensor, rows: Int, columns: Int, precision: Precision = .fp32) throws -> PackedPointwiseWeights {
        let fp32 = try form("gemm", of: [weights, bias]) {
            try PackedPointwiseWeights(weights: weights.reshaped([rows, columns]), bias: bias)
        }
        guard precision != .fp32 else { return fp32 }
        return try form("gemm \(precision.rawValue)", of: [weights, bias]) { try fp32.converted(to: precision) }
    }
}
