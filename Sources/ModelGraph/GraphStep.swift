import Tensor

/// One operation of a planned graph, bound to the kernel that runs it and to what that kernel
/// needs prepared once (packed weights, padding resolved to the kernel's convention).
struct GraphStep {
    /// What runs (defined in the operation's file under `Ops/`).
    let kernel: any GraphKernel
    /// Values read, in the kernel's order (constants already taken into `kernel` are left out); a
    /// convolution whose epilogue adds a residual reads it last.
    let inputs: [ValueID]
    let output: ValueID
    /// The node of the graph this step runs (a pad step inserted before a convolution names the convolution).
    let node: Int
    /// Further nodes this step runs in its convolution's epilogue (an `ADD`, a `PRELU`), in order.
    var fusedNodes: [Int] = []

    /// The kind of work, for profiles: `conv 1x1`, `conv 1x1 int8` (a reduced precision is named),
    /// `depthwise 5x5 s2`, `add`, `conv 1x1 + add + prelu` (a convolution with the nodes its epilogue runs), ...
    var kind: String { kernel.kind }

    /// Runs the step on `values` (a view per value ID; nil for values this plan does not hold),
    /// leaving out the output rows or columns a band gives (only steps of the band chain are given any).
    func run(_ values: [Tensor?], workspace: ConvolutionWorkspace, threads: Int, skipsZeroChannels: Bool,
             skippingRows: Range<Int> = 0..<0, skippingColumns: Range<Int> = 0..<0) throws {
        try kernel.run(GraphKernelIO(values: values, inputs: inputs, outputID: output, workspace: workspace, threads: threads,
                                     skipsZeroChannels: skipsZeroChannels, skippingRows: skippingRows, skippingColumns: skippingColumns))
    }
}

/// A kernel bound to one step with everything it needs prepared once (packed weights, slopes,
/// padding conventions): what ``GraphOperation/bind(_:)`` makes. Each operation's file defines its
/// own.
protocol GraphKernel {
    /// The kind of work, for profiles and ``GraphRunner/stepKinds`` (`conv 1x1 int8`, `add`).
    var kind: String { get }
    /// True for a kernel that does no work: its output is input 0's buffer seen with another
    /// shape (the planner gives both one buffer).
    var aliasesInput: Bool { get }
    /// Runs on the step's views.
    func run(_ io: GraphKernelIO) throws
    /// For a kernel that can leave out output rows (columns) a band of equal input rows gives:
    /// its window over its input (``RepeatedBand``); nil for the others.
    var bandGeometry: ConvolutionGeometry? { get }
    /// Grows `workspace` to what a run on `threads` cores takes, so that no run allocates.
    func reserve(_ workspace: ConvolutionWorkspace, threads: Int)
    /// Which compiled kernels run it, for profiles (`packed GEMM AVX2+FMA 6x16`); by default its kind.
    var kernels: String { get }
}

extension GraphKernel {
    var aliasesInput: Bool { false }
    var bandGeometry: ConvolutionGeometry? { nil }
    func reserve(_ workspace: ConvolutionWorkspace, threads: Int) {}
    var kernels: String { kind }
}

/// What a kernel reads and writes in one run: views into the runner's buffers (no allocation).
struct GraphKernelIO {
    let values: [Tensor?]
    let inputs: [ValueID]
    let outputID: ValueID
    /// Scratch for im2col rows and depthwise bands, the runner's.
    let workspace: ConvolutionWorkspace
    /// Cores a kernel splits its work over.
    let threads: Int
    /// Whether 1×1 products leave out input channels that are zero in a whole tile (Tensor's
    /// `skippingZeroChannels`: the same values, less work after ReLU).
    let skipsZeroChannels: Bool
    /// Output rows (columns) a band gives that this run leaves out (``RepeatedBand``).
    var skippingRows: Range<Int> = 0..<0
    var skippingColumns: Range<Int> = 0..<0

    /// The view of the step's input `i`.
    func input(_ i: Int) -> Tensor { values[inputs[i]]! }
    /// Number of inputs the step reads.
    var inputCount: Int { inputs.count }
    /// The view the step writes.
    var output: Tensor { values[outputID]! }
}

/// What a convolution step does after its bias (Tensor's `Epilogue`, planned): the activation, a
/// residual (the step's last input) and PReLU slopes, from the nodes fused into it.
struct StepEpilogue {
    /// The clamp: the convolution's own activation, or that of the `ADD` fused after it.
    var activation: Activation
    /// Whether the step's last input is added (a fused `ADD`).
    var addsResidual = false
    /// The slopes of a fused `PRELU`.
    var prelu: PReLUSlopes?

    init(_ activation: Activation) { self.activation = activation }

    /// The epilogue of one run, reading the residual from `io`'s last input when there is one.
    func epilogue(_ io: GraphKernelIO) -> Epilogue {
        Epilogue(activation: activation, residual: addsResidual ? io.input(io.inputCount - 1) : nil, prelu: prelu)
    }

    /// `" + add"`, `" + prelu"`, `" + add + prelu"` or nothing, for the step's kind.
    var kindSuffix: String { (addsResidual ? " + add" : "") + (prelu != nil ? " + prelu" : "") }
}
