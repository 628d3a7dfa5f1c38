// swift-tools-version: 6.0
//
// PoseKit: pose and action inference in pure Swift on Linux.
// Targets, bottom-up (ARCHITECTURE.md: the data flow and what each may import).
// Runtime (the library products; a client that only runs models links these):
//   COpenBLAS   system library (cblas.h, pkg-config `openblas`, Debian `libopenblas-dev`)
//   CCPUID      the x86 CPUID / XGETBV instructions (C: Swift has no inline assembly); empty elsewhere
//   CKernels    the packed GEMM microkernel compiled per instruction set (AVX-512, AVX2+FMA, baseline
//               SSE2/NEON) with function target attributes; Tensor picks one at run time
//   CPUFeatures the host's vector features, the build's requirements, the CPU guard (always baseline)
//   Tensor      float32 NHWC tensors and the kernels (GEMM-backed convolutions, depthwise, activations)
//   PoseCore    the pose vocabulary: poses, body parts, skeleton, image <-> network-input mapping and
//               scaling, JSON Lines writer and reader, tracking, smoothing, prominent person, resampling
//   FrameIO     PNM / Y4M readers and writers, color conversion, network-input writer, wireframe overlays
//   MediaPipe   MediaPipe's pre/post-processing calculators (OpenCV-exact crop, SSD anchors, detection
//               decoding, weighted NMS, regions, landmark projection, filters) and its pipelines
//   Streaming   the model-agnostic stream: reading ahead, frames in flight (or one stateful worker),
//               identities and smoothing, for any model that finds poses in a frame; images as video;
//               the frame commands' one per-frame write loop, progress, stop signals
//   PoseNet     MobileNetV1 facts and the PoseNet network, pose decoders, the finder protocol
//               (PoseFinding, a Streaming model)
//   Protobuf    the protocol-buffers wire-format reader (no schema; Core ML and TensorFlow files)
//   CoreMLFormat the Core ML format's one reader (description, layers, parameters, weights by one fp16 rule)
//   FlatBuffers the FlatBuffers binary-format reader (bounds-checked; TFLite files)
//   ModelGraph  a network as a DAG of operations, its checks and its .pkw storage
//   Detectors   every one-call detector, one home: PoseDetector (PoseNet), BlazePoseDetector,
//               HandDetector, BodyAndHandsModel (pose --hands), HandAssignment
//   PoseKit     the umbrella: re-exports ActionNet, Detectors, FrameIO, PoseCore, PoseNet, Streaming and
//               Tensor, and MediaPipe's BlazePoseResult (one import); what needs two of them (actions on a
//               detector's stream, batches into an output directory)
//   ActionNet   sliding windows, temporal-convolution action classifier, Create ML action classifiers
//               (Core ML layer graphs), repetition counting (not PoseNet)
// Tools (linked by the command and the tests only):
//   TensorFlowGraphDef the TensorFlow GraphDef format's reader (nodes, Const tensors)
//   PoseNetImport     the PoseNet family on the Core ML and GraphDef readers (weight importers)
//   TFLite            the TFLite schema subset and mapper to a ModelGraph graph (fp16/sparse weights folded)
//   PoseEvaluation    COCO keypoint evaluation and results
//   KernelBenchmarks  naive reference kernels, timing helpers, synthetic heads, benchmarks
//   ActionTraining    the action classifier's training: synthetic motion, real clips, backward pass, Adam
//   ModelFiles        every model file as a graph (TFLite, graph and PoseNet bundles, Create ML, ActionNet) for
//                     `run`, `info` and `bench model`: loading by name or path, descriptions, a run's outputs
// The live view (`posekit view`; linked by the command only, never by a library product):
//   CJPEG       libjpeg's encoder (and decoder) on memory buffers (C; Debian `libjpeg-dev`)
//   ViewServer  the HTTP + WebSocket server (Hummingbird), the page, newest-frame-wins fan-out to viewers
//   LiveView    `posekit view`'s pipeline on the server: each frame's scene for the page, the per-frame
//               loop that publishes it, and `bench view`'s measurement (PoseKit + ViewServer)
// Command:
//   App         the `posekit` command
import Foundation
import PackageDescription

