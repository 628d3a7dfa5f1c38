/// A hand-made TFLite model for the tests, written with ``FlatBufferBuilder`` (TFLite `schema.fbs`
/// field ids): a 1×1 convolution whose fp16 weights are stored sparse (CSR) and reach the conv
/// through DENSIFY and DEQUANTIZE, as in MediaPipe's pose detector.
///
/// Hand-checked contents:
/// - tensor 0 `x` float32 [1, 2, 2, 4] (the input);
/// - tensor 1 `w_sparse` fp16 [3, 1, 1, 4] OHWI, dense rows o0 = [1, 0, 0, 2], o1 = [0, 0, 0, 0],
///   o2 = [0, 3, −4, 0]; stored as values [1, 2, 3, −4], segments [0, 2, 2, 4], indices [0, 3, 1, 2];
/// - tensor 2 `w_dense16` = DENSIFY(1), tensor 3 `w` = DEQUANTIZE(2);
/// - tensor 4 `b16` fp16 [3] = [0.5, −1, 0.25], tensor 5 `b` = DEQUANTIZE(4);
/// - tensor 6 `y` float32 [1, 2, 2, 3] = CONV_2D(0, 3, 5), SAME, stride 1, ReLU6 (the output).
/// So the HWIO weights [1, 1, 4, 3] are [1, 0, 0,  0, 0, 3,  0, 0, −4,  2, 0, 0].
struct TinyTFLite {
    struct TensorSpec {
        var name: String
        var shape: [Int32]
        var type: Int8 = 0
        var buffer: UInt32 = 0
        var sparsity: [Int: FBField]? = nil
    }
    struct OperatorSpec {
        var code: Int32
        var inputs: [Int32]
        var outputs: [Int32]
        var optionsType: UInt8 = 0
        var options: [Int: FBField]? = nil
    }

    var tensors: [TensorSpec]
    var operators: [OperatorSpec]
    var buffers: [[UInt8]]
    var inputs: [Int32] = [0]
    var outputs: [Int32] = [6]

    /// fp16 bit patterns, little-endian bytes.
    static func halves(_ bits: [UInt16]) -> [UInt8] { bits.flatMap { [UInt8($0 & 0xff), UInt8($0 >> 8)] } }

    static var sparseConv: TinyTFLite {
        TinyTFLite(
            tensors: [
                TensorSpec(name: "x", shape: [1, 2, 2, 4]),
                TensorSpec(name: "w_sparse", shape: [3, 1, 1, 4], type: 1, buffer: 1, sparsity: sparsity()),
                TensorSpec(name: "w_dense16", shape: [3, 1, 1, 4], type: 1),
                TensorSpec(name: "w", shape: [3, 1, 1, 4]),
                TensorSpec(name: "b16", shape: [3], type: 1, buffer: 2),
                TensorSpec(name: "b", shape: [3]),
                TensorSpec(name: "y", shape: [1, 2, 2, 3]),
            ],
            operators: [
                OperatorSpec(code: 124, inputs: [1], outputs: [2]),                   // DENSIFY
                OperatorSpec(code: 6, inputs: [2], outputs: [3]),                     // DEQUANTIZE
                OperatorSpec(code: 6, inputs: [4], outputs: [5]),                     // DEQUANTIZE
                OperatorSpec(code: 3, inputs: [0, 3, 5], outputs: [6], optionsType: 1,   // CONV_2D
                             options: [0: .int8(0), 1: .int32(1), 2: .int32(1), 3: .int8(3)]),
            ],
            buffers: [[], halves([0x3C00, 0x4000, 0x4200, 0xC400]), halves([0x3800, 0xBC00, 0x3400])])
    }

    /// The CSR metadata of `w_sparse` (DENSE 3, DENSE 1, DENSE 1, SPARSE_CSR on the input channels).
    static func sparsity(denseSizes: [Int32] = [3, 1, 1], segments: [UInt16] = [0, 2, 2, 4], indices: [UInt8] = [0, 3, 1, 2],
                         traversal: [Int32] = [0, 1, 2, 3]) -> [Int: FBField] {
        let dense = denseSizes.map { FBField.table([0: .int8(0), 1: .int32($0)]) }
        let csr: [Int: FBField] = [0: .int8(1), 2: .uint8(2), 3: .table([0: .uint16s(segments)]), 4: .uint8(3), 5: .table([0: .bytes(indices)])]
        return [0: .int32s(traversal), 2: .tables(dense.map { if case .table(let t) = $0 { return t } else { return [:] } } + [csr])]
    }

    var bytes: [UInt8] {
        let codes = Array(Set(operators.map(\.code))).sorted()
        let codeTables: [[Int: FBField]] = codes.map { [0: .int8(Int8(min($0, 127))), 2: .int32(1), 3: .int32($0)] }
        let tensorTables: [[Int: FBField]] = tensors.map { t in
            var table: [Int: FBField] = [0: .int32s(t.shape), 1: .int8(t.type), 2: .uint32(t.buffer), 3: .string(t.name)]
            if let s = t.sparsity { table[6] = .table(s) }
            return table
        }
        let operatorTables: [[Int: FBField]] = operators.map { op in
            var table: [Int: FBField] = [0: .uint32(UInt32(codes.firstIndex(of: op.code)!)), 1: .int32s(op.inputs), 2: .int32s(op.outputs)]
            if let options = op.options { table[3] = .uint8(op.optionsType); table[4] = .table(options) }
            return table
        }
        let subgraph: [Int: FBField] = [0: .tables(tensorTables), 1: .int32s(inputs), 2: .int32s(outputs), 3: .tables(operatorTables)]
        return FlatBufferBuilder.build(root: [
            0: .uint32(3),
            1: .tables(codeTables),
            2: .tables([subgraph]),
            3: .string("PoseKit test"),
            4: .tables(buffers.map { $0.isEmpty ? [:] : [0: .bytes($0)] }),
        ])
    }
}
