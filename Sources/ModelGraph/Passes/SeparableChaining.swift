import Tensor

/// The plan pass that runs two MobileNet blocks in a row as one chain (Tensor's
/// `Convolution.separableChain`): each core makes a few rows of the first block's output and at
/// once the second block's rows that read them, so an activation larger than the last-level cache
/// (PoseNet's 12.7 MiB after block 1 at 513) is read back from L2, not from memory.
///
/// A chain is two consecutive ``SeparableKernel`` steps, the second reading only the first's
/// output, which no other step reads, which is not a requested output and which holds at least
/// ``minimumIntermediateBytes``. Chains do not overlap: blocks 1, 2, 3, 4, 5 give the chains
/// (1, 2) and (3, 4). The first block's output is still written in full (the same values as the
/// steps one after the other).
enum SeparableChaining {
    /// The smallest activation between two blocks worth a chain. Measured on a Zen 1 EPYC (8 MiB
    /// L3, one core, PoseNet 0.75 at 513): chains saved 1.3 ms over 12.7 MiB (blocks 1 → 2),
    /// 0.66 ms over 6.4 MiB, 0.17 ms over 3.2 MiB, and lost 0.05–0.12 ms over 1.6 MiB, which stays
    /// in the last-level cache anyway while a chain's shorter GEMM runs cost a little.
    static let minimumIntermediateBytes = 2 << 20

    /// The indices of steps that run with the step after them.
    static func chains(_ steps: [GraphStep], shapes: [[Int]], outputs: [ValueID]) -> Set<Int> {
        var readers: [ValueID: Int] = [:]
        for step in steps { for id in step.inputs { readers[id, default: 0] += 1 } }
        let requested = Set(outputs)
        var chained = Set<Int>()
        var index = 0
        while index + 1 < steps.count {
            let (first, second) = (steps[index], steps[index + 1])
            if first.kernel is SeparableKernel, second.kernel is SeparableKernel, second.inputs == [first.output],
               readers[first.output] == 1, !requested.contains(first.output),
               shapes[first.output].reduce(1, *) * MemoryLayout<Float>.stride >= minimumIntermediateBytes {
                chained.insert(index)
                index += 2
            } else {
                index += 1
            }
        }
        return chained
    }
}