// Portable by default, host-tuned by choice.
//
// With no environment variable the manifest uses no `unsafeFlags`, so other packages can depend on
// PoseKit by URL and version (SwiftPM rejects versioned dependencies with unsafe flags). The
// portable build runs on any x86-64 or aarch64 CPU and still runs fast kernels: the GEMMs go to
// PoseKit's packed microkernel in CKernels, compiled for AVX-512, AVX2+FMA and the baseline in
// every build, the best one the CPU has chosen at run time from CPUID (docs/dispatch.md).
//
// POSEKIT_TARGET_CPU opts into codegen for one CPU level (`make build` sets `native`):
//   native               the building machine's best of the two levels below (or portable)
//   haswell              x86-64-v3 (AVX2, FMA, F16C, BMI1/2, LZCNT, MOVBE): `-target-cpu haswell -D POSEKIT_FMA`
//   skylake-avx512       plus AVX-512 F/CD/BW/DQ/VL: `... -D POSEKIT_AVX512` (16-lane packed GEMM)
//   portable (or empty)  the default
// Only these two generic levels: the CPU guard checks exactly what they may use, whereas a
// vendor model (znver3, icelake-server, ...) would let the compiler use extensions it does not check.
// Only the Tensor target gets `-target-cpu`; the CPUFeatures target, which `posekit` runs first to
// refuse a CPU lacking the build's instructions, is always compiled for the baseline.
enum TunedLevel { case avx2, avx512 }

let knownCPUs: [String: TunedLevel] = ["haswell": .avx2, "skylake-avx512": .avx512]

/// The CPU to tune for (nil: portable), from POSEKIT_TARGET_CPU.
func tunedCPU() -> (cpu: String, level: TunedLevel)? {
    let requested = ProcessInfo.processInfo.environment["POSEKIT_TARGET_CPU"] ?? ""
    switch requested {
    case "", "portable", "x86-64":
        return nil
    case "native":
        return nativeCPU()
    default:
        guard let level = knownCPUs[requested] else {
            let names = (["native", "portable"] + knownCPUs.keys.sorted()).joined(separator: ", ")
            fatalError("POSEKIT_TARGET_CPU=\(requested) is not a CPU PoseKit knows; use one of \(names), or unset it for the portable build")
        }
        return (requested, level)
    }
}

/// The building machine's level from /proc/cpuinfo (Linux x86-64), else nil (portable).
func nativeCPU() -> (cpu: String, level: TunedLevel)? {
    #if arch(x86_64) && os(Linux)
    guard let info = try? String(contentsOfFile: "/proc/cpuinfo", encoding: .utf8),
          let flagsLine = info.split(separator: "\n").first(where: { $0.hasPrefix("flags") }) else { return nil }
    let cpuFlags = Set(flagsLine.split(separator: " ").map(String.init))
    let v3: Set<String> = ["avx", "avx2", "fma", "f16c", "bmi1", "bmi2", "abm", "movbe", "xsave"]
    let avx512: Set<String> = ["avx512f", "avx512bw", "avx512dq", "avx512vl", "avx512cd"]
    guard v3.isSubset(of: cpuFlags) else { return nil }
    return avx512.isSubset(of: cpuFlags) ? ("skylake-avx512", .avx512) : ("haswell", .avx2)
    #else
    return nil
    #endif
}

let tuned = tunedCPU()
/// The portable build adds nothing (SwiftPM's release build is already -O with whole-module
/// optimization); the tuned build also drops the runtime checks.
let optimize: [SwiftSetting] = tuned == nil ? [] : [.unsafeFlags(["-Ounchecked", "-wmo"], .when(configuration: .release))]
/// Codegen of the targets with the hot loops (Tensor's kernels, FrameIO's frame conversions): the
/// tuned build adds the CPU. (Bit-identical either way: Swift never contracts a + b * c into an FMA.)
let kernelSettings: [SwiftSetting] = optimize + (tuned.map { cpu, level in
    [.unsafeFlags(["-target-cpu", cpu] + (level == .avx512 ? ["-DPOSEKIT_AVX512"] : [])), .define("POSEKIT_FMA")]
} ?? [])
/// What the CPU guard must find in the host (safe `.define`s: the guard itself stays baseline).
let guardSettings: [SwiftSetting] = tuned.map { cpu, level in
    [.define(level == .avx512 ? "POSEKIT_BUILD_AVX512" : "POSEKIT_BUILD_AVX2"), .define("POSEKIT_BUILD_TUNED")]
} ?? []

