import Tensor

/// 2-D max pooling: `inputs: [x]` `[H, W, C]`; padding cells never win.
public struct MaxPool2DOp: GraphOperation, Equatable {
    public static let name = "maxPool2D"
    public var window: Window2D

    public init(window: Window2D) { self.window = window }

    public init(attributes: inout GraphAttributes) throws { window = try attributes.window() }

    public func encode(into attributes: inout GraphAttributes) { attributes.set(window: window) }

    public func validate(_ node: inout GraphNodeCheck) throws {
        try node.arity(1)
        let x = node.shape(0)
        guard x.count == 3 else { throw node.fail("input shape \(x) is not [H, W, C]") }
        let (h, w) = try node.windowOutput(window, x)
        try node.expect([h, w, x[2]])
    }

    public func bind(_ binding: inout GraphBinding) throws {
        try binding.requireInputs(1)
        guard window.padding.top < window.kernelHeight, window.padding.left < window.kernelWidth else {
            throw binding.unsupported("padding \(window.padding) is wider than the window")
        }
        binding.addStep(MaxPoolKernel(window: window), binding.node.inputs)
    }
}

struct MaxPoolKernel: GraphKernel {
    let window: Window2D
    var kind: String { "max pool" }
    func run(_ io: GraphKernelIO) throws {
        try Pooling.maxPool(io.input(0), kernelHeight: window.kernelHeight, kernelWidth: window.kernelWidth,
                            strideHeight: window.strideHeight, strideWidth: window.strideWidth,
                            padTop: window.padding.top, padLeft: window.padding.left, into: io.output, threads: io.threads)
    }
}
