import FlatBuffers

/// The subset of a TFLite model (`schema.fbs`, file identifier `TFL3`) that PoseKit imports: the
/// main subgraph's tensors, operators, inputs and outputs, and where each buffer's bytes are.
///
/// Field ids are the schema's declaration order (a union takes two). Reading checks everything a
/// later step indexes with: tensor, buffer and opcode indices in range, shapes of bounded rank and
/// size, buffers inside the file. Operator options stay unread tables until the mapper asks
/// (``TFLiteOptions``).
public struct TFLiteModel: Sendable {
    /// TFLite's `TensorType` values PoseKit meets.
    public enum TensorType: Int8, Sendable {
        case float32 = 0, float16 = 1, int32 = 2, uint8 = 3, int64 = 4, int8 = 9
    }

    /// One tensor of the subgraph.
    public struct TensorInfo: Sendable {
        public let name: String
        /// Static shape (with the batch axis), every axis positive.
        public let shape: [Int]
        /// The raw `TensorType` code (see ``TensorType``).
        public let typeCode: Int8
        /// Index into ``TFLiteModel/buffers``; buffer 0 is the empty sentinel.
        public let buffer: Int
        /// Sparse storage of a constant, if any (`DENSIFY` folds it).
        public let sparsity: FlatTable?
        public var type: TensorType? { TensorType(rawValue: typeCode) }
        public var elementCount: Int { shape.reduce(1, *) }
    }

    /// One operator of the subgraph.
    public struct OperatorInfo: Sendable {
        /// `BuiltinOperator` code (the larger of `builtin_code` and `deprecated_builtin_code`).
        public let builtinCode: Int
        /// Input tensor indices; -1 marks an omitted optional input.
        public let inputs: [Int]
        /// Output tensor indices.
        public let outputs: [Int]
        /// The `builtin_options` union: its type code and table (nil when absent).
        public let optionsType: UInt8
        public let options: FlatTable?
    }

    /// Largest tensor rank accepted.
    public static let maxRank = 6
    /// Largest element count of one tensor (2²⁸).
    public static let maxElements = 1 << 28

    /// The whole file.
    public let buffer: FlatBuffer
    /// The schema version the file declares.
    public let version: Int
    /// The model's description string (converter name), if any.
    public let description: String?
    public let tensors: [TensorInfo]
    public let operators: [OperatorInfo]
    /// The subgraph's input and output tensor indices, in the model's order.
    public let inputs: [Int]
    public let outputs: [Int]
    /// Each buffer's data as a byte range of ``buffer`` (empty for none).
    public let buffers: [Range<Int>]

