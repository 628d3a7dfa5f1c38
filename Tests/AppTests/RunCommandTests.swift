import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `posekit run MODEL --input X.npy --output DIR`: TFLite's outputs on MediaPipe's golden input,
/// named by tensor, in the model's shapes, with a summary line each; `--outputs`, `--npz` and
/// `--list`; one-line errors for bad tensors; outputs written whole, directories never mixed.
struct RunCommandTests {
    static let model = CLI.shared.appendingPathComponent("weights/mediapipe-0.10.14/hand_landmark_lite.tflite").path
    static let golden = CLI.shared.appendingPathComponent("reference/mediapipe/models/hand_landmark_lite")

    /// The `.npy` header's shape and the float32 payload of a NumPy 1.0 file.
    static func npy(_ url: URL) throws -> (shape: [Int], values: [Float]) {
        let data = try Data(contentsOf: url)
        let headerLength = Int(data[8]) | Int(data[9]) << 8
        let header = String(decoding: data[10..<(10 + headerLength)], as: UTF8.self)
        let shapeText = header.split(separator: "(")[1].split(separator: ")")[0]
        let shape = shapeText.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
        let values = data[(10 + headerLength)...].withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        return (shape, values)
    }

    @Test func writesTheModelsOutputsInOrder() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Self.golden.appendingPathComponent("mpii_004645041_input_1.npy").path
        let result = try CLI.run(["run", Self.model, "--input", input, "--output", dir.path, "--threads", "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let references = ["Identity_landmarks", "Identity_1_handflag", "Identity_2_handedness", "Identity_3_world"]
        let names = ["Identity", "Identity_1", "Identity_2", "Identity_3"]   // the model's tensor names
        for (i, (name, file)) in zip(references, names).enumerated() {
            let got = try Self.npy(dir.appendingPathComponent("\(file).npy"))
            let want = try Self.npy(Self.golden.appendingPathComponent("mpii_004645041_\(name).npy"))
            #expect(got.shape == want.shape, "output \(i)")
            // Within 1e-4 of the output's range (of its magnitude for a single value).
            var range = Double((want.values.max() ?? 0) - (want.values.min() ?? 0))
            if range == 0 { range = max(1e-6, Double(want.values.map(abs).max() ?? 0)) }
            let worst = zip(got.values, want.values).map { Double(abs($0 - $1)) }.max() ?? .infinity
            #expect(got.values.count == want.values.count && worst <= 1e-4 * range, "output \(i): \(worst) over \(range)")
            // The summary line: index, name, shape, min, max, mean of the values written (%.6g).
            let line = try #require(result.lines.first { $0.hasPrefix("\(i)  \(file)  ") }, "\(result.stdoutText)")
            let shape = "[" + got.shape.map(String.init).joined(separator: ", ") + "]"
            let mean = got.values.reduce(0.0) { $0 + Double($1) } / Double(got.values.count)
            for part in [shape, "min \(String(format: "%.6g", Double(got.values.min()!)))", "max \(String(format: "%.6g", Double(got.values.max()!)))",
                         "mean \(String(format: "%.6g", mean))", dir.appendingPathComponent("\(file).npy").path] {
                #expect(line.contains(part), "\(line) lacks \(part)")
            }
        }
        #expect(result.lines.count == 4)
        let record = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: dir.appendingPathComponent("run.json"))) as? [String: Any])
        let listed = try #require(record["outputs"] as? [[String: Any]])
        #expect(listed.map { $0["file"] as? String } == names.map { "\($0).npy" } && listed.map { $0["index"] as? Int } == [0, 1, 2, 3])
        // --outputs writes only those, under their tensor names.
        let some = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: some) }
        let selected = try CLI.run(["run", Self.model, "--input", input, "--output", some.path, "--outputs", "3", "Identity_1"])
        #expect(selected.status == 0, "\(selected.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: some.path)) == ["Identity_1.npy", "Identity_3.npy", "run.json"])
        // --list and info give the shapes the same way, batch axis included.
        let list = try CLI.run(["run", Self.model, "--list"])
        #expect(list.status == 0 && list.stdoutText.contains("[1, 224, 224, 3]") && list.stdoutText.contains("[1, 63]"), "\(list.stdoutText)")
        let info = try CLI.run(["info", Self.model])
        #expect(info.status == 0 && info.stdoutText.contains("[1, 224, 224, 3]") && info.stdoutText.contains("[1, 63]"), "\(info.stdoutText)")
    }

    /// `--npz`: one archive whose members are the `.npy` files a plain run writes, byte for byte,
    /// under the same names (a stored ZIP: read here from its local headers).
    @Test func npzHoldsTheSameArrays() throws {
        let plain = try CLI.temporaryDirectory(), archive = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: plain); try? FileManager.default.removeItem(at: archive) }
        let input = Self.golden.appendingPathComponent("mpii_004645041_input_1.npy").path
        #expect(try CLI.run(["run", Self.model, "--input", input, "--output", plain.path, "--threads", "1"]).status == 0)
        let result = try CLI.run(["run", Self.model, "--input", input, "--output", archive.path, "--threads", "1", "--npz"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: archive.path)) == ["outputs.npz", "run.json"])
        let zip = try [UInt8](Data(contentsOf: archive.appendingPathComponent("outputs.npz")))
        var members: [String: [UInt8]] = [:]
        var offset = 0
        func u16(_ at: Int) -> Int { Int(zip[at]) | Int(zip[at + 1]) << 8 }
        func u32(_ at: Int) -> Int { u16(at) | u16(at + 2) << 16 }
        while offset + 30 <= zip.count, u32(offset) == 0x0403_4B50 {
            #expect(u16(offset + 8) == 0, "stored, not compressed")
            let size = u32(offset + 18), nameLength = u16(offset + 26), extra = u16(offset + 28)
            let name = String(decoding: zip[(offset + 30)..<(offset + 30 + nameLength)], as: UTF8.self)
            let start = offset + 30 + nameLength + extra
            members[name] = Array(zip[start..<(start + size)])
            offset = start + size
        }
        #expect(Set(members.keys) == ["Identity.npy", "Identity_1.npy", "Identity_2.npy", "Identity_3.npy"])
        for (name, bytes) in members {
            #expect(bytes == [UInt8](try Data(contentsOf: plain.appendingPathComponent(name))), "\(name)")
        }
        #expect(u32(zip.count - 22) == 0x0605_4B50 && u16(zip.count - 22 + 10) == 4, "the end record lists four members")
    }

    /// A directory holding an earlier run's outputs is that run's to replace: outputs this run does
    /// not write are removed. Files no run wrote there are refused before the model runs.
    @Test func outputDirectoriesNeverMixTwoRuns() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Self.golden.appendingPathComponent("mpii_004645041_input_1.npy").path
        #expect(try CLI.run(["run", Self.model, "--input", input, "--output", dir.path]).status == 0)
        let second = try CLI.run(["run", Self.model, "--input", input, "--output", dir.path, "--outputs", "0"])
        #expect(second.status == 0, "\(second.stderr)")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)) == ["Identity.npy", "run.json"])
        // Another model's leftover (not in run.json): refused, nothing changed.
        let stray = dir.appendingPathComponent("output_3.npy")
        try Data("not ours".utf8).write(to: stray)
        let before = try Data(contentsOf: dir.appendingPathComponent("Identity.npy"))
        let refused = try CLI.run(["run", Self.model, "--input", input, "--output", dir.path])
        #expect(refused.status == 1 && refused.stderr.contains("output_3.npy") && refused.stderr.contains("no earlier `posekit run` wrote"),
                "\(refused.stderr)")
        let after = try Data(contentsOf: dir.appendingPathComponent("Identity.npy"))
        #expect(refused.stdout.isEmpty && after == before)
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: dir.path)) == ["Identity.npy", "run.json", "output_3.npy"])
        // The input tensor may lie in the output directory.
        let own = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: own) }
        let copied = own.appendingPathComponent("x.npy")
        try FileManager.default.copyItem(atPath: input, toPath: copied.path)
        #expect(try CLI.run(["run", Self.model, "--input", copied.path, "--output", own.path]).status == 0)
    }

    /// A float64 input is narrowed (a note says so: the outputs are the float32 input's), and
    /// NaN or infinite inputs get a warning; the run goes on.
    @Test func inputTypesAndNonFiniteValuesAreSaid() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let input = Self.golden.appendingPathComponent("mpii_004645041_input_1.npy")
        let (shape, values) = try Self.npy(input)
        func write(_ name: String, descr: String, payload: [UInt8]) throws -> String {
            var header = "{'descr': '\(descr)', 'fortran_order': False, 'shape': (\(shape.map(String.init).joined(separator: ", "))), }"
            header += String(repeating: " ", count: (64 - (10 + header.count + 1) % 64) % 64) + "\n"
            let url = dir.appendingPathComponent(name)
            try Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)] + Array(header.utf8) + payload).write(to: url)
            return url.path
        }
        let doubles = values.flatMap { value -> [UInt8] in withUnsafeBytes(of: Double(value).bitPattern.littleEndian) { Array($0) } }
        let wide = try write("wide.npy", descr: "<f8", payload: doubles)
        var withNaN = values
        withNaN[7] = .nan; withNaN[8] = .infinity
        let nan = try write("nan.npy", descr: "<f4", payload: withNaN.flatMap { v in withUnsafeBytes(of: v.bitPattern.littleEndian) { Array($0) } })
        for (name, path) in [("f4", input.path), ("f8", wide), ("nan", nan)] {
            let result = try CLI.run(["run", Self.model, "--input", path, "--output", dir.appendingPathComponent(name).path, "--outputs", "0"])
            #expect(result.status == 0, "\(name): \(result.stderr)")
            switch name {
            case "f8": #expect(result.stderr.contains("is float64; its values are narrowed to float32"), "\(result.stderr)")
            case "nan": #expect(result.stderr.contains("2 of \(values.count) input values are NaN or infinite"), "\(result.stderr)")
            default: #expect(result.stderr.isEmpty, "\(result.stderr)")
            }
        }
        #expect(try Data(contentsOf: dir.appendingPathComponent("f8/Identity.npy")) == Data(contentsOf: dir.appendingPathComponent("f4/Identity.npy")))
        let help = try CLI.run(["run", "--help"]).stdoutText.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        #expect(help.contains("float32 ('<f4', C order; float64 '<f8' is narrowed to float32"), "\(help)")
    }

    /// A full disk: the run fails in one line, every earlier output stays as it was and no
    /// temporary file is left (a 300 KB tmpfs; pose_landmark_full's outputs need about 900 KB).
    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskKeepsTheEarlierOutputs() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        let disk = try CLI.smallDisk(in: dir)
        defer { umount(disk.path) }
        let model = CLI.shared.appendingPathComponent("weights/mediapipe-0.10.14/pose_landmark_full.tflite").path
        // An earlier run's small output (as run.json lists it), which the failed run must leave.
        try Data("earlier".utf8).write(to: disk.appendingPathComponent("Identity.npy"))
        try Data(#"{"outputs": [{"index": 0, "name": "Identity", "file": "Identity.npy"}]}"#.utf8).write(to: disk.appendingPathComponent("run.json"))
        let input = dir.appendingPathComponent("crop.npy")
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 256, 256, 3), }"
        header += String(repeating: " ", count: (64 - (10 + header.count + 1) % 64) % 64) + "\n"
        try Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)] + Array(header.utf8)
                 + [UInt8](repeating: 0, count: 256 * 256 * 3 * 4)).write(to: input)
        let result = try CLI.run(["run", model, "--input", input.path, "--output", disk.path, "--threads", "1"])
        #expect(result.status == 1 && result.stderr.contains("No space left on device") && result.stderr.split(separator: "\n").count == 1,
                "\(result.stderr)")
        #expect(try String(contentsOf: disk.appendingPathComponent("Identity.npy"), encoding: .utf8) == "earlier")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: disk.path)) == ["Identity.npy", "run.json"])
    }

    @Test func badTensorsAreOneLine() throws {
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // A float32 .npy of the wrong shape: the line names the file, the shape given and the one expected.
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 224, 224, 4), }"
        header += String(repeating: " ", count: (64 - (10 + header.count + 1) % 64) % 64) + "\n"
        var bytes = Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
        bytes.append(Data(header.utf8))
        bytes.append(Data(count: 224 * 224 * 4 * 4))
        let wrong = dir.appendingPathComponent("wrong.npy")
        try bytes.write(to: wrong)
        let result = try CLI.run(["run", Self.model, "--input", wrong.path, "--output", dir.appendingPathComponent("out").path])
        #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        for word in ["wrong.npy", "[1, 224, 224, 4]", "[1, 224, 224, 3]", "input_1"] {
            #expect(result.stderr.contains(word), "\(result.stderr) lacks \(word)")
        }
        // Not a .npy at all.
        let text = dir.appendingPathComponent("text.npy")
        try Data("hello".utf8).write(to: text)
        let garbage = try CLI.run(["run", Self.model, "--input", text.path, "--output", dir.appendingPathComponent("out").path])
        #expect(garbage.status == 1 && garbage.stderr.split(separator: "\n").count == 1 && garbage.stderr.contains("text.npy"), "\(garbage.stderr)")
    }

    /// `--precision int8` runs reduced: its outputs differ from fp32's (so something ran in int8) and
    /// stay within int8's graph tolerance of TFLite's (0.1 of the range, GraphPrecisionParityTests).
    /// On a CPU without VNNI that is one error line and exit 1 (PrecisionCommandTests).
    @Test func int8RunsReducedWithinItsTolerance() throws {
        let input = Self.golden.appendingPathComponent("mpii_004645041_input_1.npy").path
        let fp32 = try CLI.temporaryDirectory(), int8 = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: fp32); try? FileManager.default.removeItem(at: int8) }
        let plain = try CLI.run(["run", Self.model, "--input", input, "--output", fp32.path, "--outputs", "0", "--threads", "1"])
        #expect(plain.status == 0, "\(plain.stderr)")
        let result = try CLI.run(["run", Self.model, "--input", input, "--output", int8.path, "--outputs", "0",
                                  "--threads", "1", "--precision", "int8"])
        guard result.status == 0 else {
            #expect(result.status == 1 && result.stderr.split(separator: "\n").count == 1
                    && result.stderr.hasPrefix("posekit: error: --precision int8: int8 precision needs"), "\(result.stderr)")
            return
        }
        let got = try Self.npy(int8.appendingPathComponent("Identity.npy")).values
        let reference = try Self.npy(fp32.appendingPathComponent("Identity.npy")).values
        let want = try Self.npy(Self.golden.appendingPathComponent("mpii_004645041_Identity_landmarks.npy")).values
        let range = Double((want.max() ?? 0) - (want.min() ?? 0))
        let worst = zip(got, want).map { Double(abs($0 - $1)) }.max() ?? .infinity
        #expect(got.count == want.count && worst <= 0.1 * range, "int8: \(worst) over \(range)")
        #expect(got != reference, "int8 gave fp32's bytes: nothing ran reduced")
    }

    /// A PoseNet bundle runs as its graph made for the input's size: its four heads, named, against
    /// the float64 reference's; `--list` and `info` describe it as a graph.
    @Test func aPoseNetBundleRunsAsItsGraph() throws {
        let folder = CLI.shared.appendingPathComponent("reference/mobilenet075__coco_000000000785__257_os16")
        let dir = try CLI.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: dir) }
        // input.ppm (P6, 257×257) scaled as the bundle's preprocessing says, x·2/255 − 1, as a .npy.
        let ppm = try Data(contentsOf: folder.appendingPathComponent("input.ppm"))
        var newlines = 0, start = 0
        for (i, byte) in ppm.enumerated() where byte == 0x0A { newlines += 1; if newlines == 3 { start = i + 1; break } }
        let pixels = ppm[start...].map { Float($0) * 2 / 255 - 1 }
        #expect(pixels.count == 257 * 257 * 3)
        var header = "{'descr': '<f4', 'fortran_order': False, 'shape': (257, 257, 3), }"
        header += String(repeating: " ", count: (64 - (10 + header.count + 1) % 64) % 64) + "\n"
        var bytes = Data([0x93] + Array("NUMPY".utf8) + [1, 0, UInt8(header.utf8.count & 0xFF), UInt8(header.utf8.count >> 8)])
        bytes.append(Data(header.utf8))
        pixels.withUnsafeBytes { bytes.append(contentsOf: $0) }
        let input = dir.appendingPathComponent("image.npy")
        try bytes.write(to: input)
        let out = dir.appendingPathComponent("out")
        let result = try CLI.run(["run", "mobilenet075", "--input", input.path, "--output", out.path, "--threads", "2"])
        #expect(result.status == 0, "\(result.stderr)")
        for (i, (file, shape)) in [("heatmap.f32", [1, 17, 17, 17]), ("offsets.f32", [1, 17, 17, 34]),
                                   ("displacement_fwd.f32", [1, 17, 17, 32]), ("displacement_bwd.f32", [1, 17, 17, 32])].enumerated() {
            let got = try Self.npy(out.appendingPathComponent(file.replacingOccurrences(of: ".f32", with: ".npy")))   // named by tensor
            let want = try Data(contentsOf: folder.appendingPathComponent(file)).withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
            let largest = Double(want.map(abs).max() ?? 0)
            let worst = zip(got.values, want).map { Double(abs($0 - $1)) }.max() ?? .infinity
            #expect(got.shape == shape && got.values.count == want.count, "output \(i): \(got.shape)")
            #expect(worst <= (i == 0 ? 1e-4 : 5e-4 * largest), "output \(i) \(file): \(worst) (largest \(largest))")
        }
        let listed = try CLI.run(["run", "mobilenet075", "--list"])
        for text in ["image  [1, 513, 513, 3]", "heatmap  [1, 33, 33, 17]", "displacement_bwd  [1, 33, 33, 32]"] {
            #expect(listed.status == 0 && listed.stdoutText.contains(text), "\(listed.stdoutText) lacks \(text)")
        }
        let info = try CLI.run(["info", "mobilenet075"])
        #expect(info.status == 0 && info.stdoutText.contains("network       graph: 32 operations") && info.stdoutText.contains("multiply-adds"),
                "\(info.stdoutText)")
    }
}
