import PoseNet
import PoseCore
import Tensor
import TensorFlowGraphDef

/// Imports PoseNet weights from a frozen TensorFlow GraphDef (`.pb`), such as the one
/// rwightman/posenet-python's converter makes from the TF.js checkpoint.
///
/// The PoseNet family on the GraphDef reader (`TensorFlowGraphDef`: nodes and their `Const`
/// tensors, fp32 and fp16, sizes bounded). Only `Const` nodes matter: their names already are the
/// canonical names (``PoseNetWeightNames``) and their layouts TensorFlow's (HWIO, depthwise
/// `[3,3,C,1]`). The rest of the graph is ignored: a frozen PoseNet graph holds no information
/// beyond the weights (strides and preprocessing follow the TF.js definition).
enum GraphDefImporter {
    /// Reads the graph in `bytes` (the contents of `file`).
    static func read(_ bytes: [UInt8], file: String) throws -> ImportedWeights {
        do {
            return try readGraph(GraphDef(bytes: bytes), bytes: bytes, file: file)
        } catch let error as GraphDefError {
            if let node = error.node, !error.isMalformed { throw ImportError.badTensor(file: file, name: node, detail: error.detail) }
            throw ImportError.malformed(file: file, detail: error.description)
        }
    }

    private static func readGraph(_ graph: GraphDef, bytes: [UInt8], file: String) throws -> ImportedWeights {
        let wanted = Set(PoseNetWeightNames.canonicalOrder())
        var tensors: [String: (shape: [Int], values: [Float], dtype: WeightDType)] = [:]
        for node in graph.nodes where wanted.contains(node.name) {
            let name = node.name
            guard node.op == "Const" else {
                throw ImportError.badTensor(file: file, name: name, detail: "is a '\(node.op)' node, not a Const (is the graph frozen?)")
            }
            guard tensors[name] == nil else { throw ImportError.badTensor(file: file, name: name, detail: "defined twice") }
            guard let tensor = try node.valueTensor() else { throw ImportError.badTensor(file: file, name: name, detail: "Const node has no tensor 'value'") }
            tensors[name] = (tensor.shape, tensor.values, tensor.storage == .float16 ? .fp16 : .fp32)
        }
        guard !graph.nodes.isEmpty else { throw ImportError.unknownFormat(file: file, detail: "GraphDef has no nodes") }

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
            license: ModelCatalogue.poseNetGraphDefLicense)
        return ImportedWeights(manifest: manifest, tensors: ordered)
    }
}
