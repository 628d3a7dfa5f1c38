import PoseNet
import Protobuf
import PoseCore
import Tensor
/// Imports PoseNet weights from a frozen TensorFlow GraphDef (`.pb`), such as the one
/// rwightman/posenet-python's converter makes from the TF.js checkpoint.
///
/// Only `Const` nodes matter: their names already are the canonical names
/// (``PoseNetWeightNames``) and their layouts TensorFlow's (HWIO, depthwise `[3,3,C,1]`). A
/// value is read from `tensor_content` (raw little-endian bytes) or, for small constants,
/// from `float_val` (one value broadcast, or one per element). fp32 and fp16 constants are
/// accepted. The rest of the graph is ignored: a frozen PoseNet graph holds no information
/// beyond the weights (strides and preprocessing follow the TF.js definition).
///
/// Field numbers (tensorflow/core/framework/*.proto): GraphDef.node 1; NodeDef name 1, op 2,
/// attr 5 (map entry key 1, value 2); AttrValue.tensor 8; TensorProto dtype 1, tensor_shape 2,
/// tensor_content 4, float_val 5, half_val 13; TensorShapeProto.dim 2; Dim.size 1.
enum GraphDefImporter {
    static let graphNode = 1
    static let nodeName = 1, nodeOp = 2, nodeAttr = 5
    static let mapKey = 1, mapValue = 2
    static let attrTensor = 8
    static let tensorDType = 1, tensorShape = 2, tensorContent = 4, tensorFloatVal = 5, tensorHalfVal = 13
    static let shapeDim = 2, dimSize = 1
    static let dtFloat: UInt64 = 1, dtHalf: UInt64 = 19

    /// Reads the graph in `bytes` (the contents of `file`).
    static func read(_ bytes: [UInt8], file: String) throws -> ImportedWeights {
        do {
            return try readGraph(bytes, file: file)
        } catch let error as ProtobufError {
            throw ImportError.malformed(file: file, detail: "\(error)")
        }
    }

    private static func readGraph(_ bytes: [UInt8], file: String) throws -> ImportedWeights {
        let graph = try ProtobufFields(ProtobufMessage(buffer: bytes))
        let wanted = Set(PoseNetWeightNames.canonicalOrder())
        var tensors: [String: (shape: [Int], values: [Float], dtype: WeightDType)] = [:]
        var nodeCount = 0
        for node in try graph.messages(graphNode) {
            nodeCount += 1
            let name = try node.string(nodeName)
            guard wanted.contains(name) else { continue }
            let op = try node.string(nodeOp)
            guard op == "Const" else {
                throw ImportError.badTensor(file: file, name: name, detail: "is a '\(op)' node, not a Const (is the graph frozen?)")
            }
            guard tensors[name] == nil else { throw ImportError.badTensor(file: file, name: name, detail: "defined twice") }
            var value: ProtobufFields?
            for entry in try node.messages(nodeAttr) where try entry.string(mapKey) == "value" {
                value = try entry.message(mapValue)?.message(attrTensor)
            }
            guard let tensor = value else { throw ImportError.badTensor(file: file, name: name, detail: "Const node has no tensor 'value'") }
            tensors[name] = try decodeTensor(tensor, name: name, file: file)
        }
        guard nodeCount > 0 else { throw ImportError.unknownFormat(file: file, detail: "GraphDef has no nodes") }

        let (ordered, channels) = try ImportedWeights.canonical(tensors, file: file)
        let manifest = WeightManifest(
            family: PoseNetWeightNames.family,
            widthMultiplier: MobileNetArchitecture.widthMultiplier(firstConvChannels: channels[0]),
            blockStrides: MobileNetArchitecture.blockStrides(blockChannels: channels),
            outputStride: 16,
            outputStrideIsFromSource: false,
            preprocessing: .minusOneToOne,
            source: .init(fileName: file.split(separator: "/").last.map(String.init) ?? file,
                          sha256: SHA256.hexDigest(bytes), format: WeightImporter.Format.tensorFlowGraphDef.rawValue),
            license: WeightImporter.posenetLicense(convertedBy: "Frozen TensorFlow graph made by the rwightman/posenet-python converter (Apache-2.0, Copyright 2018 Ross Wightman) from the TF.js PoseNet checkpoint."))
        return ImportedWeights(manifest: manifest, tensors: ordered)
    }

