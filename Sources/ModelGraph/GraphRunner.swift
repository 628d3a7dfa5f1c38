import Dispatch
import Foundation
import Tensor

/// Runs a ``Graph`` on `Tensor`'s kernels.
///
/// Built once per graph, output selection and thread count: the constructor prunes the graph to
/// the nodes the requested outputs need (pose_landmark_full without its segmentation branch, say),
/// binds every node to a kernel with its weights packed once, runs residual `ADD`s and `PRELU`s in
/// the epilogue of the convolution before them where the graph allows (``stepKinds`` shows
/// which), and places every intermediate value in a pool of buffers reused by liveness.
/// ``run(_:)`` then only executes the steps: no allocation besides the returned outputs.
///
/// Layouts are the graph's (``Graph``): feature maps `[H, W, C]`, other values their source shape
/// without the batch axis.
///
/// A runner holds its activations, so runs on one runner are serialized (a lock); build one runner
/// per concurrent caller, on the same `Graph` (whose constants are shared, not copied).
public final class GraphRunner: @unchecked Sendable {
    /// The graph as given (unpruned).
    public let graph: Graph
    /// The value IDs computed, in the order ``run(_:)`` returns them.
    public let outputs: [ValueID]
    /// Cores each kernel splits its work over.
    public let threads: Int

    private let plan: GraphPlan
    /// Per value ID: its tensor (a view into a pool buffer, or a constant); nil when not planned.
    private let views: [Tensor?]
    /// The graph's inputs' buffers (a view, or a tensor of its own for an input no output reads).
    public let inputBuffers: [Tensor]
    /// The requested outputs' buffers: what the last run left there (rewritten by every run).
    public let outputBuffers: [Tensor]
    /// Whether 1×1 products leave out the input channels that are zero in all of a tile's pixels
    /// (Tensor's `skippingZeroChannels`: the same values; ReLU makes such channels common, and each
    /// kernel call samples its tiles first and skips only where that pays). True by default; false
    /// times the full work.
    public var skipsZeroChannels = true
    private let workspace = ConvolutionWorkspace()
    /// The plan's chains of blocks (``GraphPlan/chains``) by their first step.
    private let chainRuns: [Int: ChainRun]
    private let lock = NSLock()

    /// Plans `graph` to compute `outputs` (value IDs; nil: all of the graph's outputs, in its order)
    /// on `threads` cores, its 1×1 convolutions in `precision` (Tensor's `Precision`; `fp32` by
    /// default). With `fusingEpilogues` false every `ADD` and `PRELU` runs as a step of its own
    /// (the same values: for measuring what fusion pays, and for tests).
    ///
    /// - Throws: ``GraphRunnerError`` when the graph is malformed (a value read before it is
    ///   made, IDs out of range, shapes that disagree) or holds a configuration no kernel runs
    ///   (named with its node); `PrecisionUnavailable` for an explicit `precision` this CPU lacks.
    public init(graph: Graph, outputs: [ValueID]? = nil, threads: Int = Parallelism.defaultThreads,
                fusingEpilogues: Bool = true, fusingLayers: Bool = true, precision: Precision = .fp32) throws {
        let outputs = outputs ?? graph.outputs
        guard !outputs.isEmpty else { throw GraphRunnerError.invalidGraph("no outputs to compute") }
        self.graph = graph
        self.outputs = outputs
        self.threads = max(1, threads)
        let plan = try GraphPlan(graph: graph, outputs: outputs, fusingEpilogues: fusingEpilogues, fusingLayers: fusingLayers,
                                 precision: try precision.resolved())
        self.plan = plan
        let buffers = try plan.bufferCapacities.map { try Tensor(zeros: [max(1, $0)]) }
        let views: [Tensor?] = try plan.shapes.indices.map { id in
            switch plan.placement[id] {
            case .none: return nil
            case .constant(let tensor): return tensor
            case .buffer(let index):
                let shape = plan.shapes[id]
                return try buffers[index].slice(0..<shape.reduce(1, *)).reshaped(shape)
            }
        }
        self.views = views
        inputBuffers = try graph.inputs.map { try views[$0] ?? Tensor(zeros: plan.shapes[$0]) }
        outputBuffers = outputs.map { views[$0]! }
        for step in plan.steps { step.kernel.reserve(workspace, threads: self.threads) }
        var chainRuns: [Int: ChainRun] = [:]
        for (first, count) in plan.chains {
            let steps = plan.steps[first..<(first + count)]
            let kernels = steps.compactMap { $0.kernel as? SeparableKernel }
            guard kernels.count == count else { continue }
            let run = ChainRun(blocks: kernels.map(\.block), input: views[steps.first!.inputs[0]]!, outputs: steps.map { views[$0.output]! })
            workspace.reserve(count: Convolution.separableChainWorkspaceCount(run.blocks, kernels.map(\.geometry), threads: self.threads))
            chainRuns[first] = run
        }
        self.chainRuns = chainRuns
    }

