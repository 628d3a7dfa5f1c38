extension GraphOperation {
    /// The operation's kind in one word (`conv2D`, `add`, ...), as in `posekit info` and errors.
    public var name: String {
        switch self {
        case .conv2D: return "conv2D"
        case .depthwiseConv2D: return "depthwiseConv2D"
        case .fullyConnected: return "fullyConnected"
        case .add: return "add"
        case .prelu: return "prelu"
        case .logistic: return "logistic"
        case .pad: return "pad"
        case .maxPool2D: return "maxPool2D"
        case .spatialMean: return "spatialMean"
        case .resizeBilinear: return "resizeBilinear"
        case .depthToSpace: return "depthToSpace"
        case .reshape: return "reshape"
        case .concatenation: return "concatenation"
        }
    }
}
