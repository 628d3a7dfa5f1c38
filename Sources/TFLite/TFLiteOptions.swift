import FlatBuffers
import Tensor

/// The `builtin_options` tables of the ops PoseKit imports (TFLite `schema.fbs`; field ids in
/// declaration order), decoded with the schema's defaults for absent fields.
enum TFLiteOptions {
    /// `BuiltinOptions` union type codes.
    static let conv2DType: UInt8 = 1, depthwiseType: UInt8 = 2, pool2DType: UInt8 = 5, fullyConnectedType: UInt8 = 8
    static let concatenationType: UInt8 = 10, addType: UInt8 = 11, resizeBilinearType: UInt8 = 15, reshapeType: UInt8 = 17
    static let padType: UInt8 = 22, reducerType: UInt8 = 27, dequantizeType: UInt8 = 38, depthToSpaceType: UInt8 = 94, densifyType: UInt8 = 99

    /// TF padding: `SAME` (0) or `VALID` (1).
    enum Padding: UInt8 { case same = 0, valid = 1 }

    struct Window {
        var padding: Padding
        var strideWidth: Int, strideHeight: Int
        var dilationWidth = 1, dilationHeight = 1
        var filterWidth = 0, filterHeight = 0
        var depthMultiplier = 1
        var activation: Activation
    }

    /// The options table of `op` when its union type is `type`; nil when absent (all defaults).
    static func table(_ op: TFLiteModel.OperatorInfo, _ type: UInt8, _ fail: (String) -> Error) throws -> FlatTable? {
        guard op.optionsType == 0 || op.optionsType == type else {
            throw fail("carries options of union type \(op.optionsType), expected \(type)")
        }
        return op.options
    }

    /// `ActivationFunctionType`: NONE 0, RELU 1, RELU_N1_TO_1 2, RELU6 3, TANH 4, SIGN_BIT 5.
    static func activation(_ code: Int8, _ fail: (String) -> Error) throws -> Activation {
        switch code {
        case 0: return .none
        case 1: return .relu
        case 3: return .relu6
        default:
            let names = [2: "RELU_N1_TO_1", 4: "TANH", 5: "SIGN_BIT"]
            throw fail("uses fused activation \(names[Int(code)] ?? "code \(code)"), which PoseKit does not run")
        }
    }

    static func padding(_ code: Int8, _ fail: (String) -> Error) throws -> Padding {
        guard let p = Padding(rawValue: UInt8(bitPattern: code)) else { throw fail("has padding code \(code)") }
        return p
    }

    /// Conv2DOptions: padding 0, stride_w 1, stride_h 2, fused_activation_function 3, dilation_w 4, dilation_h 5.
    static func conv2D(_ op: TFLiteModel.OperatorInfo, _ fail: (String) -> Error) throws -> Window {
        let t = try table(op, conv2DType, fail)
        return Window(padding: try padding(t?.scalar(0, default: Int8(0)) ?? 0, fail),
                      strideWidth: Int(try t?.scalar(1, default: Int32(0)) ?? 0), strideHeight: Int(try t?.scalar(2, default: Int32(0)) ?? 0),
                      dilationWidth: Int(try t?.scalar(4, default: Int32(1)) ?? 1), dilationHeight: Int(try t?.scalar(5, default: Int32(1)) ?? 1),
                      activation: try activation(t?.scalar(3, default: Int8(0)) ?? 0, fail))
    }

    /// DepthwiseConv2DOptions: padding 0, stride_w 1, stride_h 2, depth_multiplier 3, fused_activation_function 4,
    /// dilation_w 5, dilation_h 6.
    static func depthwise(_ op: TFLiteModel.OperatorInfo, _ fail: (String) -> Error) throws -> Window {
        let t = try table(op, depthwiseType, fail)
        return Window(padding: try padding(t?.scalar(0, default: Int8(0)) ?? 0, fail),
                      strideWidth: Int(try t?.scalar(1, default: Int32(0)) ?? 0), strideHeight: Int(try t?.scalar(2, default: Int32(0)) ?? 0),
                      dilationWidth: Int(try t?.scalar(5, default: Int32(1)) ?? 1), dilationHeight: Int(try t?.scalar(6, default: Int32(1)) ?? 1),
                      depthMultiplier: Int(try t?.scalar(3, default: Int32(0)) ?? 0),
                      activation: try activation(t?.scalar(4, default: Int8(0)) ?? 0, fail))
    }