    /// The shapes ``run(_:)`` expects, in the graph's input order (batch axis dropped).
    public var inputShapes: [[Int]] { graph.inputs.map { plan.shapes[$0] } }

    /// The shapes ``run(_:)`` returns, in ``outputs`` order.
    public var outputShapes: [[Int]] { outputs.map { plan.shapes[$0] } }

    /// Steps the plan runs (nodes after pruning, plus any pad a convolution needed, less the
    /// nodes run in a convolution's epilogue).
    public var stepCount: Int { plan.steps.count }

    /// The kind of each step, in run order: `conv 1x1`, `conv 1x1 int8` (a reduced precision is
    /// named), `depthwise 5x5 s2`, `add`, ..., and for a
    /// convolution that runs the nodes after it in its epilogue, those too (`conv 1x1 + add + prelu`).
    public var stepKinds: [String] { plan.steps.map(\.kind) }

    /// The graph nodes run in a convolution's epilogue rather than as steps of their own.
    public var fusedNodes: [Int] { plan.steps.flatMap(\.fusedNodes) }

    /// Floats held by the activation pool (every intermediate value of a run lives in it).
    public var poolFloatCount: Int { plan.bufferCapacities.reduce(0, +) }

    /// Runs the graph on `inputs` (one tensor per graph input, in order, each of its
    /// ``inputShapes`` entry's element count; any shape with that count is accepted, read
    /// row-major) and returns the ``outputs``, each a new tensor of the graph's shape.
    ///
    /// - Throws: ``GraphRunnerError/inputMismatch(_:)`` when the inputs do not fit.
    public func run(_ inputs: [Tensor]) throws -> [Tensor] {
        try execute(inputs, band: nil, timing: nil)
        return try outputs.map { id in try Tensor(shape: plan.shapes[id], values: views[id]!.scalars) }
    }

    /// Runs the graph on what ``inputBuffers`` hold and leaves the outputs in ``outputBuffers``:
    /// no copy and no allocation (a frame written straight into the input buffer, heads read in
    /// place). `band` is input 0's rows (columns) known to be equal (``InputBand``): the steps of
    /// the plan's band chain then compute one of the rows each gives (``bandChainSteps``).
    ///
    /// - Throws: ``GraphRunnerError/inputMismatch(_:)`` for a band outside input 0.
    public func runInPlace(band: InputBand? = nil) throws {
        try execute(nil, band: band, timing: nil)
    }

    /// How many steps, from the first, a band of equal input rows is followed through.
    public var bandChainSteps: Int { plan.bandChainLength }

    /// Where the time of a run goes, per kind of step (`conv 1x1`, `depthwise 5x5 s2`, `add`, ...),
    /// largest first: each step's median over `runs` runs, in seconds, summed per kind, with the
    /// number of steps of each kind.
    public func profile(_ inputs: [Tensor], runs: Int = 5) throws -> [(kind: String, steps: Int, seconds: Double)] {
        var samples = [[Double]](repeating: [], count: plan.steps.count)
        var times = [Double](repeating: 0, count: plan.steps.count)
        for _ in 0..<max(1, runs) {
            try times.withUnsafeMutableBufferPointer { try execute(inputs, band: nil, timing: $0.baseAddress) }
            for (step, time) in times.enumerated() { samples[step].append(time) }
        }
        var byKind: [String: (Int, Double)] = [:]
        for (step, stepSamples) in zip(plan.steps, samples) {
            let median = stepSamples.sorted()[stepSamples.count / 2]
            let (count, total) = byKind[step.kind] ?? (0, 0)
            byKind[step.kind] = (count + 1, total + median)
        }
        return byKind.map { (kind: $0.key, steps: $0.value.0, seconds: $0.value.1) }.sorted { $0.seconds > $1.seconds }
    }

