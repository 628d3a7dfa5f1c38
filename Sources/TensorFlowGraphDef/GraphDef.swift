import Foundation
import Protobuf

/// A frozen TensorFlow `GraphDef` (`.pb`) read as `tensorflow/core/framework/*.proto` states it:
/// its nodes, each with its name and op, and the `Const` tensors they hold (``GraphDefTensor``).
///
/// Format only: which nodes matter and what they mean is the family's (PoseNet's importer takes
/// its weights by name). Every integer is range-checked and every tensor's size bounded before any
/// allocation.
///
/// Field numbers: GraphDef.node 1; NodeDef name 1, op 2, attr 5 (map entry key 1, value 2);
/// AttrValue.tensor 8; TensorProto dtype 1, tensor_shape 2, tensor_content 4, float_val 5,
/// half_val 13; TensorShapeProto.dim 2; Dim.size 1.
public struct GraphDef: Sendable {
    public static let graphNode = 1
    public static let nodeName = 1, nodeOp = 2, nodeAttr = 5
    public static let mapKey = 1, mapValue = 2
    public static let attrTensor = 8

    /// The nodes in file order.
    public let nodes: [GraphDefNode]

    /// Reads a whole `GraphDef`.
    ///
    /// - Throws: ``GraphDefError`` (broken protobuf).
    public init(bytes: [UInt8]) throws {
        do {
            let graph = try ProtobufFields(ProtobufMessage(buffer: bytes))
            nodes = try graph.messages(Self.graphNode).map { node in
                GraphDefNode(name: try node.string(Self.nodeName), op: try node.string(Self.nodeOp), fields: node)
            }
        } catch let error as ProtobufError {
            throw GraphDefError(error)
        }
    }
}

/// One `NodeDef`: its name, its op and, read on demand, the tensor a `Const` node holds.
public struct GraphDefNode: Sendable {
    public let name: String
    public let op: String
    let fields: ProtobufFields

    /// The tensor in the node's `value` attribute (a `Const` node's value), or nil when it has none.
    ///
    /// - Throws: ``GraphDefError`` naming this node.
    public func valueTensor() throws -> GraphDefTensor? {
        do {
            var value: ProtobufFields?
            for entry in try fields.messages(GraphDef.nodeAttr) where try entry.string(GraphDef.mapKey) == "value" {
                value = try entry.message(GraphDef.mapValue)?.message(GraphDef.attrTensor)
            }
            return try value.map { try GraphDefTensor($0, node: name) }
        } catch let error as ProtobufError {
            throw GraphDefError(error, node: name)
        }
    }
}

/// Why a GraphDef could not be read; families add the file's name.
public struct GraphDefError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The node at fault (nil: the graph).
    public let node: String?
    /// What is wrong, in one line.
    public let detail: String
    /// Whether the protobuf bytes themselves are broken.
    public let isMalformed: Bool

    public init(node: String? = nil, _ detail: String, malformed: Bool = false) {
        (self.node, self.detail, self.isMalformed) = (node, detail, malformed)
    }

    init(_ error: ProtobufError, node: String? = nil) { self.init(node: node, "\(error)", malformed: true) }

    public var description: String { node.map { "tensor '\($0)': \(detail)" } ?? detail }
}

extension GraphDefError: LocalizedError {
    /// ``description``, one line.
    public var errorDescription: String? { description }
}