// Library clients build the library and nothing else, by default. SwiftPM compiles the plugins
// of every package in the graph (swift-argument-parser's GenerateManual and GenerateDoccReference)
// and every package dependency, even when no product a client uses needs them: minutes on a loaded
// 2-core host. So the manifest is the whole project (the `posekit` command, its tools, the tests,
// the documentation plugin, the view's server) only when PoseKit is the root package, the one
// `swift build` / `swift test` / `make` runs in: SwiftPM evaluates every manifest of a graph in the
// root package's directory (also under `--package-path`), so a manifest evaluated elsewhere is a
// dependency's (a path dependency, a `checkouts/` clone of a URL dependency). There, and with
// `POSEKIT_LIBRARY_ONLY=1` anywhere, only the targets the library products need are kept, with no
// package dependency (`scripts/client-package-check.sh` checks that no plugin is compiled).
// `POSEKIT_LIBRARY_ONLY=0` forces the whole project (a dependency whose command you want).
func isRootPackage() -> Bool {
    func real(_ path: String) -> String { URL(fileURLWithPath: path).resolvingSymlinksInPath().path }
    return real(FileManager.default.currentDirectoryPath) == real(Context.packageDirectory)
}
let libraryOnly = ProcessInfo.processInfo.environment["POSEKIT_LIBRARY_ONLY"].map { $0 == "1" } ?? !isRootPackage()

