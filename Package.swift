// swift-tools-version: 6.0
//
// PoseKit: pose and action inference in pure Swift on Linux.
// Targets, bottom-up:
//   COpenBLAS  system library (cblas.h, pkg-config `openblas`, Debian `libopenblas-dev`)
//   Tensor     float32 NHWC tensors and the kernels (GEMM-backed convolutions, depthwise, activations)
//   FrameIO    PNM / Y4M readers and writers, colour conversion, wireframe overlays
//   PoseNet    weight bundles, importers, the MobileNetV1 PoseNet network, pose decoders, identity
//              tracking and One-Euro smoothing (used by `pose` and by ActionNet), evaluation
//   ActionNet  prominent-person choice, sliding windows, temporal-convolution action classifier, repetition counting
//   App        the `posekit` command
import Foundation
import PackageDescription

let optimise: [SwiftSetting] = [.unsafeFlags(["-Ounchecked", "-wmo"], .when(configuration: .release))]

// The Tensor kernels are compiled for the build machine's vector ISA instead of Swift's SSE2
// baseline, but only with features the building machine has (PoseKit is built where it runs), so
// the result never hits an illegal instruction on the build host:
//   AVX2 + FMA + F16C (x86-64-v3)   -> `-target-cpu haswell` (clang's importer rejects `x86-64-v3`)
//   plus AVX-512 F/BW/DQ/VL/CD      -> `-target-cpu skylake-avx512 -D POSEKIT_AVX512`: the packed
//                                      pointwise GEMM (PackedPointwiseConvolution.swift) then uses
//                                      16-lane vectors, one zmm register each (2x the FMA width)
// `-D POSEKIT_FMA` goes with either, so the kernels use fused multiply-add only where it is one
// instruction (on the baseline a fused multiply-add is a libm call per lane).
// POSEKIT_TARGET_CPU overrides the detection: `x86-64` (or empty) for a portable baseline build,
// `haswell` for AVX2 only; any other value must name a CPU with AVX-512 F/BW/DQ/VL.
func tensorCodegenFlags() -> [String] {
    func flags(for cpu: String) -> [String] {
        switch cpu {
        case "", "x86-64": return []
        case "haswell": return ["-target-cpu", cpu, "-DPOSEKIT_FMA"]
        default: return ["-target-cpu", cpu, "-DPOSEKIT_FMA", "-DPOSEKIT_AVX512"]
        }
    }
    if let forced = ProcessInfo.processInfo.environment["POSEKIT_TARGET_CPU"] { return flags(for: forced) }
    #if arch(x86_64) && os(Linux)
    guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
          let flagsLine = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return [] }
    let cpuFlags = Set(flagsLine.split(separator: " ").map(String.init))
    let v3: Set<String> = ["avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "abm", "movbe", "xsave"]
    let avx512: Set<String> = ["avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"]
    guard v3.isSubset(of: cpuFlags) else { return [] }
    return flags(for: avx512.isSubset(of: cpuFlags) ? "skylake-avx512" : "haswell")
    #else
    return []
    #endif
}
let tensorSettings: [SwiftSetting] = optimise + [.unsafeFlags(tensorCodegenFlags())]

let package = Package(
    name: "PoseKit",
    products: [
        .library(name: "Tensor", targets: ["Tensor"]),
        .library(name: "FrameIO", targets: ["FrameIO"]),
        .library(name: "PoseNet", targets: ["PoseNet"]),
        .library(name: "ActionNet", targets: ["ActionNet"]),
        .executable(name: "posekit", targets: ["App"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]
        ),
        .target(name: "Tensor", dependencies: ["COpenBLAS"], swiftSettings: tensorSettings),
        .target(name: "FrameIO", swiftSettings: optimise),
        .target(name: "PoseNet", dependencies: ["Tensor"], swiftSettings: optimise),
        .target(name: "ActionNet", dependencies: ["Tensor", "PoseNet", "COpenBLAS"], swiftSettings: optimise),
        .executableTarget(
            name: "App",
            dependencies: [
                "Tensor", "FrameIO", "PoseNet", "ActionNet",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: optimise
        ),
        .testTarget(name: "TensorTests", dependencies: ["Tensor"]),
        .testTarget(name: "FrameIOTests", dependencies: ["FrameIO"]),
        .testTarget(name: "PoseNetTests", dependencies: ["PoseNet", "Tensor"]),
        .testTarget(name: "ActionNetTests", dependencies: ["ActionNet", "PoseNet"]),
        .testTarget(name: "AppTests", dependencies: ["App"]),
    ]
)
