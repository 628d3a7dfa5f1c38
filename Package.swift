// swift-tools-version: 6.0
//
// PoseKit: pose and action inference in pure Swift on Linux.
// Targets, bottom-up:
//   COpenBLAS  system library (cblas.h, pkg-config `openblas`, Debian `libopenblas-dev`)
//   Tensor     float32 NHWC tensors and the kernels (GEMM-backed convolutions, depthwise, activations)
//   FrameIO    PNM / Y4M readers and writers, colour conversion, wireframe overlays
//   PoseNet    weight bundles, importers, the MobileNetV1 PoseNet network, pose decoders, evaluation
//   ActionNet  tracking, sliding windows, temporal-convolution action classifier, repetition counting
//   App        the `posekit` command
import PackageDescription

let optimise: [SwiftSetting] = [.unsafeFlags(["-Ounchecked", "-wmo"], .when(configuration: .release))]

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
        .target(name: "Tensor", dependencies: ["COpenBLAS"], swiftSettings: optimise),
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
