// swift-tools-version: 6.0
//
// libFuzzer harnesses for PoseKit's stream parsers and model readers. A separate package so that `swift build` and
// `swift test` of the main package never see them. Build and run via `make fuzz` / `make fuzz-smoke`
// (which call Fuzz/run.sh); by hand:
//
//     cd Fuzz && swift build -c release -sanitize=fuzzer
//     .build/release/FuzzY4M corpus-y4m -max_total_time=600
import PackageDescription

let package = Package(
    name: "PoseKitFuzz",
    dependencies: [.package(name: "PoseKit", path: "..")],
    targets: [
        .executableTarget(name: "FuzzPNM", dependencies: [.product(name: "FrameIO", package: "PoseKit")]),
        .executableTarget(name: "FuzzY4M", dependencies: [.product(name: "FrameIO", package: "PoseKit")]),
        .executableTarget(name: "FuzzTFLite", dependencies: [.product(name: "TFLite", package: "PoseKit"), .product(name: "ModelGraph", package: "PoseKit"),
                                                             .product(name: "Tensor", package: "PoseKit")]),
    ]
)