    /// Pool2DOptions: padding 0, stride_w 1, stride_h 2, filter_width 3, filter_height 4, fused_activation_function 5.
    static func pool2D(_ op: TFLiteModel.OperatorInfo, _ fail: (String) -> Error) throws -> Window {
        let t = try table(op, pool2DType, fail)
        return Window(padding: try padding(t?.scalar(0, default: Int8(0)) ?? 0, fail),
                      strideWidth: Int(try t?.scalar(1, default: Int32(0)) ?? 0), strideHeight: Int(try t?.scalar(2, default: Int32(0)) ?? 0),
                      filterWidth: Int(try t?.scalar(3, default: Int32(0)) ?? 0), filterHeight: Int(try t?.scalar(4, default: Int32(0)) ?? 0),
                      activation: try activation(t?.scalar(5, default: Int8(0)) ?? 0, fail))
    }

    /// AddOptions: fused_activation_function 0.
    static func add(_ op: TFLiteModel.OperatorInfo, _ fail: (String) -> Error) throws -> Activation {
        try activation(table(op, addType, fail)?.scalar(0, default: Int8(0)) ?? 0, fail)
    }

    /// FullyConnectedOptions: fused_activation_function 0, weights_format 1 (DEFAULT 0 only), keep_num_dims 2.
    static func fullyConnected(_ op: TFLiteModel.OperatorInfo, _ fail: (String) -> Error) throws -> (activation: Activation, keepNumDims: Bool) {
        let t = try table(op, fullyConnectedType, fail)
        let format: Int8 = try t?.scalar(1, default: 0) ?? 0
        guard format == 0 else { throw fail("uses shuffled weights format \(format)") }
        return (try activation(t?.scalar(0, default: Int8(0)) ?? 0, fail), try t?.bool(2, default: false) ?? false)
    }

    /// ConcatenationOptions: axis 0, fused_activation_function 1.
    static func concatenation(_ op: TFLiteModel.OperatorInfo, _ fail: (String) -> Error) throws -> (axis: Int, activation: Activation) {
        let t = try table(op, concatenationType, fail)
        return (Int(try t?.scalar(0, default: Int32(0)) ?? 0), try activation(t?.scalar(1, default: Int8(0)) ?? 0, fail))
    }

    /// ResizeBilinearOptions: new_height 0, new_width 1 (deprecated), align_corners 2, half_pixel_centers 3.
    static func resizeBilinear(_ op: TFLiteModel.OperatorInfo, _ fail: (String) -> Error) throws -> (alignCorners: Bool, halfPixelCenters: Bool) {
        let t = try table(op, resizeBilinearType, fail)
        return (try t?.bool(2, default: false) ?? false, try t?.bool(3, default: false) ?? false)
    }

    /// DepthToSpaceOptions: block_size 0.
    static func depthToSpace(_ op: TFLiteModel.OperatorInfo, _ fail: (String) -> Error) throws -> Int {
        Int(try table(op, depthToSpaceType, fail)?.scalar(0, default: Int32(0)) ?? 0)
    }

    /// ReducerOptions: keep_dims 0.
    static func reducerKeepDims(_ op: TFLiteModel.OperatorInfo, _ fail: (String) -> Error) throws -> Bool {
        try table(op, reducerType, fail)?.bool(0, default: false) ?? false
    }

    /// Ops whose options tables hold nothing PoseKit uses (RESHAPE's new_shape repeats its output
    /// shape; PAD, DEQUANTIZE, DENSIFY options are empty): only the union type is checked.
    static func checkType(_ op: TFLiteModel.OperatorInfo, _ type: UInt8?, _ fail: (String) -> Error) throws {
        if let type { _ = try table(op, type, fail) }
    }
}
