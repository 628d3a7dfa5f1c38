/// The names of Core ML's `NeuralNetworkLayer` kinds (the `oneof layer` field names of coremltools'
/// `NeuralNetwork.proto`) by field number: what the families on the Core ML reader (PoseNet's importer, ActionNet's
/// Create ML classifiers) call a layer kind in their messages about layers they do not run.
public enum CoreMLLayerKindNames {
    public static let byField: [Int: String] = [
        100: "convolution", 120: "pooling", 130: "activation", 140: "innerProduct", 150: "embedding",
        160: "batchnorm", 165: "mvn", 170: "l2normalize", 175: "softmax", 180: "lrn", 190: "crop",
        200: "padding", 210: "upsample", 211: "resizeBilinear", 212: "cropResize", 220: "unary",
        230: "add", 231: "multiply", 240: "average", 245: "scale", 250: "bias", 260: "max", 261: "min",
        270: "dot", 280: "reduce", 290: "loadConstant", 300: "reshape", 301: "flatten", 310: "permute",
        320: "concat", 330: "split", 340: "sequenceRepeat", 345: "reorganizeData", 350: "slice",
        400: "simpleRecurrent", 410: "gru", 420: "uniDirectionalLSTM", 430: "biDirectionalLSTM", 500: "custom",
        600: "copy", 605: "branch", 615: "loop", 660: "clip", 760: "tanh", 795: "gelu",
        865: "modBroadcastable", 870: "minBroadcastable", 875: "maxBroadcastable", 880: "addBroadcastable",
        885: "powBroadcastable", 890: "divideBroadcastable", 900: "multiplyBroadcastable", 905: "subtractBroadcastable",
        920: "tile", 925: "stack", 930: "gather", 950: "softmaxND", 975: "splitND", 980: "concatND", 985: "transpose",
        995: "sliceStatic", 1000: "sliceDynamic", 1045: "batchedMatmul", 1065: "getShape", 1070: "loadConstantND",
        1120: "squeeze", 1125: "expandDims", 1130: "flattenTo2D", 1135: "reshapeLike", 1140: "reshapeStatic",
        1145: "reshapeDynamic", 1150: "rankPreservingReshape", 1155: "constantPad", 1350: "layerNormalization",
        1460: "clampedReLU", 1470: "sliceBySize", 1471: "convolution3d",
    ]

    /// The kind's name, or "layer kind N" for a field number not listed.
    public static func name(_ field: Int) -> String { byField[field] ?? "layer kind \(field)" }
}
