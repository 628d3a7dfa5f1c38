import Testing
import Tensor

/// What `POSEKIT_KERNEL_ISA` does on CPUs this host is not: a set the CPU lacks falls back to the
/// best one it runs (a warning, the run goes on: words and exit status agree), a name that is no
/// instruction set is refused. 0.10 refused both, while its message said "using SSE2".
struct KernelISAEnvironmentTests {
    @Test func lackingInstructionSetFallsBackToTheBestTheCPURuns() {
        #expect(KernelISA.environmentOutcome(of: "avx2", supported: [.baseline])
                == .fallback("POSEKIT_KERNEL_ISA=avx2: this CPU lacks AVX2+FMA; using \(KernelISA.baseline.name)"))
        #expect(KernelISA.environmentOutcome(of: "avx512", supported: [.baseline, .avx2])
                == .fallback("POSEKIT_KERNEL_ISA=avx512: this CPU lacks AVX-512; using AVX2+FMA"))
    }

    @Test func honouredOrUnsetIsNothingToSay() {
        #expect(KernelISA.environmentOutcome(of: nil, supported: [.baseline]) == nil)
        #expect(KernelISA.environmentOutcome(of: "baseline", supported: [.baseline, .avx2]) == nil)
        #expect(KernelISA.environmentOutcome(of: "avx2", supported: [.baseline, .avx2]) == nil)
    }

    @Test func aNameThatIsNoInstructionSetIsRefused() {
        #expect(KernelISA.environmentOutcome(of: "sse9", supported: KernelISA.allCases)
                == .invalid("POSEKIT_KERNEL_ISA=sse9 is not an instruction set; use baseline, avx2, avx512"))
        #expect(KernelISA.environmentOutcome(of: "AVX2", supported: KernelISA.allCases) != nil)
    }
}