let package = Package(
    name: "PoseKit",
    products: [
        .library(name: "Tensor", targets: ["Tensor"]),
        .library(name: "FrameIO", targets: ["FrameIO"]),
        .library(name: "PoseCore", targets: ["PoseCore"]),
        .library(name: "Streaming", targets: ["Streaming"]),
        .library(name: "PoseNet", targets: ["PoseNet"]),
        .library(name: "ActionNet", targets: ["ActionNet"]),
        // Imported networks: the graph IR and its .pkw storage, and the TFLite importer that builds it.
        .library(name: "ModelGraph", targets: ["ModelGraph"]),
        .library(name: "TFLite", targets: ["TFLite"]),
        // MediaPipe's hand and BlazePose pipelines (its calculators) on imported graphs.
        .library(name: "MediaPipe", targets: ["MediaPipe"]),
        // Every one-call detector (PoseNet's, BlazePose, hands).
        .library(name: "Detectors", targets: ["Detectors"]),
        // The one import for clients: all of the above.
        .library(name: "PoseKit", targets: ["PoseKit"]),
        .executable(name: "posekit", targets: ["App"]),
    ],
    dependencies: [
        // 1.6: the three-argument custom completion (--model completes the catalogue's names).
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.6.0"),
        // Documentation only: `swift package generate-documentation` (make docs).
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.4.0"),
        // The live view's server (`posekit view`: ViewServer only; a library client never builds them).
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.6.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenBLAS",
            pkgConfig: "openblas",
            providers: [.apt(["libopenblas-dev"])]
        ),
        .target(name: "CCPUID"),
        .target(name: "CPUFeatures", dependencies: ["CCPUID"], swiftSettings: guardSettings),
        // No flags: each instruction set's copy carries its own `target` attribute.
        .target(name: "CKernels"),
        .target(name: "Tensor", dependencies: ["COpenBLAS", "CPUFeatures", "CKernels"], swiftSettings: kernelSettings),
        // A network as a DAG of operations (format-independent; the TFLite importer builds it, the graph runner runs it).
        .target(name: "ModelGraph", dependencies: ["Tensor"], swiftSettings: optimize),
        // The FlatBuffers binary-format reader (bounds-checked; TFLite files).
        .target(name: "FlatBuffers", swiftSettings: optimize),
        .target(name: "PoseCore", swiftSettings: optimize),
        .target(name: "FrameIO", dependencies: ["PoseCore"], swiftSettings: kernelSettings),
        // The model-agnostic stream (reading, frames in flight, state carried between frames, identities, smoothing).
        .target(name: "Streaming", dependencies: ["PoseCore", "FrameIO"], swiftSettings: optimize),
        // ModelGraph: PoseNet is a graph on the one runner (#45).
        .target(name: "PoseNet", dependencies: ["Tensor", "PoseCore", "FrameIO", "Streaming", "ModelGraph"], swiftSettings: optimize),
        // MediaPipe's calculators (crop, anchors, decoding, NMS, regions, landmarks, filters) and its pipelines.
        .target(name: "MediaPipe", dependencies: ["Tensor", "FrameIO", "ModelGraph", "PoseCore", "Streaming"], swiftSettings: kernelSettings),
        // The protocol-buffers wire reader (Core ML and TensorFlow files), shared by the importers and ActionNet.
        .target(name: "Protobuf", swiftSettings: optimize),
        // The Core ML format's one reader (model description, layers and their parameters, weights by one
        // fp16 rule), on the wire reader; PoseNet's importer and ActionNet's Create ML classifiers build on it.
        .target(name: "CoreMLFormat", dependencies: ["Protobuf", "Tensor"], swiftSettings: optimize),
        // ModelGraph: Create ML classifiers and ActionNet run as graphs on its runner (#45).
        .target(name: "ActionNet", dependencies: ["Tensor", "PoseCore", "Protobuf", "CoreMLFormat", "ModelGraph"], swiftSettings: optimize),
        // Every one-call detector in one home (PoseNet's, BlazePose, hands, body and hands together).
        .target(name: "Detectors", dependencies: ["PoseNet", "MediaPipe", "ModelGraph", "Streaming", "FrameIO", "PoseCore", "Tensor"],
                swiftSettings: optimize),
        // The umbrella module: re-exports the runtime modules (`import PoseKit`).
        .target(name: "PoseKit", dependencies: ["ActionNet", "Detectors", "FrameIO", "PoseCore", "PoseNet", "Streaming", "MediaPipe", "ModelGraph", "Tensor"]),
        // Tools: linked by the `posekit` command and the tests, never by a runtime target.
        // The TensorFlow GraphDef format's reader (nodes, Const tensors); PoseNet's importer matches names on it.
        .target(name: "TensorFlowGraphDef", dependencies: ["Protobuf", "Tensor"], swiftSettings: optimize),
        .target(name: "PoseNetImport", dependencies: ["PoseNet", "PoseCore", "Tensor", "Protobuf", "CoreMLFormat", "TensorFlowGraphDef"], swiftSettings: optimize),
        // The TFLite schema subset and its family mapper: a .tflite file becomes a ModelGraph.Graph.
        .target(name: "TFLite", dependencies: ["FlatBuffers", "ModelGraph", "Tensor"], swiftSettings: optimize),
        // FrameIO: which inputs are one image (media names), for eval and pose --format coco.
        .target(name: "PoseEvaluation", dependencies: ["PoseCore", "PoseNet", "FrameIO"], swiftSettings: optimize),
        .target(name: "KernelBenchmarks", dependencies: ["Tensor", "ModelGraph", "FrameIO", "PoseCore", "PoseNet", "MediaPipe", "Detectors", "ActionNet", "CPUFeatures", "COpenBLAS"],
                swiftSettings: optimize),
        // Training the action classifier (synthetic motion, real clips, backward pass, Adam).
        .target(name: "ActionTraining", dependencies: ["ActionNet", "PoseCore", "Tensor", "COpenBLAS"], swiftSettings: optimize),
        // Every model file as a graph for `run`, `info` and `bench model` (loading, descriptions, a run's outputs).
        .target(name: "ModelFiles", dependencies: ["PoseKit", "ModelGraph", "TFLite", "PoseNetImport", "CPUFeatures"], swiftSettings: optimize),
        // The live view: libjpeg on memory buffers, and the server with its page (Hummingbird + WebSocket).
        .target(name: "CJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .target(
            name: "ViewServer",
            dependencies: [
                "CJPEG", "FrameIO", "PoseCore",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: optimize
        ),
        // `posekit view`'s pipeline on the server (not in a product: a library client never builds it).
        .target(name: "LiveView", dependencies: ["PoseKit", "ViewServer"], swiftSettings: optimize),
        .executableTarget(
            name: "App",
            dependencies: [
                "PoseKit", "CPUFeatures",
                "PoseNetImport", "PoseEvaluation", "KernelBenchmarks", "ActionTraining", "ModelGraph", "TFLite", "MediaPipe",
                "ViewServer", "LiveView", "ModelFiles",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: optimize
        ),
        // What several test targets share (a seeded generator, a NaN-aware error); no product uses it.
        .target(name: "TestSupport", path: "Tests/TestSupport"),
        .testTarget(name: "CPUFeaturesTests", dependencies: ["CPUFeatures"]),
        .testTarget(name: "ModelGraphTests", dependencies: ["ModelGraph", "TFLite", "Tensor", "TestSupport"]),
        .testTarget(name: "TensorTests", dependencies: ["Tensor", "CPUFeatures", "KernelBenchmarks", "TestSupport"]),
        .testTarget(name: "PoseCoreTests", dependencies: ["PoseCore"]),
        .testTarget(name: "FrameIOTests", dependencies: ["FrameIO", "PoseCore", "TestSupport"]),
        .testTarget(name: "StreamingTests", dependencies: ["Streaming", "PoseCore", "FrameIO", "TestSupport"]),
        .testTarget(name: "PoseNetTests", dependencies: ["PoseNet", "Detectors", "PoseCore", "Tensor", "PoseNetImport", "PoseEvaluation", "KernelBenchmarks", "FrameIO", "TestSupport", "ModelGraph"]),
        .testTarget(name: "ActionNetTests", dependencies: ["ActionNet", "CoreMLFormat", "PoseCore", "ActionTraining", "PoseNet", "FrameIO", "ModelGraph", "TestSupport"]),
        .testTarget(name: "ActionTrainingTests", dependencies: ["ActionTraining", "ActionNet", "PoseCore", "Tensor"]),
        // libjpeg for the MediaPipe tests: MediaPipe's goldens were made from libjpeg-decoded JPEGs (ffmpeg
        // decodes them differently), so bit-exact input tensors need the same pixels. Tests only.
        .target(name: "CLibJPEG", path: "Tests/CLibJPEG", linkerSettings: [.linkedLibrary("jpeg")]),
        .testTarget(name: "MediaPipeTests", dependencies: ["MediaPipe", "Detectors", "FrameIO", "PoseCore", "Streaming", "Tensor", "ModelGraph", "TFLite", "CLibJPEG"]),
        .testTarget(name: "CoreMLFormatTests", dependencies: ["CoreMLFormat", "Protobuf", "TestSupport"]),
        .testTarget(name: "TFLiteTests", dependencies: ["TFLite", "FlatBuffers", "ModelGraph", "Tensor"]),
        .testTarget(name: "ViewServerTests", dependencies: ["ViewServer", "FrameIO", "PoseCore", "TestSupport"]),
        // TFLite: GraphRefusalCommandTests finds the tensors of the model it poisons with its reader.
        .testTarget(name: "AppTests", dependencies: ["App", "ViewServer", "TestSupport", "CPUFeatures", "PoseKit", "PoseNetImport", "PoseEvaluation", "Protobuf", "CLibJPEG", "MediaPipe", "ModelGraph", "TFLite"]),
    ]
)

if libraryOnly {
    // Library products only: the targets they need (by target dependency, transitively), no
    // executable, no test, no package dependency (no library target uses one: keep it so).
    var needed = Set(package.products.compactMap { $0 as? Product.Library }.flatMap(\.targets))
    var queue = Array(needed)
    while let name = queue.popLast() {
        guard let target = package.targets.first(where: { $0.name == name }) else { continue }
        for dependency in target.dependencies {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _):
                if needed.insert(name).inserted { queue.append(name) }
            default:
                continue
            }
        }
    }
    package.targets.removeAll { !needed.contains($0.name) }
    package.products.removeAll { $0 is Product.Executable }
    package.dependencies.removeAll()
}