    /// A TensorProto as shape + fp32 values.
    static func decodeTensor(_ t: ProtobufFields, name: String, file: String) throws -> (shape: [Int], values: [Float], dtype: WeightDType) {
        let dtype = try t.uint(tensorDType)
        var shape: [Int] = []
        if let s = try t.message(tensorShape) {
            for dim in try s.messages(shapeDim) {
                let raw = try dim.uint(dimSize)
                guard let size = ProtobufFields.checked(raw, in: 1...(1 << 28) - 1) else {
                    // A negative int64 dimension (-1: unknown) reads as its two's complement.
                    throw ImportError.badTensor(file: file, name: name, detail: "has dimension \(Int64(bitPattern: raw))")
                }
                shape.append(size)
            }
        }
        guard !shape.isEmpty else { throw ImportError.badTensor(file: file, name: name, detail: "is a scalar, expected a weight tensor") }
        guard let count = WeightManifest.TensorEntry.checkedElementCount(shape), count < 1 << 28 else { throw ImportError.badTensor(file: file, name: name, detail: "shape \(shape) is too large") }
        let width: Int
        switch dtype {
        case dtFloat: width = 4
        case dtHalf: width = 2
        default: throw ImportError.badTensor(file: file, name: name, detail: "has TensorFlow dtype \(dtype); only float32 (1) and float16 (19) are supported")
        }
        let kind: WeightDType = width == 2 ? .fp16 : .fp32
        if let content = try t.bytes(tensorContent), !content.isEmpty {
            guard content.count == count * width else {
                throw ImportError.badTensor(file: file, name: name, detail: "tensor_content has \(content.count) bytes, shape \(shape) needs \(count * width)")
            }
            var values = [Float](repeating: 0, count: count)
            t.message.buffer.withUnsafeBytes { raw in
                let base = raw.baseAddress! + content.lowerBound
                values.withUnsafeMutableBufferPointer { out in
                    if width == 2 {
                        HalfPrecision.convert(base, count: count, into: out.baseAddress!)
                    } else {
                        for i in 0..<count { out[i] = Float(bitPattern: UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i * 4, as: UInt32.self))) }
                    }
                }
            }
            return (shape, values, kind)
        }
        // Small constants: repeated float_val / half_val (bits in int32s); a single value fills the tensor.
        var listed: [Float]
        if width == 4 {
            listed = try t.floats(tensorFloatVal)
        } else {
            let bits = try t.uints(tensorHalfVal).map { UInt16(truncatingIfNeeded: $0) }
            listed = [Float](repeating: 0, count: bits.count)
            bits.withUnsafeBytes { raw in listed.withUnsafeMutableBufferPointer { HalfPrecision.convert(raw.baseAddress!, count: bits.count, into: $0.baseAddress!) } }
        }
        if listed.count == 1 && count > 1 {
            // One value filling the shape: a claim a few bytes make, so it may not exceed what
            // the file itself could hold (a lying shape would otherwise allocate up to 1 GB).
            guard count <= t.message.buffer.count else {
                throw ImportError.badTensor(file: file, name: name, detail: "fills shape \(shape) from one value, more values than the \(t.message.buffer.count)-byte file")
            }
            listed = [Float](repeating: listed[0], count: count)
        }
        guard listed.count == count else {
            throw ImportError.badTensor(file: file, name: name, detail: "holds \(listed.count) values, shape \(shape) needs \(count)")
        }
        return (shape, listed, kind)
    }
}