    /// Reads `bytes`; `file` names the file in errors.
    ///
    /// - Throws: ``TFLiteError`` for a buffer that is not a well-formed TFLite model.
    public init(bytes: [UInt8], file: String) throws {
        let buffer = FlatBuffer(bytes: bytes)
        func invalid(_ detail: String) -> TFLiteError { TFLiteError(file: file, detail) }
        guard bytes.count >= 8 else { throw invalid("not a TFLite model: \(bytes.count) bytes is too short") }
        guard buffer.fileIdentifier == "TFL3" else { throw invalid("not a TFLite model (no TFL3 file identifier at byte 4)") }
        do {
            let model = try buffer.root()
            self.buffer = buffer
            version = Int(try model.scalar(0, default: UInt32(0)))
            description = try model.string(3)

            // Buffers (Model field 4): inline `data` (field 0), or `offset`/`size` (fields 1, 2) for
            // data stored after the FlatBuffer in files larger than 2 GB.
            var buffers: [Range<Int>] = []
            if let list = try model.vector(4, elementSize: 4) {
                buffers.reserveCapacity(list.count)
                for i in 0..<list.count {
                    let entry = try list.table(at: i)
                    if let data = try entry.vector(0, elementSize: 1) {
                        buffers.append(data.byteRange)
                    } else {
                        let offset: UInt64 = try entry.scalar(1, default: 0), size: UInt64 = try entry.scalar(2, default: 0)
                        if offset > 1 {
                            guard offset <= UInt64(bytes.count), size <= UInt64(bytes.count) - offset else {
                                throw invalid("buffer \(i) claims bytes \(offset)..<\(offset &+ size) of a \(bytes.count)-byte file")
                            }
                            buffers.append(Int(offset)..<Int(offset + size))
                        } else {
                            buffers.append(0..<0)
                        }
                    }
                }
            }
            self.buffers = buffers

            let codes = try TFLiteModel.operatorCodes(model, invalid)
            guard let subgraphs = try model.vector(2, elementSize: 4), subgraphs.count >= 1 else { throw invalid("the model has no subgraph") }
            // Only the main subgraph: the others are bodies of control-flow ops, which PoseKit does not run.
            let graph = try subgraphs.table(at: 0)
            let tensorList = try graph.vector(0, elementSize: 4)
            var tensors: [TensorInfo] = []
            tensors.reserveCapacity(tensorList?.count ?? 0)
            for i in 0..<(tensorList?.count ?? 0) {
                let t = try tensorList!.table(at: i)
                let name = try t.string(3) ?? "tensor \(i)"
                let shape = try t.vector(0, elementSize: 4)?.scalars(Int32.self).map(Int.init) ?? []
                guard shape.count <= TFLiteModel.maxRank else { throw invalid("tensor \(i) '\(name)' has rank \(shape.count) (at most \(TFLiteModel.maxRank))") }
                var elements = 1
                for d in shape {
                    guard d > 0 else { throw invalid("tensor \(i) '\(name)' has shape \(shape): dynamic or empty axes are not supported") }
                    elements = elements.multipliedReportingOverflow(by: d).partialValue
                    guard elements <= TFLiteModel.maxElements, d <= TFLiteModel.maxElements else {
                        throw invalid("tensor \(i) '\(name)' has shape \(shape), more than \(TFLiteModel.maxElements) elements")
                    }
                }
                let bufferIndex = Int(try t.scalar(2, default: UInt32(0)))
                guard bufferIndex < max(buffers.count, 1) else { throw invalid("tensor \(i) '\(name)' uses buffer \(bufferIndex) of \(buffers.count)") }
                tensors.append(TensorInfo(name: name, shape: shape, typeCode: try t.scalar(1, default: Int8(0)),
                                          buffer: bufferIndex, sparsity: try t.table(6)))
            }
            self.tensors = tensors
            func tensorIndices(_ v: FlatVector?, _ what: String, optional: Bool) throws -> [Int] {
                let list = try v?.scalars(Int32.self).map(Int.init) ?? []
                for t in list where !(t >= 0 && t < tensors.count) && !(optional && t == -1) {
                    throw invalid("\(what) names tensor \(t) of \(tensors.count)")
                }
                return list
            }
            inputs = try tensorIndices(graph.vector(1, elementSize: 4), "the subgraph's inputs", optional: false)
            outputs = try tensorIndices(graph.vector(2, elementSize: 4), "the subgraph's outputs", optional: false)
            let opList = try graph.vector(3, elementSize: 4)
            var operators: [OperatorInfo] = []
            operators.reserveCapacity(opList?.count ?? 0)
            for i in 0..<(opList?.count ?? 0) {
                let op = try opList!.table(at: i)
                let opcode = Int(try op.scalar(0, default: UInt32(0)))
                guard opcode < codes.count else { throw invalid("operator \(i) uses opcode \(opcode) of \(codes.count)") }
                let options = try op.union(3)
                operators.append(OperatorInfo(builtinCode: codes[opcode],
                                              inputs: try tensorIndices(op.vector(1, elementSize: 4), "operator \(i)'s inputs", optional: true),
                                              outputs: try tensorIndices(op.vector(2, elementSize: 4), "operator \(i)'s outputs", optional: false),
                                              optionsType: options.type, options: options.table))
            }
            self.operators = operators
        } catch let error as FlatBufferError {
            throw invalid("not a valid TFLite file: \(error.description)")
        }
    }

    /// `builtin_code` of each operator code; files from before schema 3a store codes < 127 only in
    /// `deprecated_builtin_code` (an int8), newer ones both, so the larger of the two is the code.
    private static func operatorCodes(_ model: FlatTable, _ invalid: (String) -> TFLiteError) throws -> [Int] {
        guard let list = try model.vector(1, elementSize: 4) else { return [] }
        return try (0..<list.count).map { i in
            let code = try list.table(at: i)
            let deprecated = Int(try code.scalar(0, default: Int8(0)))
            let builtin = Int(try code.scalar(3, default: Int32(0)))
            let value = max(deprecated, builtin)
            guard value >= 0 else { throw invalid("operator code \(i) has builtin code \(value)") }
            return value
        }
    }

    /// The constant data of tensor `index` (a range of ``buffer``), or nil if it has none.
    public func data(ofTensor index: Int) -> Range<Int>? {
        let b = tensors[index].buffer
        guard b < buffers.count, !buffers[b].isEmpty else { return nil }
        return buffers[b]
    }

    /// Number of operators per builtin code name, as the file stores them (with `DEQUANTIZE` and `DENSIFY`).
    public var operatorCounts: [String: Int] {
        Dictionary(grouping: operators, by: { TFLiteBuiltinOperator.name($0.builtinCode) }).mapValues(\.count)
    }
}