    /// Each step of one run on ``inputBuffers`` (with `band`, as ``runInPlace(band:)``), in run
    /// order: its kind, the compiled kernels that ran it (`packed GEMM AVX2+FMA 6x16`), its
    /// seconds, and whether it ran in one chain with the step before (two MobileNet blocks whose
    /// activation between them is large, Tensor's `Convolution.separableChain`): then its time is
    /// in that step's and its own is 0.
    public func stepTimes(band: InputBand? = nil) throws -> [(kind: String, kernels: String, seconds: Double, timedWithPrevious: Bool)] {
        var times = [Double](repeating: 0, count: plan.steps.count)
        try times.withUnsafeMutableBufferPointer { try execute(nil, band: band, timing: $0.baseAddress) }
        return plan.steps.indices.map { index in
            let step = plan.steps[index]
            let chained = plan.chains.contains { index > $0.key && index < $0.key + $0.value
                                                 && (band == nil || $0.key >= plan.bandChainLength) }
            return (kind: step.kind, kernels: step.kernel.kernels, seconds: times[index], timedWithPrevious: chained)
        }
    }

    /// What one chain of blocks (``GraphPlan/chains``) runs on: its blocks and views.
    struct ChainRun {
        let blocks: [SeparableBlock]
        let input: Tensor
        let outputs: [Tensor]
    }

    /// Copies `inputs` in (nil: they are in ``inputBuffers`` already), runs every step (writing
    /// each step's seconds to `timing[step]` when given) with `band` followed through the band
    /// chain; the outputs are left in their buffers.
    private func execute(_ inputs: [Tensor]?, band: InputBand?, timing: UnsafeMutablePointer<Double>?) throws {
        if let inputs, inputs.count != graph.inputs.count {
            throw GraphRunnerError.inputMismatch("the graph takes \(graph.inputs.count) input(s), \(inputs.count) given")
        }
        lock.lock()
        defer { lock.unlock() }
        for (index, (id, target)) in zip(graph.inputs, inputBuffers).enumerated() {
            guard let tensor = inputs?[index] else { continue }
            let expected = plan.shapes[id]
            guard tensor.count == expected.reduce(1, *) else {
                throw GraphRunnerError.inputMismatch("input \(index) '\(plan.names[id])' must have shape \(expected), got \(tensor.shape)")
            }
            tensor.withUnsafeBufferPointer { source in
                target.withUnsafeMutableBufferPointer { $0.baseAddress!.update(from: source.baseAddress!, count: source.count) }
            }
        }
        var repeated: RepeatedBand?
        if let band, plan.bandChainLength > 0 {
            let shape = plan.shapes[graph.inputs[0]]
            let extent = band.axis == .rows ? shape[0] : shape[1]
            guard shape.count == 3, band.range.lowerBound >= 0, band.range.upperBound <= extent else {
                throw GraphRunnerError.inputMismatch("band \(band.axis) \(band.range) lies outside input '\(plan.names[graph.inputs[0]])' \(shape)")
            }
            repeated = RepeatedBand(band: band)
        }
        var ranInAChain = -1  // the last step a chain ran
        for (index, step) in plan.steps.enumerated() {
            if index <= ranInAChain {
                timing?[index] = 0
                continue
            }
            let start = timing == nil ? 0 : DispatchTime.now().uptimeNanoseconds
            do {
                if let chain = chainRuns[index], repeated == nil || index >= plan.bandChainLength {
                    // Blocks as one chain; the time of all is the first's.
                    try Convolution.separableChain(chain.input, chain.blocks, into: chain.outputs, workspace: workspace,
                                                   skippingZeroChannels: skipsZeroChannels, threads: threads)
                    ranInAChain = index + chain.blocks.count - 1
                } else if var band = repeated, index < plan.bandChainLength, let geometry = step.kernel.bandGeometry {
                    // Skip the output rows (columns) the band gives but one; write the ones this step reads first.
                    let skipped = band.skipped(geometry)
                    band.prepare(views[step.inputs[0]]!, for: geometry, skipping: skipped)
                    try step.run(views, workspace: workspace, threads: threads, skipsZeroChannels: skipsZeroChannels,
                                 skippingRows: band.axis == .rows ? skipped : 0..<0, skippingColumns: band.axis == .columns ? skipped : 0..<0)
                    band.advance(geometry, skipped: skipped)
                    if index == plan.bandChainLength - 1 { band.finish(views[step.output]!) }
                    repeated = band
                } else {
                    try step.run(views, workspace: workspace, threads: threads, skipsZeroChannels: skipsZeroChannels)
                }
            } catch let error as TensorError {
                throw GraphRunnerError.node("node \(step.node) (\(graph.nodes[step.node].operation.name), '\(plan.names[step.output])'): \(error.description)")
            }
            if let timing { timing[index] = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9 }
        }
    }
}
